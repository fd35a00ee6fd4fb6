"""A best-of-N series: the deals a room plays in a row and who is winning. Pure.

Every deal of a series is played by the same seats. After each deal the
standings are, in order: most deals won (ranked first in the deal; shared
firsts count for each), then most points over the deals, then, at race pace,
least time used. A player who forfeits (leaves during the series) is last, and
of two who forfeit the first to leave is below the other. The series ends when
the deals are all played, when the leader can no longer be caught on deals won,
or when at most one player has not forfeited.

A rated series is *aborted* when its first deal ends and a side placed none of
its cards itself (:meth:`Series.aborts`): it ends there, rated for nobody
(docs/ratings.md, "No free rating").

Each deal has its own server secret, fixed by the series' root before anyone
contributes to the seed. A room's series is a hash chain,
``secret[k-1] = commitment(secret[k])``: the room publishes
``commitment(secret[0])``, and revealing one deal's secret reveals nothing of
the next one's (docs/fairness.md, "Series"). The tables of a tournament round
are not in step, so their series take every deal's secret from the table root
on its own (:func:`engine.deal.table_deal_secret`): a chain would announce, as
the next deal's commitment, the secret of a deal another table is still playing
(docs/fairness.md, "Tournaments").

A series of a tournament table is under the round's embargo (``embargo``, a
:mod:`server.visibility` group): what its deals were is shown to nobody but
their players until every table of the round has finished.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from engine.deal import commitment, table_deal_secret


class SecretScheme(StrEnum):
    """How a series' deal secrets follow from its root (stored with the series)."""

    CHAIN = "chain"  # a room: secret[k-1] = commitment(secret[k]), the root the last
    TABLE = "table"  # a tournament table: secret[k] = table_deal_secret(root, k)


def secret_chain(root: str, length: int) -> list[str]:
    """The secrets of ``length`` deals, first deal first; ``root`` is the last one."""
    chain = [root]
    while len(chain) < length:
        chain.append(commitment(chain[-1]))
    chain.reverse()
    return chain


def deal_secrets(scheme: SecretScheme, root: str, length: int) -> list[str]:
    """The secrets of a series' ``length`` deals, first deal first."""
    if scheme == SecretScheme.TABLE:
        return [table_deal_secret(root, k) for k in range(1, length + 1)]
    return secret_chain(root, length)


@dataclass(frozen=True, slots=True)
class DealOutcome:
    """One finished deal: each player's rank, score and time used."""

    match_id: str
    ranks: dict[str, int]
    scores: dict[str, int]
    times: dict[str, int]


@dataclass(frozen=True, slots=True)
class Standing:
    player_id: str
    deals_won: int
    points: int
    time_used_ms: int
    forfeited: bool


@dataclass(slots=True)
class Series:
    id: str
    best_of: int
    players: tuple[str, ...]  # seat order
    secrets: list[str]
    race: bool = False
    deals: list[DealOutcome] = field(default_factory=list)
    forfeited: set[str] = field(default_factory=set)
    forfeit_order: list[str] = field(default_factory=list)  # who forfeited, first first
    moved: set[str] = field(default_factory=set)  # placed a card of the first deal themselves
    gone: set[str] = field(default_factory=set)  # has an abandonment on record in this series
    aborted: bool = False
    started: int = 0  # deals begun
    finished: bool = False
    next_at: int | None = None  # when the next deal begins (between deals)
    root: str = ""  # what the secrets follow from (stored, never shown)
    scheme: SecretScheme = SecretScheme.CHAIN
    embargo: str | None = None  # a tournament round's embargo group, if any
    embargo_lifted: bool = False  # that round is over: its deals may be shown

    @property
    def commitment(self) -> str:
        return commitment(self.secrets[0])

    def secret(self, deal: int) -> str:
        """The server secret of deal ``deal`` (1-based)."""
        return self.secrets[deal - 1]

    def standings(self) -> list[Standing]:
        rows = [
            Standing(
                player_id=pid,
                deals_won=sum(1 for d in self.deals if d.ranks.get(pid) == 1),
                points=sum(d.scores.get(pid, 0) for d in self.deals),
                time_used_ms=sum(d.times.get(pid, 0) for d in self.deals),
                forfeited=pid in self.forfeited,
            )
            for pid in self.players
        ]
        return sorted(rows, key=self._key)

    def forfeit(self, player_id: str) -> None:
        """``player_id`` left the series: last, below anyone who forfeits after it."""
        if player_id not in self.forfeited:
            self.forfeited.add(player_id)
            self.forfeit_order.append(player_id)

    def aborts(self) -> list[str]:
        """At the end of the first deal: the players who placed none of its cards
        themselves (every one placed for them: they left, were away, or never moved).
        Any of them aborts a rated series."""
        if len(self.deals) != 1:
            return []
        return [pid for pid in self.players if pid not in self.moved]

    def _key(self, s: Standing) -> tuple[int, int, int, int]:
        order = self.forfeit_order
        # Not forfeited: 0; forfeited: the earlier, the lower in the standings.
        out = len(order) - order.index(s.player_id) if s.player_id in order else 0
        if s.forfeited and not out:
            out = len(order) + 1
        return (out, -s.deals_won, -s.points, s.time_used_ms if self.race else 0)

    def winner(self) -> str | None:
        """The series winner once it is over; None while it goes on, and for a draw."""
        if not self.finished or self.aborted:
            return None
        rows = self.standings()
        if len(rows) > 1 and self._key(rows[0]) == self._key(rows[1]):
            return None
        return rows[0].player_id

    def decided(self) -> bool:
        """No deal left can change the winner (or every deal is played)."""
        if len(self.deals) >= self.best_of:
            return True
        live = [s for s in self.standings() if not s.forfeited]
        if not live or (len(self.players) > 1 and len(live) == 1):
            return True
        if len(live) < 2:
            return False  # a solo series plays all its deals
        left = self.best_of - len(self.deals)
        leader = live[0]
        return all(s.deals_won + left < leader.deals_won for s in live[1:])
