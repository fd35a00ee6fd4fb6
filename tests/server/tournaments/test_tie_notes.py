"""Standings level on a format's first figure say which tie-break decided, in words
every client shows: a Swiss field level on score ranked by Buchholz, a duplicate
field level on matchpoint % (one winner named) ranked by card points."""

from __future__ import annotations

from typing import Any

from protocol.fields import PlayerInfo
from protocol.tournaments import TournamentFormat, TournamentStanding
from server.tournaments.views import tie_notes


def row(rank: int, name: str, **figures: Any) -> TournamentStanding:
    player = PlayerInfo(id=f"p-{name}", name=name)
    figures.setdefault("points", 0)
    return TournamentStanding(rank=rank, player=player, status="active", deals=2, **figures)


def test_a_swiss_tie_on_score_is_broken_by_buchholz_then_sonneborn_berger() -> None:
    standings = [
        row(1, "ada", score=1.5, buchholz=3.5, sonneborn_berger=2.0),
        row(2, "bo", score=1.5, buchholz=2.0, sonneborn_berger=2.25),
        row(3, "cy", score=1.0, buchholz=2.0, sonneborn_berger=1.0),
        row(4, "di", score=1.0, buchholz=2.0, sonneborn_berger=0.5),
        row(5, "ed", score=0.0, buchholz=1.0, sonneborn_berger=0.0),
        row(5, "fi", score=0.0, buchholz=1.0, sonneborn_berger=0.0),  # level on all: shared
    ]
    assert tie_notes(TournamentFormat.SWISS, standings) == [
        "ada ranks above bo: level on score (1.5), ahead on Buchholz (3.5 to 2)",
        "cy ranks above di: level on score (1), ahead on Sonneborn-Berger (1 to 0.5)",
    ]


def test_a_duplicate_field_level_on_percentage_is_ranked_by_card_points() -> None:
    standings = [
        row(1, "ada", percentage=50.0, points=120),
        row(2, "bo", percentage=50.0, points=98),
        row(3, "cy", percentage=0.0, points=90),
    ]
    assert tie_notes(TournamentFormat.DUPLICATE, standings) == [
        "ada ranks above bo: level on matchpoint % (50), ahead on card points (120 to 98)"
    ]


def test_a_knockout_has_no_tie_notes() -> None:
    assert tie_notes(TournamentFormat.KNOCKOUT, [row(1, "ada"), row(1, "bo")]) == []
