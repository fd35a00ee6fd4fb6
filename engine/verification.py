"""Checking a revealed deal against what was published before it: the client's side
of the commit-reveal scheme (docs/fairness.md, docs/protocol.md "Verifying the deal").

Every client runs the same checks, from plain values it saw on the wire: the seed
against its commitment, the server's secret against its commitment and the
series' hash chain, the seed against the secret and every contribution, the
player's own contribution at its seat, and the cards (those received, those on
every board, the starter) against the deal. A tournament's table is checked
against the round it belongs to. Every check is listed, passed or not, so a
failure says which promise was broken. Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.deal import commitment, deal, room_seed, table_deal_secret, table_root
from engine.errors import EngineError


@dataclass(frozen=True)
class Check:
    label: str
    ok: bool


@dataclass(frozen=True)
class Verification:
    """The deal checked from the revealed seed against what was committed and dealt."""

    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    @property
    def summary(self) -> str:
        if self.ok:
            return "deal verified: the seed matches its commitment and deals exactly these cards"
        failed = [c.label for c in self.checks if not c.ok]
        return "DEAL NOT VERIFIED: " + "; ".join(failed)

    def extended(self, more: Sequence[Check]) -> Verification:
        return Verification(self.checks + tuple(more))


@dataclass(frozen=True)
class Revealed:
    """What a finished deal reveals: the seed, the server's secret, the starter, and
    each board's placements as (turn, card) pairs (cards in their canonical text)."""

    seed: str
    server_secret: str
    seed_commitment: str
    starter: str
    boards: Sequence[Sequence[tuple[int, str]]]


@dataclass(frozen=True)
class Published:
    """What was published before the deal, as this player saw it."""

    contributions: Sequence[str]
    server_commitment: str | None  # the one the deal was announced with
    received: Mapping[int, str]  # turn -> card dealt to this player
    my_contribution: str | None = None
    my_seat: int | None = None
    deal_number: int = 1  # which deal of the series
    series_commitment: str | None = None  # the room's commitment when the series began
    previous_secret: str | None = None  # the secret revealed by the deal before
    # False for a tournament table, whose deal secrets are not a hash chain: they are
    # checked against the round's secret once the round is over (table_round_checks).
    chained: bool = True
    # The commitment to the seed shown before the first card (match_started), when this
    # player saw it: the revealed seed must match it, not only the result's own copy.
    seed_commitment: str | None = None


@dataclass(frozen=True)
class RoundRecord:
    """One tournament round as the tournament published it."""

    number: int
    contribution: str
    server_commitment: str
    server_secret: str | None  # revealed once the round is over


def chain_back(secret: str, steps: int) -> str:
    """``secret`` hashed ``steps`` times: deal k's secret, hashed k times, is the
    series' published commitment (each deal's commitment is the previous deal's secret)."""
    for _ in range(steps):
        secret = commitment(secret)
    return secret


def verify_deal(revealed: Revealed, seen: Published) -> Verification:
    """Check a revealed deal; every check is listed, passed or not.

    Deal k of a series also has to link to what was published before: deal 1's
    commitment is the room's (``series_commitment``), deal k's is the secret
    revealed by deal k-1 (``previous_secret``), and in any case deal k's secret
    hashed k times gives the room's commitment, so a client that missed a deal
    still checks the chain.
    """
    checks: list[Check] = []
    k = seen.deal_number
    server_commitment = seen.server_commitment
    contributions = list(seen.contributions)
    try:
        announced = seen.seed_commitment
        if announced:
            checks.append(
                Check(
                    "the seed matches the commitment shown before the first card",
                    commitment(revealed.seed) == announced == revealed.seed_commitment,
                )
            )
        else:
            checks.append(
                Check(
                    "the seed matches its commitment",
                    commitment(revealed.seed) == revealed.seed_commitment,
                )
            )
        if server_commitment:
            checks.append(
                Check(
                    "the server's secret matches its commitment",
                    commitment(revealed.server_secret) == server_commitment,
                )
            )
        if k == 1 and seen.series_commitment and server_commitment:
            checks.append(
                Check(
                    "the deal's commitment is the one the room published",
                    server_commitment == seen.series_commitment,
                )
            )
        if seen.chained and k > 1 and seen.previous_secret is not None and server_commitment:
            checks.append(
                Check(
                    f"deal {k}'s commitment is the secret revealed by deal {k - 1}",
                    server_commitment == seen.previous_secret,
                )
            )
        if seen.chained and k > 1 and seen.series_commitment:
            checks.append(
                Check(
                    f"the secret hashed {k} times is the room's commitment",
                    chain_back(revealed.server_secret, k) == seen.series_commitment,
                )
            )
        if contributions:
            checks.append(
                Check(
                    "the seed comes from the server's secret and every contribution",
                    room_seed(revealed.server_secret, contributions) == revealed.seed,
                )
            )
        if seen.my_contribution is not None and contributions:
            seat = seen.my_seat
            used = (
                seat is not None
                and 0 <= seat < len(contributions)
                and contributions[seat] == seen.my_contribution
            )
            checks.append(Check("my contribution was used, at my seat", used))
        dealt = deal(revealed.seed)
        cards = [str(c) for c in dealt.cards]
        received = seen.received
        if received:
            mine_ok = all(cards[t - 1] == c for t, c in received.items() if 1 <= t <= 16)
            checks.append(Check(f"the {len(received)} cards I received are the deal's", mine_ok))
        boards_ok = all(
            all(1 <= turn <= 16 and cards[turn - 1] == card for turn, card in board)
            for board in revealed.boards
        )
        checks.append(Check("every board holds the deal's cards", boards_ok))
        checks.append(Check("the starter is the deal's", str(dealt.starter) == revealed.starter))
    except EngineError as exc:
        checks.append(Check(f"the revealed seed is unusable ({exc})", False))
    return Verification(tuple(checks))


def tournament_checks(
    round_number: int,
    rounds: Sequence[RoundRecord],
    tournament_commitment: str,
    contributions: Sequence[str],
) -> tuple[Check, ...]:
    """A tournament table's deal against what the tournament published, as soon as
    the deal is over (docs/fairness.md, *Tournaments*): every seat has the round's
    contribution, and the round's commitment is the tournament's (round 1) or the
    secret the round before revealed. That the table's secrets come from the
    round's secret is checked once the round is over (:func:`table_round_checks`)."""
    k = round_number
    current = next((r for r in rounds if r.number == k), None)
    if current is None:
        return (Check(f"round {k} of the tournament was published", False),)
    checks = [
        Check(
            f"every seat has round {k}'s published contribution",
            bool(contributions) and all(c == current.contribution for c in contributions),
        ),
    ]
    if k == 1:
        checks.append(
            Check(
                "round 1's commitment is the one the tournament published at its creation",
                current.server_commitment == tournament_commitment,
            )
        )
    else:
        before = next((r for r in rounds if r.number == k - 1), None)
        if before is not None and before.server_secret:
            checks.append(
                Check(
                    f"round {k}'s commitment is the secret revealed by round {k - 1}",
                    current.server_commitment == before.server_secret,
                )
            )
    return tuple(checks)


@dataclass(frozen=True)
class TableDeal:
    """A deal this player played at a tournament table, kept until its round's secret
    is revealed: then its secret is checked against it (:func:`table_round_checks`)."""

    tournament_id: str
    round: int
    deal: int
    match_id: str
    server_secret: str  # revealed by the deal's result
    table_commitment: str  # the room's, published when the table opened


def table_round_checks(
    tournament_id: str, number: int, revealed: RoundRecord | None, deals: Sequence[TableDeal]
) -> tuple[Check, ...]:
    """Once round ``number`` is over: its revealed secret matches the commitment the
    round began with, and every deal of the table took its secret from it:
    ``table_deal_secret(table_root(secret, tournament id, round), deal)``, the first
    deal's hashing to the table's published commitment (docs/fairness.md)."""
    if revealed is None or not revealed.server_secret:
        return (Check(f"round {number}'s secret was revealed", False),)
    secret = revealed.server_secret
    checks = [
        Check(
            f"round {number}'s revealed secret matches its commitment",
            commitment(secret) == revealed.server_commitment,
        )
    ]
    try:
        root = table_root(secret, tournament_id, number)
        for d in deals:
            checks.append(
                Check(
                    f"deal {d.deal}'s secret comes from round {number}'s secret",
                    table_deal_secret(root, d.deal) == d.server_secret,
                )
            )
        first = commitment(table_deal_secret(root, 1))
        checks.append(
            Check(
                "the table's commitment comes from the round's secret",
                all(d.table_commitment == first for d in deals),
            )
        )
    except EngineError as exc:
        checks.append(Check(f"the revealed round secret is unusable ({exc})", False))
    return tuple(checks)
