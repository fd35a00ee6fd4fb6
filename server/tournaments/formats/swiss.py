"""Swiss: players of equal score meet, nobody twice, one bye at most each; standings
by score, then Buchholz, then Sonneborn-Berger (docs/tournaments.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.ranking import WIN, competition_ranks, game_score
from protocol.tournaments import FormatOffer, TableStatus, TournamentStanding
from server.tournaments.formats.base import (
    Field,
    FixedRounds,
    OwnState,
    Pairing,
    figure,
    plural,
    standing_row,
)
from server.tournaments.model import Entrant, Table
from server.tournaments.pairing import PairingError, swiss_pairings
from server.tournaments.scoring import (
    Game,
    buchholz,
    sonneborn_berger,
    swiss_scores,
    swiss_standings,
)


def games(t: Field) -> list[Game]:
    """Every game played so far (a bye is a won game against nobody)."""
    found: list[Game] = []
    for r in t.rounds:
        for table in r.tables:
            if table.status == TableStatus.BYE:
                found.append(Game(table.players[0], None, WIN))
            elif table.status == TableStatus.FINISHED and len(table.players) == 2:
                a, b = table.players
                found.append(Game(a, b, game_score(table.winner, a)))
    return found


@dataclass(slots=True)
class Byes:
    """Who has had a Swiss bye (nobody gets a second while another may have one)."""

    had: set[str] = field(default_factory=set)

    def saved(self) -> dict[str, Any]:
        return {"had_bye": sorted(self.had)}


def had_byes(t: Field) -> Byes:
    own = t.own
    assert isinstance(own, Byes), own
    return own


class Swiss(FixedRounds):
    title = "Swiss"
    offer = FormatOffer(format="swiss", title=title, rounds="rounds", best_of=[1], late_join=True)
    columns: tuple[str, ...] = ("Score", "Buchholz", "S-B", "Points", "Deals")

    def fresh(self) -> OwnState:
        return Byes()

    def load(self, saved: Mapping[str, Any]) -> OwnState:
        return Byes({str(p) for p in saved.get("had_bye", [])})

    tie_breaks: tuple[tuple[str, str], ...] = (
        ("score", "score"),
        ("buchholz", "Buchholz"),
        ("sonneborn_berger", "Sonneborn-Berger"),
    )

    def cells(self, t: Field, row: TournamentStanding, over: bool) -> list[str]:
        figures = (row.score, row.buchholz, row.sonneborn_berger)
        return [*(figure(x) for x in figures), str(row.points), str(row.deals)]

    def length(self, rounds: int | None, best_of: int) -> str:
        return plural(rounds or 0, "round")

    def pair(self, t: Field, number: int, playing: list[Entrant], now_ms: int) -> Pairing | None:
        if len(playing) < 2:
            return None
        scores = swiss_scores(games(t))
        met = {
            frozenset(table.players)
            for r in t.rounds
            for table in r.tables
            if len(table.players) == 2
        }
        ids = [e.player.id for e in playing]
        try:
            pairing = swiss_pairings(
                ids, scores, {p: t.rating_of(p) for p in ids}, met, had_byes(t).had
            )
        except PairingError:
            return None
        byes: list[str] = []
        if pairing.bye is not None:
            byes.append(pairing.bye)
            had_byes(t).had.add(pairing.bye)
        return Pairing(list(pairing.pairs), byes)

    def table_winner(self, t: Field, table: Table, winner_id: str | None) -> str | None:
        return winner_id  # a draw is half a point each

    def standings(
        self, t: Field, played: Mapping[str, int], points: Mapping[str, int]
    ) -> list[TournamentStanding]:
        played_games = games(t)
        scores = swiss_scores(played_games)
        bh, sb = buchholz(played_games), sonneborn_berger(played_games)
        order = swiss_standings(played_games, list(t.entrants))

        def key(p: str) -> tuple[float, float, float]:
            return (-scores.get(p, 0.0), -bh.get(p, 0.0), -sb.get(p, 0.0))

        ranks = competition_ranks([key(p) for p in order])
        return [
            standing_row(
                t.entrants[p],
                rank,
                played,
                points,
                score=scores.get(p, 0.0),
                buchholz=bh.get(p, 0.0),
                sonneborn_berger=sb.get(p, 0.0),
            )
            for p, rank in zip(order, ranks, strict=True)
        ]
