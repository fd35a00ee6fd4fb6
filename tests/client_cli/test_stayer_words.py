"""The one who stays when the other resigns is not told "out of time": the card the
server placed for him when the deal ended says why (``placed.why``), in ``--plain``
and the Textual client, over real sockets; the words for every other reason too."""

from __future__ import annotations

import asyncio
from multiprocessing import resource_tracker
from pathlib import Path

import pytest
from textual.widgets import Static

from client_cli.model.text import PLACED_WHY, placed_for_you
from client_cli.tui.app import CribApp
from client_cli.tui.screens.lobby import LobbyScreen
from client_cli.tui.screens.replay import ReplayScreen
from client_cli.tui.screens.results import ResultsScreen
from protocol.deals import Placed, PlacedWhy
from tests.client_cli.test_play_plain import plain
from tests.client_cli.test_play_tui import text_of, until
from tests.server.live import running_server
from tests.server.ranked_deals import host_then_resign, resign_once_started

pytestmark = pytest.mark.timeout(120)
ENDED = "the others left, so the deal ended: placed for you"


async def test_the_plain_client_says_the_deal_ended(tmp_path: Path) -> None:
    async with running_server(tmp_path / "server.db") as live:
        ada, room_id = await host_then_resign(live)
        script = [f"join {room_id}", "ready", "wait", "wait", "quit"]
        bo = asyncio.create_task(plain(live.url, tmp_path / "bo", script, "--name", "bo"))
        await resign_once_started(ada, room_id)
        code, out, err = await bo
        assert code == 0, err
        [line] = [line for line in out.splitlines() if line.startswith("placed ")]
        assert line.endswith(f"({ENDED})") and "out of time" not in out, out
        assert "ada resigned: ranked last" in out
        await ada.close()


@pytest.mark.slow
async def test_the_textual_client_says_the_deal_ended(tmp_path: Path) -> None:
    resource_tracker.ensure_running()  # before Textual replaces stderr (test_play_tui.py)
    async with running_server(tmp_path / "server.db") as live:
        ada, room_id = await host_then_resign(live)
        app = CribApp(live.url, name="bo")
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            app.join_room(room_id=room_id)
            await until(pilot, lambda: app.model.room is not None, "the room")
            app.set_ready(True)
            await resign_once_started(ada, room_id)
            await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the result")
            said = "\n".join(app.log_lines)
            assert ENDED in said and "out of time" not in said, said
            head = app.screen.query_one("#results-head", Static)
            await until(pilot, lambda: "ada resigned: ranked last" in text_of(head), "the note")
            await pilot.press("p")  # the replay of the live result says it too, at the end
            await until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
            await pilot.press("end")
            head = text_of(app.screen.query_one("#replay-head", Static))
            assert "ada resigned: ranked last" in head.splitlines()
        await ada.close()


def test_every_reason_has_its_words_and_only_the_clocks_say_out_of_time() -> None:
    reasons: tuple[PlacedWhy, ...] = ("card_clock", "deal_clock", "round_clock", "others_left",
                                      "away")  # fmt: skip
    assert set(PLACED_WHY) == set(reasons) == set(PlacedWhy.__args__)  # type: ignore[attr-defined]
    said = {
        why: placed_for_you(Placed(room_id="r", turn=1, cell="a1", card="5H", auto=True, why=why))
        for why in reasons
    }
    assert said["card_clock"] == "out of time: placed for you"
    assert said["others_left"] == ENDED and said["away"] == "you were away: placed for you"
    assert "clock" in said["deal_clock"] and "round" in said["round_clock"]
    older = Placed(room_id="r", turn=1, cell="a1", card="5H", auto=True)  # a server with no why
    assert placed_for_you(older) == "placed for you by the server"
    assert placed_for_you(Placed(room_id="r", turn=1, cell="a1", card="5H")) == ""
