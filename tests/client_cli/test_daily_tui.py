"""The daily deal in the Textual client, against a real server on loopback (Pilot):
`d` in the lobby, the standings of the others, one's attempt played, its result,
then the next day: yesterday's deal checked and analysed against the field."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from client_cli.tui.app import CribApp
from client_cli.tui.screens.daily import DailyDialog, DailyScreen
from client_cli.tui.screens.game import GameScreen
from client_cli.tui.screens.lobby import LobbyScreen
from client_cli.tui.screens.results import ResultsScreen
from tests.client_cli.test_play_tui import text_of, until, wait_card
from tests.server.live import running_server, signed_in
from tests.server.test_embargo_sweep import DAY_MS, Calendar

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]
ROW_ORDER = [f"{c}{r}" for r in "1234" for c in "abcd"]  # always legal, in this order


async def test_the_daily_deal_from_the_lobby_to_yesterdays_analysis(tmp_path: Path) -> None:
    calendar = Calendar()
    async with running_server(tmp_path / "d.db", daily_calendar=calendar) as live:
        for pick, name in enumerate(("ann", "ben")):
            c = await signed_in(live, name)
            await c.send(type="play_daily", pace="race", deal_clock_ms=600_000)
            room_id = (await c.until("room_state"))["room"]["id"]
            await c.play_to_end(room_id, pick=pick * 5)
            await c.close()
        app = CribApp(live.url, name="ada")
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("d")
            await until(pilot, lambda: isinstance(app.screen, DailyScreen), "the daily deal")
            screen = app.screen
            head = screen.query_one("#daily-head", Static)
            await until(pilot, lambda: "2 played" in text_of(head), "today's standings")
            assert "open today" in text_of(head) and "not played" in text_of(head)
            standings = screen.query_one("#daily-standings", DataTable)
            assert standings.row_count == 2
            # ada may still play it: who played, not their scores, and why
            assert "play today's deal to see the field's scores" in text_of(head)
            assert [str(c) for c in standings.get_row_at(0)][2] == "done"
            await pilot.press("p")
            await until(pilot, lambda: isinstance(app.screen, DailyDialog), "the pace dialog")
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the attempt")
            assert app.model.room is not None and app.model.room.origin == "daily"
            for turn, cell in enumerate(ROW_ORDER, start=1):
                assert cell in await wait_card(pilot, app, turn)
                await pilot.press(*cell)
            await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the result")
            said = text_of(app.screen.query_one("#results-series", Static))
            assert "daily deal" in said and "rematch" not in said
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "back to the lobby")
            await pilot.press("d")
            await until(pilot, lambda: isinstance(app.screen, DailyScreen), "the daily deal")
            head = app.screen.query_one("#daily-head", Static)
            await until(pilot, lambda: "3 played" in text_of(head), "ada in the standings")
            assert "points, rank" in text_of(head) and "streak 1 day" in text_of(head)
            assert "to see the field's scores" not in text_of(head)
            standings = app.screen.query_one("#daily-standings", DataTable)
            scores = [str(standings.get_row_at(i)[2]) for i in range(standings.row_count)]
            assert all(s.isdigit() for s in scores), scores  # ada played: the numbers
            body = app.screen.query_one("#daily-body", Static)
            assert "nobody's cards" in text_of(body)  # the day is not over: no deal
            # Midnight: yesterday's deal opens.
            calendar.ms += DAY_MS
            await pilot.press("y")
            await until(pilot, lambda: "over: its deal" in text_of(head), "yesterday, over")
            await until(pilot, lambda: "✔ the secret" in text_of(body), "the deal checked")
            assert "✖" not in text_of(body)
            assert "where the field put it" in text_of(body)
            await pilot.press("a")
            await until(pilot, lambda: "you lost" in text_of(body), "the analysis", 60)
            await pilot.press("y")  # back to today: a new day, not played yet
            await until(pilot, lambda: "open today" in text_of(head), "today")
            assert "not played" in text_of(head) and "streak 1 day" in text_of(head)
