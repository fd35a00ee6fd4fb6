"""A duplicate field: every entrant alone at a table of one, every table of a round
dealt the same cards; each deal ranks the field by matchpoints (docs/tournaments.md)."""

from __future__ import annotations

from collections.abc import Mapping

from engine.ranking import competition_ranks
from protocol.tournaments import FormatOffer, TournamentStanding
from server.tournaments.formats.base import (
    Field,
    FixedRounds,
    Pairing,
    figure,
    plural,
    standing_row,
)
from server.tournaments.model import Entrant, Table
from server.tournaments.scoring import duplicate_standings


def deals(t: Field) -> list[dict[str, int]]:
    """Each round's deal: every entrant's score on it, from the tables that finished it."""
    found: list[dict[str, int]] = []
    for r in t.rounds:
        deal: dict[str, int] = {}
        for table in r.tables:
            for scores in table.deals[:1]:
                deal.update(scores)
        if deal:
            found.append(deal)
    return found


class Duplicate(FixedRounds):
    title = "duplicate field"
    offer = FormatOffer(
        format="duplicate", title=title, rounds="deals", best_of=[1], late_join=True
    )
    columns: tuple[str, ...] = ("MP %", "Matchpoints", "Points", "Deals")
    tie_breaks: tuple[tuple[str, str], ...] = (
        ("percentage", "matchpoint %"),
        ("points", "card points"),
    )

    def cells(self, t: Field, row: TournamentStanding, over: bool) -> list[str]:
        pct = "-" if row.percentage is None else f"{row.percentage:.1f}"
        mp = f"{figure(row.matchpoints)}/{figure(row.top)}"
        return [pct, mp, str(row.points), str(row.deals)]

    def length(self, rounds: int | None, best_of: int) -> str:
        return plural(rounds or 0, "deal")

    def pair(self, t: Field, number: int, playing: list[Entrant], now_ms: int) -> Pairing | None:
        return Pairing([(e.player.id,) for e in playing])

    def table_winner(self, t: Field, table: Table, winner_id: str | None) -> str | None:
        return None  # a one-seat table wins nothing: matchpoints rank the field

    def standings(
        self, t: Field, played: Mapping[str, int], points: Mapping[str, int]
    ) -> list[TournamentStanding]:
        table = duplicate_standings(deals(t), list(t.entrants))
        ranks = competition_ranks([(-round(s.percentage, 9), -s.points) for s in table])
        return [
            standing_row(
                t.entrants[s.player],
                rank,
                played,
                points,
                matchpoints=round(s.matchpoints, 4),
                top=round(s.top, 4),
                percentage=round(s.percentage, 4),
            )
            for s, rank in zip(table, ranks, strict=True)
        ]
