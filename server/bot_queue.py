"""The order in which server bots think: fair per owner and per room, a person's game first,
and each owner's bots within a CPU budget.

A bot seat's move waits here until a worker process is free (server.bots). What
goes next is decided by three rules, in this order:

1. **A person's game first.** A move in a room where a person plays (a seat
   that is neither a bot nor played by the server for someone absent) goes
   before any move in a room of bots alone (a tournament table of server bots).
2. **Fair per owner, then per room.** The *owner* of a bot is the account that
   put it there: a tournament's host for its bot entrants, a room's creator for
   the bots added to it (server.lobby.Lobby.bot_owner). Owners with moves
   waiting take turns, one move each; an owner's rooms take turns the same way;
   a room's moves go in the order they were asked. However many bots one
   account runs, another account's move waits for at most one move of each
   other owner with work.
3. **A CPU budget per owner.** An owner's bots may think for ``budget_s``
   CPU-seconds a minute (a token bucket of that size, refilled continuously).
   The time each move took in its worker is charged to its owner. An owner
   over its budget is not refused, nor sent to the back: its bots' moves keep
   their place but are made by the server's fallback rule (server.fallback, a
   millisecond or two), as the clock would make them. Its tables still finish;
   they play weaker until the bucket fills again.

Pure: no asyncio, no clock of its own (``now_s`` is passed in), no I/O. What
is queued is opaque here (the pool's futures); only its owner, room and whether
a person plays there count. docs/operations.md, *Limits*, gives the figures.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")

BUDGET_WINDOW_S = 60.0  # the budget is CPU-seconds per this many seconds
PERSON, BOTS = 0, 1  # the classes, served in this order
CLASSES = (PERSON, BOTS)


@dataclass(slots=True)
class _Owner(Generic[T]):
    rooms: OrderedDict[str, deque[T]] = field(default_factory=OrderedDict)


@dataclass(slots=True)
class _Class(Generic[T]):
    owners: OrderedDict[str, _Owner[T]] = field(default_factory=OrderedDict)

    def push(self, owner: str, room: str, item: T) -> None:
        queued = self.owners.get(owner)
        if queued is None:
            queued = self.owners[owner] = _Owner()
        moves = queued.rooms.get(room)
        if moves is None:
            moves = queued.rooms[room] = deque()
        moves.append(item)

    def pop(self) -> tuple[str, T] | None:
        """The first owner's first room's first move; both go to the back of their line."""
        if not self.owners:
            return None
        owner, queued = next(iter(self.owners.items()))
        room, moves = next(iter(queued.rooms.items()))
        item = moves.popleft()
        if moves:
            queued.rooms.move_to_end(room)
        else:
            del queued.rooms[room]
        if queued.rooms:
            self.owners.move_to_end(owner)
        else:
            del self.owners[owner]
        return owner, item


class FairQueue(Generic[T]):
    """Moves waiting for a worker, taken in the order the module's rules give.

    ``budget_s``: CPU-seconds a minute each owner's bots may think (0: no budget).
    At most ``max_owners`` owners' buckets are remembered (least recently charged
    first to go); a forgotten owner starts again with a full bucket, which is
    what a bucket left alone for a minute would hold anyway.
    """

    def __init__(self, budget_s: float = 0.0, max_owners: int = 10_000) -> None:
        self.budget_s = budget_s
        self.max_owners = max_owners
        self._classes: tuple[_Class[T], ...] = tuple(_Class() for _ in CLASSES)
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # tokens, at
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def push(self, item: T, *, owner: str, room: str, person: bool, now_s: float) -> None:
        """Queue ``item``, a move for a bot of ``owner`` in ``room``."""
        self._classes[PERSON if person else BOTS].push(owner, room, item)
        self._size += 1

    def pop(self, now_s: float, *, bots: bool = True) -> tuple[T, bool, bool] | None:
        """The next move, whether it is to be made by the fallback rule (its owner is
        over budget) and whether a person plays in its room; None when nothing
        waits. ``bots`` False: only a move of a room where a person plays."""
        for kind in CLASSES if bots else (PERSON,):
            found = self._classes[kind].pop()
            if found is not None:
                self._size -= 1
                owner, item = found
                return item, self.over_budget(owner, now_s), kind == PERSON
        return None

    def tokens(self, owner: str, now_s: float) -> float:
        """CPU-seconds ``owner``'s bots may still use now (negative: in debt)."""
        if self.budget_s <= 0:
            return float("inf")
        tokens, at = self._buckets.get(owner, (self.budget_s, now_s))
        refill = max(0.0, now_s - at) * self.budget_s / BUDGET_WINDOW_S
        return min(self.budget_s, tokens + refill)

    def over_budget(self, owner: str, now_s: float) -> bool:
        return self.tokens(owner, now_s) <= 0.0

    def charge(self, owner: str, cpu_s: float, now_s: float) -> None:
        """``owner``'s bot thought for ``cpu_s`` CPU-seconds."""
        if self.budget_s <= 0:
            return
        tokens = self.tokens(owner, now_s) - max(0.0, cpu_s)
        self._buckets.pop(owner, None)
        if tokens < self.budget_s:
            self._buckets[owner] = (tokens, now_s)
        while len(self._buckets) > self.max_owners:
            self._buckets.popitem(last=False)
