"""A replay from history says why a board ranks where its score alone would not, in
the server's words, as the live result did: a race tie on points broken on time
used and a resignation, played over real sockets, replayed in the Textual client
(from its history) and in ``--plain`` (``replay ID``)."""

from __future__ import annotations

from multiprocessing import resource_tracker
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from client_cli.config import SavedSignIn, TokenStore
from client_cli.session import normalize_url
from client_cli.tui.app import CribApp
from client_cli.tui.screens.history import HistoryScreen
from client_cli.tui.screens.lobby import LobbyScreen
from client_cli.tui.screens.replay import ReplayScreen
from tests.client_cli.test_play_plain import plain
from tests.client_cli.test_play_tui import text_of, until
from tests.server.live import running_server
from tests.server.ranked_deals import notes, pair, race_tie, resignation

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


async def test_replays_in_the_terminal_clients_say_why(tmp_path: Path) -> None:
    resource_tracker.ensure_running()  # before Textual replaces stderr (test_play_tui.py)
    async with running_server(tmp_path / "server.db") as live:
        ada, bo = await pair(live)
        tie, resigned = await race_tie(ada, bo), await resignation(ada, bo)
        assert len(notes(tie)) == 1 and notes(resigned) == ["ada resigned: ranked last"]
        assert ada.token and ada.id
        for c in (ada, bo):
            await c.close()

        script = [f"replay {tie['match_id']}", f"replay {resigned['match_id']}", "quit"]
        code, out, err = await plain(live.url, tmp_path / "plain", script, "--name", "cy")
        assert code == 0, err
        first, second = out.split(f"replay of match {resigned['match_id']}")
        assert notes(tie)[0] in first.splitlines() and "resigned" not in first
        assert "ada resigned: ranked last" in second.splitlines() and "time used" not in second

        TokenStore().put(normalize_url(live.url), SavedSignIn(ada.token, "ada", ada.id))
        app = CribApp(live.url)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("h")
            await until(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history")
            table = app.screen.query_one("#history", DataTable)
            await until(pilot, lambda: table.row_count == 2, "ada's two deals")
            for down, result in ((0, resigned), (1, tie)):  # the latest first
                await pilot.press(*["down"] * down, "enter")
                await until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
                head = app.screen.query_one("#replay-head", Static)
                assert not any(n in text_of(head) for n in notes(result))  # not before the end
                await pilot.press("end")
                assert all(n in text_of(head).splitlines() for n in notes(result)), text_of(head)
                await pilot.press("escape")
                await until(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history")
