"""A spectator in the Textual client is offered no Place: watching a match from the
lobby (w), its game screen's footer has no Enter to place and the note says how to
stop; the players' own footer has it."""

from __future__ import annotations

from multiprocessing import resource_tracker
from pathlib import Path

import pytest

from client_cli.tui.app import CribApp
from client_cli.tui.screens.game import GameScreen
from client_cli.tui.screens.lobby import LobbyScreen
from tests.client_cli.test_play_tui import text_of, until
from tests.client_cli.test_tournament_tui import footer_keys
from tests.server.live import duel, running_server, signed_in

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]


async def test_a_spectator_s_footer_has_no_place(tmp_path: Path) -> None:
    resource_tracker.ensure_running()  # before Textual replaces stderr (test_play_tui.py)
    async with running_server(tmp_path / "db.sqlite") as live:
        ada, bo = await signed_in(live, "ada"), await signed_in(live, "bo")
        await duel(ada, bo, card_clock_ms=60_000)
        await ada.until("card")
        app = CribApp(live.url, name="cy")
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            rooms = app.screen.query_one("#rooms")
            await until(pilot, lambda: rooms.row_count == 1, "the room listed")  # type: ignore[attr-defined]
            await pilot.press("w")
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the watched game")
            await until(pilot, lambda: app.model.spectating(), "watching")
            await pilot.pause()
            assert "enter" not in footer_keys(app.screen)
            assert "watching: Escape stops" in text_of(app.screen.query_one("#game-note"))
        for c in (ada, bo):
            await c.close()
