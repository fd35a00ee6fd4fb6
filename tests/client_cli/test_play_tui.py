"""The Textual client against a real server on loopback, driven by Pilot.

Sign in, create a solo room, play a whole match by every input method (typed
cell names, arrows and Enter, the mouse), refuse an illegal cell, reach the
results with the deal verified, replay the match, open the history; then lose
the connection mid-match and resume where it stood.
"""

from __future__ import annotations

import asyncio
import stat
from collections.abc import AsyncIterator, Callable
from multiprocessing import resource_tracker
from pathlib import Path

import pytest
from aiohttp import web
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from client_cli.config import SavedSignIn, TokenStore
from client_cli.model.views import Connection, View
from client_cli.tui.app import CribApp
from client_cli.tui.screens.game import GameScreen
from client_cli.tui.screens.history import HistoryScreen
from client_cli.tui.screens.lobby import LobbyScreen
from client_cli.tui.screens.lobby_dialogs import CreateRoomDialog
from client_cli.tui.screens.replay import ReplayScreen
from client_cli.tui.screens.results import ResultsScreen
from client_cli.tui.screens.room import RoomScreen
from client_cli.tui.widgets import TOP, BoardView, ConnectionBar
from engine import parse_cell
from protocol.connection import ErrorMessage
from protocol.wire import ServerMessage
from server.config import ServerConfig
from server.shell.app import create_app
from server.shell.keys import HUB

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[tuple[str, web.Application]]:
    # This server shares its process with a Textual app, which replaces sys.stderr
    # with an object that has no file descriptor; multiprocessing's resource tracker,
    # started with the first bot worker, passes stderr's descriptor on. Started now,
    # while stderr is the real one, it is there when the bot pool spawns its workers.
    resource_tracker.ensure_running()
    app = create_app(ServerConfig(port=0, db_path=str(tmp_path / "server.db"), tick_ms=50))
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"ws://127.0.0.1:{port}/ws", app
    finally:
        await runner.cleanup()


async def until(
    pilot: Pilot[int], cond: Callable[[], bool], what: str, timeout: float = 10
) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.03)


def text_of(widget: Static) -> str:
    content = widget.content
    return content.plain if isinstance(content, Text) else str(content)


async def sign_in_and_create_solo(pilot: Pilot[int], app: CribApp) -> None:
    await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
    await pilot.press("n")
    await until(pilot, lambda: isinstance(app.screen, CreateRoomDialog), "the dialog")
    await pilot.click("#room-seats")
    await pilot.press("end", "backspace", "1")
    await pilot.click("#room-clock")
    await pilot.press("end", "backspace", "backspace", "6", "0", "enter")
    await until(pilot, lambda: isinstance(app.screen, RoomScreen), "the room")
    assert app.model.room is not None and app.model.room.seats == 1


async def wait_card(pilot: Pilot[int], app: CribApp, turn: int) -> list[str]:
    await until(
        pilot,
        lambda: app.model.match is not None and app.model.match.turn == turn,
        f"card {turn}",
    )
    assert app.model.match is not None
    return list(app.model.match.legal)


@pytest.mark.slow
async def test_a_whole_solo_match_then_its_replay_and_history(server) -> None:
    url, _ = server
    app = CribApp(url, name="ada")
    async with app.run_test(size=(120, 40)) as pilot:
        await sign_in_and_create_solo(pilot, app)
        room_text = text_of(app.screen.query_one("#room-note", Static))
        assert "You created this room" in room_text
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game")
        game = app.screen
        board = game.query_one("#board", BoardView)

        # 1: typed cell name
        await wait_card(pilot, app, 1)
        await pilot.press("b", "2")
        # 2: an illegal cell is refused with the reason, and the card stays
        await wait_card(pilot, app, 2)
        await pilot.press("d", "4")
        assert "does not touch a placed card" in text_of(game.query_one("#game-note", Static))
        assert app.model.match is not None and app.model.match.turn == 2
        # ...then arrows and Enter: the cursor went to d4; left to c4, up to c3 (legal)
        assert board.cursor == parse_cell("d4")
        # A redraw between the keys (a clock, a message) leaves the cursor where it is
        # moved, through illegal cells too: once, a redraw as it crossed c4 put it on c3,
        # and "up" then placed the card on c2.
        for key in ("left", "up"):
            await pilot.press(key)
            game.show()
        await pilot.press("enter")
        await wait_card(pilot, app, 3)
        assert app.model.match.cells[parse_cell("c3")] is not None
        # 3: the mouse
        legal = app.model.match.legal
        target = parse_cell(legal[0])
        row, col = divmod(target, 4)
        g = board.geometry  # at 120x40, the large board
        assert g.points
        await pilot.click(BoardView, offset=(g.left + col * g.cell_w + 3,
                                             TOP + row * g.cell_h + g.cell_h // 2))  # fmt: skip
        await wait_card(pilot, app, 4)
        assert app.model.match.cells[target] is not None
        # the rest: typed names of legal cells
        for turn in range(4, 17):
            legal = await wait_card(pilot, app, turn)
            await pilot.press(*legal[-1])
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results", 15)
        head = text_of(app.screen.query_one("#results-head", Static))
        assert "deal verified" in head and "Starter" in head
        match = app.model.match
        assert match is not None and match.result is not None and match.verification.ok
        assert len(app.screen.query("ResultBoard")) == 1

        # the replay steps through every placement
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        replay = app.screen
        await pilot.press("right", "right")
        assert replay.step == 2 and "placement 2 of 16" in text_of(replay.query_one("#replay-head"))
        await pilot.press("end")
        assert "the starter" in text_of(replay.query_one("#replay-head"))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "back to results")

        # back to the lobby; the history lists the match and replays it
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
        await pilot.press("h")
        await until(pilot, lambda: isinstance(app.screen, HistoryScreen), "the history")
        table = app.screen.query_one("#history", DataTable)
        await until(pilot, lambda: table.row_count == 1, "a history row")
        # Its columns fit 80 columns; the note says the chosen match in full.
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert table.virtual_size.width <= table.size.width <= 80, table.virtual_size
        note = app.screen.query_one("#history-note", Static)
        await until(pilot, lambda: match.match_id in str(note.render()), "the row in full")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen), "a replay from history")
        assert app.screen.replay.match_id == match.match_id
        await pilot.press("question_mark")
        await until(
            pilot,
            lambda: "Help: replay" in str(app.screen.query("Static").first().content),
            "the help",
        )

    # the token was kept, owner-only, and the next start signs straight in
    store = TokenStore()
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert store.get(app.session.url) is not None
    again = CribApp(url)
    async with again.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(again.screen, LobbyScreen), "signed in by token")
        assert again.model.me is not None and again.model.me.name == "ada"


async def test_a_saved_sign_in_the_server_forgot_registers_the_name_again(server) -> None:
    """The server's database was started afresh: the token saved for it is refused.
    The player is told so, in those words, and signed in under the name given,
    at once and as a new player, whose token replaces the stale one."""
    url, _ = server
    store = TokenStore()
    store.put(url, SavedSignIn("a-token-from-an-older-database", "ada", "p-gone"))
    app = CribApp(url, name="ada")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "signed in")
        assert app.model.me is not None and app.model.me.name == "ada"
        assert app.model.me.id != "p-gone"
        said = "\n".join(app.log_lines)
        assert "no longer knows the saved sign-in (no player has that token)" in said
        assert "registering ada as a new player" in said
        assert "closed" not in said and "retrying" not in said
    saved = TokenStore().get(url)
    assert saved is not None and saved.token != "a-token-from-an-older-database"
    assert saved.player_id == app.model.me.id


@pytest.mark.slow
async def test_a_dropped_connection_is_resumed_where_the_match_stands(server) -> None:
    url, server_app = server
    app = CribApp(url, name="bea")
    async with app.run_test(size=(120, 40)) as pilot:
        await sign_in_and_create_solo(pilot, app)
        await pilot.press("s")
        await wait_card(pilot, app, 1)
        await pilot.press("a", "1")
        await wait_card(pilot, app, 2)

        app.session.backoff = (1.0, 1.0)
        for session in list(server_app[HUB].sessions):
            await session.ws.close()
        await until(pilot, lambda: app.model.connection == Connection.RECONNECTING, "the drop")
        bar = app.screen.query_one(ConnectionBar)
        assert "connection lost" in text_of(bar)
        await until(pilot, lambda: app.model.connection == Connection.ONLINE, "the reconnect")
        assert app.model.view == View.GAME
        match = app.model.match
        assert match is not None and match.turn == 2 and match.cells[0] is not None
        await pilot.press("b", "1")
        await wait_card(pilot, app, 3)
        assert "online" in text_of(app.screen.query_one(ConnectionBar))
        assert isinstance(app.screen, GameScreen)


async def test_a_question_mark_in_the_name_field_opens_the_help() -> None:
    """ "?" cannot be part of a name: typed in the name field it opens the help, and
    the field keeps what was typed, without it."""
    from textual.widgets import Input

    from client_cli.tui.screens.sign_in import SignInScreen

    app = CribApp("ws://127.0.0.1:9/ws")  # nobody signs in: no name, no token
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SignInScreen), "the sign-in")
        field = app.screen.query_one("#name", Input)
        field.focus()
        await pilot.press("a", "d", "question_mark")
        await until(
            pilot,
            lambda: "Help: sign in" in str(app.screen.query("Static").first().content),
            "the help",
        )
        shown = " ".join(str(w.content) for w in app.screen.query("Static"))
        assert "Type the name you want to play under" in shown  # the help's text itself
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, SignInScreen), "the sign-in again")
        await pilot.press("a")
        assert field.value == "ada"


@pytest.mark.slow
async def test_an_enter_after_a_typed_cell_confirms_it_and_a_card_is_sent_once(server) -> None:
    """Typing a1 then Enter, as after a command, places the card on a1 and nothing more: the
    next card is not placed under the cursor by that Enter. A second placement of a card
    before the server answered the first is not sent: the server never has to refuse
    one."""
    url, _ = server
    app = CribApp(url, name="cy")
    errors: list[ErrorMessage] = []
    apply = app.model.apply

    def recording(msg: ServerMessage, now: float) -> list[str]:
        if isinstance(msg, ErrorMessage):
            errors.append(msg)
        return apply(msg, now)

    app.model.apply = recording  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await sign_in_and_create_solo(pilot, app)
        await pilot.press("s")
        await wait_card(pilot, app, 1)
        await pilot.press("a", "1", "enter")
        await wait_card(pilot, app, 2)
        await pilot.pause(0.3)  # time for a stray placement of card 2 to be answered
        match = app.model.match
        assert match is not None and match.turn == 2 and match.placed_count == 1
        assert match.cells[parse_cell("a1")] is not None
        # the same card placed twice before the server answers: sent once
        game = app.screen
        assert isinstance(game, GameScreen)
        cell = match.legal[0]
        assert game.place(cell) and not game.place(cell)
        assert "on its way" in text_of(game.query_one("#game-note", Static))
        await wait_card(pilot, app, 3)
        assert app.model.match is not None and app.model.match.placed_count == 2
        # an Enter later than the confirming moment places, as any Enter does
        legal = list(app.model.match.legal)
        await pilot.press(*legal[-1])
        legal = await wait_card(pilot, app, 4)
        game.query_one("#board", BoardView).cursor = parse_cell(legal[0])
        await pilot.pause(1.6)
        await pilot.press("enter")
        await wait_card(pilot, app, 5)
    assert not errors, [e.reason for e in errors]
