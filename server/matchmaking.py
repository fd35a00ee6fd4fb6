"""Quick-play queue: pairs waiting players of close rating. Pure and clock-injected.

A waiting player accepts opponents within a rating window that widens the
longer it waits: ``BASE_WINDOW`` at first, growing by ``WIDEN_PER_SECOND``
points each second up to ``MAX_WINDOW``. Two players are paired when each is
inside the other's window. Among the acceptable pairs, the longest-waiting
player is served first, with its closest-rated acceptable opponent. A player
may ask for a bot after a chosen wait; :meth:`Queue.due_for_bot` names them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

BASE_WINDOW: Final = 100.0
WIDEN_PER_SECOND: Final = 25.0
MAX_WINDOW: Final = 1000.0


@dataclass(frozen=True)
class Ticket:
    player: str
    rating: float
    since_ms: int
    pace: str = "lockstep"
    bot_after_ms: int | None = None  # ask for a bot after this long a wait
    pool: str = ""  # only tickets of the same pace and pool are paired (e.g. best of 3)

    def window(self, now_ms: int) -> float:
        waited = max(0, now_ms - self.since_ms) / 1000.0
        return min(MAX_WINDOW, BASE_WINDOW + WIDEN_PER_SECOND * waited)


@dataclass
class Queue:
    tickets: dict[str, Ticket] = field(default_factory=dict)

    def join(self, ticket: Ticket) -> None:
        if ticket.player in self.tickets:
            raise ValueError(f"{ticket.player} is already queued")
        self.tickets[ticket.player] = ticket

    def leave(self, player: str) -> Ticket | None:
        return self.tickets.pop(player, None)

    def match(self, now_ms: int) -> list[tuple[Ticket, Ticket]]:
        """Remove and return every pair that can be made now."""
        pairs: list[tuple[Ticket, Ticket]] = []
        # Longest waiting first; tickets of the same millisecond in the order they
        # joined (the sort is stable, the dict keeps that order): who queued first
        # takes the first seat, not whoever has the smaller id.
        waiting = sorted(self.tickets.values(), key=lambda t: t.since_ms)
        taken: set[str] = set()
        for t in waiting:
            if t.player in taken:
                continue
            best: Ticket | None = None
            for o in waiting:
                if o.player == t.player or o.player in taken:
                    continue
                if (o.pace, o.pool) != (t.pace, t.pool):
                    continue
                gap = abs(o.rating - t.rating)
                if (
                    gap <= t.window(now_ms)
                    and gap <= o.window(now_ms)
                    and (best is None or gap < abs(best.rating - t.rating))
                ):
                    best = o
            if best is not None:
                taken.update((t.player, best.player))
                pairs.append((t, best))
        for a, b in pairs:
            del self.tickets[a.player], self.tickets[b.player]
        return pairs

    def due_for_bot(self, now_ms: int) -> list[Ticket]:
        """Remove and return the players whose wait for a human has run out."""
        due = [
            t
            for t in self.tickets.values()
            if t.bot_after_ms is not None and now_ms - t.since_ms >= t.bot_after_ms
        ]
        for t in due:
            del self.tickets[t.player]
        return due
