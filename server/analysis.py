"""``GET /api/matches/{match_id}/analysis?player=NAME_OR_ID``: the engine's
post-game analysis of one finished board, for clients that cannot run the engine.

The same figures as ``cribsquares analyze`` (engine.analysis.analyse_game with
its default budgets and the fixed seed ``analysis``): the hindsight best board
and the expert's review of every move with its expected loss. A board takes a
few CPU-seconds, so it is computed in one worker process, never on the event
loop, and no request waits for it: the first asks for it and is answered 202
("computing", with ``Retry-After``), a later one gets it once it is done.
Answers are kept (a finished board never changes). Only a match whose cards
the API shows is analysed (finished, and not under an embargo,
server/visibility.py): the hidden-information rule holds.

The worker is shared fairly (docs/server.md, *Analysis*):

* **A player's own board first.** A request that carries its player's token
  (``Authorization: Bearer TOKEN``) for a board of that player is *own*; own
  boards are computed before any other waiting. Each kind takes turns by the
  address that asked, one board each: the accounts of one address cannot hold
  the worker from a player elsewhere.
* **Limits per address and per account.** At most :data:`PER_ASKER` boards
  waiting or being computed for one address (every board asked from it, its
  accounts' own boards included, but an account's first own board is always
  taken: a player behind the same address as an attacker still gets it) and
  for one account (its own); a new analysis also spends the
  ``analysis`` quotas of its address and account (``analyses_per_address``,
  ``analyses_per_account``). Over either: 429 ``rate_limited`` with
  ``Retry-After``; asking for an analysis already kept or under way costs nothing.
* **503 only for real overload**: more than :data:`WAITING` boards waiting for
  everyone together (own boards have as many places again of their own).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections import Counter, OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from engine.analysis import analyse_game
from engine.cards import Card
from engine.grid import cell_name, parse_cell
from server.limits import Refusal

log = logging.getLogger(__name__)

ANALYSIS_SEED = "analysis"  # client_cli.analysis.ANALYSIS_SEED: the same figures everywhere
KEPT = 256  # analyses kept in memory
WAITING = 16  # others' boards waiting or computed at once; more: 503 (own boards as many again)
PER_ASKER = 2  # boards waiting or computed for one address (others') or one account (its own)
RETRY_S = 2  # "computing": ask again this many seconds later


def analyse(cards: list[str], starter: str, cells: list[str]) -> dict[str, Any]:
    """One finished board (in a worker process): ``GameAnalysis.to_dict()``."""
    game = analyse_game(
        [Card.parse(c) for c in cards],
        Card.parse(starter),
        [parse_cell(c) for c in cells],
        seed=ANALYSIS_SEED,
    )
    found = game.to_dict()
    found["placements"] = [cell_name(parse_cell(c)) for c in cells]
    return found


Key = tuple[str, str]  # (match id, player id): one board


class Asker(NamedTuple):
    """Who asks for an analysis, as the shell found out: the address its quotas are
    kept under, the player its token names (None: no token, or not a player's),
    and a way to spend one analysis of both quotas (a refusal, or None)."""

    address: str
    account: str | None
    spend: Callable[[], Refusal | None]


@dataclass(slots=True)
class _Job:
    key: Key
    args: tuple[list[str], str, list[str]]  # cards, starter, cells
    asker: str  # "account:ID" for an own board, "address:ADDR" for another's
    address: str  # "address:ADDR": where it was asked from (turns are taken by address)
    charged: tuple[str, ...] = ()  # every asker it counts against


@dataclass(slots=True)
class _Turns:
    """Boards by the address that asked, served in turn: the address whose last turn is
    longest ago (or that never had one) first, one board a turn."""

    queues: OrderedDict[str, deque[_Job]] = field(default_factory=OrderedDict)
    count: int = 0
    served: dict[str, int] = field(default_factory=dict)  # address -> its last turn
    turns: int = 0

    def push(self, job: _Job) -> None:
        self.queues.setdefault(job.address, deque()).append(job)
        self.count += 1

    def take(self, key: Key) -> _Job | None:
        """The job of ``key``, taken out of its queue; None if it is not here."""
        for address, jobs in self.queues.items():
            for job in jobs:
                if job.key == key:
                    jobs.remove(job)
                    if not jobs:
                        del self.queues[address]
                    self.count -= 1
                    return job
        return None

    def pop(self) -> _Job | None:
        if not self.queues:
            return None
        address = min(self.queues, key=lambda a: self.served.get(a, -1))
        jobs = self.queues[address]
        job = jobs.popleft()
        if not jobs:
            del self.queues[address]
        self.count -= 1
        self.turns += 1
        self.served[address] = self.turns
        if len(self.served) > 4 * WAITING:  # only those waiting need remembering
            self.served = {a: t for a, t in self.served.items() if a in self.queues}
        return job


@dataclass(slots=True)
class _Waiting:
    """Own boards first, then others'; each kind by address, in turn."""

    own: _Turns = field(default_factory=_Turns)
    others: _Turns = field(default_factory=_Turns)

    def push(self, job: _Job, own: bool) -> None:
        (self.own if own else self.others).push(job)

    def promote(self, key: Key) -> None:
        """An own request for a board someone else asked for first: it goes on as own."""
        job = self.others.take(key)
        if job is not None:
            self.own.push(job)

    def pop(self) -> _Job | None:
        return self.own.pop() or self.others.pop()


class Analyst:
    """The worker process, the answers kept, and the analyses waiting or under way.

    A request never waits for the engine: the first one for a board queues its
    analysis and is answered "computing"; once it is done the answer is kept
    and every later request gets it at once. One board is computed at a time
    (one worker), the next chosen as the module says.
    """

    def __init__(self, executor: Executor | None = None) -> None:
        self._executor = executor
        self._kept: OrderedDict[Key, dict[str, Any]] = OrderedDict()
        self._failed: dict[Key, str] = {}
        self._queued: dict[Key, _Job] = {}  # waiting or being computed
        self._waiting = _Waiting()
        self._per_asker: Counter[str] = Counter()
        self._task: asyncio.Task[None] | None = None

    def _pool(self) -> Executor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        return self._executor

    def found(self, key: Key) -> dict[str, Any] | str | None:
        """The analysis if it is done; "failed", "computing" (queued earlier), or None:
        nobody asked for it yet (:meth:`start` does)."""
        if key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        if key in self._failed:
            return "failed"
        if key in self._queued:
            return "computing"
        return None

    def promote(self, key: Key) -> None:
        """Its player asks for a board queued as another's: it is computed as own."""
        if key in self._queued:
            self._waiting.promote(key)

    def refusal(self, asker: str, own: bool, address: str | None = None) -> str | None:
        """Why a new analysis for ``asker`` cannot be queued now: "limited" (it has
        :data:`PER_ASKER` under way, or the ``address`` an own board is asked from has,
        unless it is the account's first), "busy" (the server is overloaded), or None."""
        if self._per_asker[asker] >= PER_ASKER:
            return "limited"
        first = own and self._per_asker[asker] == 0  # a person's own first board
        if address is not None and not first and self._per_asker[address] >= PER_ASKER:
            return "limited"
        waiting = self._waiting.own.count if own else self._waiting.others.count
        if waiting >= WAITING:
            return "busy"
        return None

    def start(self, key: Key, cards: list[str], starter: str, cells: list[str], *,
              asker: str, own: bool, address: str | None = None) -> None:  # fmt: skip
        """Queue the analysis of a board (after :meth:`found` and :meth:`refusal`); an
        own board counts against its ``address`` too."""
        charged = tuple(a for a in (asker, address) if a is not None)
        job = _Job(key, (cards, starter, cells), asker, address or asker, charged)
        self._queued[key] = job
        for a in charged:
            self._per_asker[a] += 1
        self._waiting.push(job, own)
        if self._task is None:
            self._task = asyncio.create_task(self._work(), name="analysis")

    async def _work(self) -> None:
        try:
            while (job := self._waiting.pop()) is not None:
                try:
                    await self._compute(job.key, *job.args)
                finally:
                    self._queued.pop(job.key, None)
                    for a in job.charged:
                        self._per_asker[a] -= 1
                        if self._per_asker[a] <= 0:
                            del self._per_asker[a]
        finally:
            self._task = None

    async def _compute(self, key: Key, cards: list[str], starter: str,
                       cells: list[str]) -> None:  # fmt: skip
        pool = self._pool()
        loop = asyncio.get_running_loop()
        try:
            found = await loop.run_in_executor(pool, analyse, cards, starter, cells)
        except asyncio.CancelledError:
            raise
        except BrokenExecutor:
            log.warning("the analysis worker broke; starting a fresh one for the next board")
            if self._executor is pool:
                self._executor = None
                pool.shutdown(wait=False, cancel_futures=True)
            return  # not kept as failed: asked again, it is computed again
        except Exception as exc:
            log.warning("analysis of %s failed: %s", key[0], exc)
            self._failed[key] = str(exc)
            return
        self._kept[key] = found
        while len(self._kept) > KEPT:
            self._kept.popitem(last=False)

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        if self._executor is not None:
            executor, self._executor = self._executor, None
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
