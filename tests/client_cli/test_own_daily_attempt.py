"""A daily attempt is in its player's own history while its day is on, in the
Textual client and in ``--plain``, and replays there as its own table (scores and
board; the deal checked once the day is over); anyone else is told why there is
nothing to replay yet. Over real sockets, on the fake daily calendar."""

from __future__ import annotations

from multiprocessing import resource_tracker
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from client_cli.config import FILE_NAME, SavedSignIn, TokenStore
from client_cli.history import Replay
from client_cli.session import normalize_url
from client_cli.tui.app import CribApp
from client_cli.tui.screens.history import HistoryScreen
from client_cli.tui.screens.lobby import LobbyScreen
from client_cli.tui.screens.replay import ReplayScreen
from client_cli.tui.screens.results import ResultsScreen
from tests.client_cli.test_play_plain import plain
from tests.client_cli.test_play_tui import text_of, until
from tests.server.daily.test_attempts_live import begin
from tests.server.live import running_server, signed_in
from tests.server.test_embargo_sweep import Calendar

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


async def test_a_daily_attempt_in_one_s_own_history_while_the_day_is_on(tmp_path: Path) -> None:
    resource_tracker.ensure_running()  # before Textual replaces stderr (test_play_tui.py)
    async with running_server(tmp_path / "server.db", daily_calendar=Calendar()) as live:
        ada = await signed_in(live, "ada")
        room = (await begin(ada, pace="race", deal_clock_ms=600_000))["room"]["id"]
        result = await ada.play_to_end(room)
        attempt, score = result["match_id"], result["boards"][0]["score"]["total"]
        assert ada.token and ada.id
        await ada.close()
        saved = SavedSignIn(ada.token, "ada", ada.id)

        # --plain, as ada: listed, and replayed with its board and the embargo said.
        home = tmp_path / "plain"
        TokenStore(home / "cribsquares" / FILE_NAME).put(normalize_url(live.url), saved)
        code, out, err = await plain(live.url, home, ["history", f"replay {attempt}", "quit"])
        assert code == 0, err
        assert attempt in out.split("replay of match")[0]
        assert f"board of ada: rank 1, {score} points" in out and Replay.EMBARGO_TEXT in out
        # anyone else: nothing to replay yet, and why
        code, out, err = await plain(
            live.url, tmp_path / "other", [f"replay {attempt}", "quit"], "--name", "cy"
        )
        assert code == 0 and "others may still play this deal" in out, err

        TokenStore().put(normalize_url(live.url), saved)
        app = CribApp(live.url)
        async with app.run_test(size=(120, 40)) as pilot:
            # still seated in the attempt's room: its results first, then the lobby
            await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results")
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("h")
            await until(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history")
            table = app.screen.query_one("#history", DataTable)
            await until(pilot, lambda: table.row_count == 1, "ada's daily attempt")
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
            head = app.screen.query_one("#replay-head", Static)
            assert Replay.EMBARGO_TEXT in text_of(head).replace("\n", " ")
            assert "NOT VERIFIED" not in text_of(head)
