"""A tournament as the store lists it, worded as the live one is: by its format's
module, and a format this server does not host shown as it is (HTTP) or left out
(the protocol's list, which cannot name it)."""

from __future__ import annotations

from typing import Any

from server.tournaments.views import stored_presentation, stored_summary

HOST = {"id": "p-1", "name": "ada", "guest": False, "bot": False}


def row(fmt: str, **settings: Any) -> dict[str, Any]:
    return {
        "id": "T1", "name": "cup", "format": fmt, "status": "finished", "host": HOST,
        "entrants": 4, "rounds_played": 2, "finished_ms": 9, "winners": [],
        "settings": {"visibility": "public", "pace": "race", "rounds": 3, "best_of": 3,
                     "max_players": 4, **settings},
    }  # fmt: skip


def test_a_stored_tournament_is_worded_by_its_format() -> None:
    line = stored_summary(row("knockout"))
    assert line is not None and (line.format_title, line.length) == (
        "knockout", "2 rounds, best of 3",
    )  # fmt: skip
    swiss = stored_presentation("swiss", {"rounds": 3, "best_of": 1}, 3, over=True)
    assert swiss == {
        "format_title": "Swiss", "length": "3 rounds",
        "columns": ["Score", "Buchholz", "S-B", "Points", "Deals"],
    }  # fmt: skip
    # A bracket's rounds are not known from the store before it is over.
    assert (
        stored_presentation("knockout", {"rounds": 3, "best_of": 1}, 1, over=False)["length"]
        == "rounds as the field needs, one deal a match"
    )


def test_a_format_this_server_does_not_host_is_shown_as_it_is_or_left_out() -> None:
    assert stored_summary(row("arena")) is None
    assert stored_presentation("arena", {"rounds": 1, "best_of": 1}, 0, over=False) == {
        "format_title": "arena", "length": "", "columns": [],
    }  # fmt: skip
