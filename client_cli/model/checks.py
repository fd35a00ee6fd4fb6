"""The deal checks of :mod:`engine.verification`, fed from the protocol's messages.

The engine holds the checks every client makes; this module only turns a
``match_result`` and a ``tournament`` message into the engine's plain values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.verification import (
    Check,
    Published,
    Revealed,
    RoundRecord,
    TableDeal,
    Verification,
    verify_deal,
)
from engine.verification import table_round_checks as engine_table_round_checks
from engine.verification import tournament_checks as round_checks
from protocol.deals import MatchResult
from protocol.tournaments import TournamentInfo


def revealed(result: MatchResult) -> Revealed:
    """What a ``match_result`` reveals, as the engine's checks take it."""
    return Revealed(
        seed=result.seed,
        server_secret=result.server_secret,
        seed_commitment=result.seed_commitment,
        starter=result.starter,
        boards=[[(p.turn, p.card) for p in board.placements] for board in result.boards],
    )


def verify_result(
    result: MatchResult,
    contributions: Sequence[str],
    server_commitment: str | None,
    received: Mapping[int, str],
    my_contribution: str | None = None,
    my_seat: int | None = None,
    *,
    deal_number: int = 1,
    series_commitment: str | None = None,
    previous_secret: str | None = None,
    chained: bool = True,
    seed_commitment: str | None = None,
) -> Verification:
    """Check a revealed deal against what this player saw before it (see
    :func:`engine.verification.verify_deal`)."""
    seen = Published(
        contributions=list(contributions),
        server_commitment=server_commitment,
        received=dict(received),
        my_contribution=my_contribution,
        my_seat=my_seat,
        deal_number=deal_number,
        series_commitment=series_commitment,
        previous_secret=previous_secret,
        chained=chained,
        seed_commitment=seed_commitment,
    )
    return verify_deal(revealed(result), seen)


def _rounds(info: TournamentInfo) -> list[RoundRecord]:
    return [
        RoundRecord(r.number, r.contribution, r.server_commitment, r.server_secret)
        for r in info.history
    ]


def tournament_checks(info: TournamentInfo, contributions: Sequence[str]) -> tuple[Check, ...]:
    """A tournament table's deal against what the tournament published, as soon as
    the deal is over (:func:`engine.verification.tournament_checks`)."""
    return round_checks(info.round, _rounds(info), info.commitment, contributions)


def table_round_checks(
    info: TournamentInfo, number: int, deals: Sequence[TableDeal]
) -> tuple[Check, ...]:
    """Once round ``number`` is over, the table's deals against its revealed secret
    (:func:`engine.verification.table_round_checks`)."""
    revealed = next((r for r in _rounds(info) if r.number == number), None)
    return engine_table_round_checks(info.id, number, revealed, deals)
