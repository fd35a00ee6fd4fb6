"""Every screen of the Textual client fits 80x24 and 120x40, as a player meets them
against a real server, in one pass through the screens (on each, the terminal is
resized to the other size and back, as a player's may be): sign-in, the lobby and
its help, a room, the match and its "leave?", the results, the replay, the
analysis, the invite code, the history, the leaderboard, the tournaments and one
of one's own, the daily deal (the form dialogs: test_fits_80x24).
On each: nothing that is laid out (not scrolled inside a pane) lies past the
screen's edge, no button or footer key included, and no table is wider than its
pane (a cut column, as the history's rating was)."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable

from client_cli.tui.app import CribApp
from client_cli.tui.screens.analysis import AnalysisScreen
from client_cli.tui.screens.confirm import ConfirmDialog
from client_cli.tui.screens.daily import DailyScreen
from client_cli.tui.screens.game import GameScreen
from client_cli.tui.screens.help import HelpScreen
from client_cli.tui.screens.history import HistoryScreen
from client_cli.tui.screens.leaderboard import LeaderboardScreen
from client_cli.tui.screens.lobby import LobbyScreen
from client_cli.tui.screens.lobby_dialogs import InviteDialog
from client_cli.tui.screens.replay import ReplayScreen
from client_cli.tui.screens.results import ResultsScreen
from client_cli.tui.screens.room import RoomScreen
from client_cli.tui.screens.sign_in import SignInScreen
from client_cli.tui.screens.tournament import TournamentScreen
from client_cli.tui.screens.tournament_dialogs import CreateTournamentDialog
from client_cli.tui.screens.tournament_list import TournamentListScreen
from tests.client_cli.test_play_tui import server, until, wait_card  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]
SCROLLS = ("auto", "scroll")


def scrolled(widget: Widget, screen: Screen[Any]) -> bool:
    """Is ``widget`` inside a pane that scrolls (its place there may be out of view)?"""
    return any(
        a is not screen
        and isinstance(a, Widget)
        and (a.styles.overflow_x in SCROLLS or a.styles.overflow_y in SCROLLS)
        for a in widget.ancestors
    )


def misfits(app: CribApp) -> list[str]:
    """What does not fit the screen now: widgets past its edge, tables wider than their
    pane."""
    screen = app.screen
    edge = screen.region
    found = []
    for widget in screen.query("*"):
        if not widget.display or not widget.region.area or scrolled(widget, screen):
            continue
        if not edge.contains_region(widget.region):
            found.append(f"{widget!r} at {widget.region} is past the screen's edge {edge}")
    for table in screen.query(DataTable):
        if table.display and table.virtual_size.width > table.scrollable_content_region.width:
            found.append(f"{table!r}: columns {table.virtual_size.width} wide in"
                         f" {table.scrollable_content_region.width}")  # fmt: skip
    return found


SIZES = ((80, 24), (120, 40))


async def fits(pilot: Pilot[int], app: CribApp, name: str, seen: dict[str, list[str]]) -> None:
    """Note what does not fit the screen shown, at each size (ending at the first)."""
    found = []
    for width, height in (*SIZES[1:], SIZES[0]):
        await pilot.resize_terminal(width, height)
        await pilot.pause(0.05)
        assert (app.size.width, app.size.height) == (width, height)
        found += [f"{width}x{height}: {misfit}" for misfit in misfits(app)]
    seen[name] = found


async def at(
    pilot: Pilot[int], app: CribApp, kind: type[Screen[Any]], seen: dict[str, Any]
) -> None:
    await until(pilot, lambda: isinstance(app.screen, kind), kind.__name__)
    await pilot.pause(0.1)
    await fits(pilot, app, kind.__name__, seen)


async def test_every_screen_fits(server: tuple[str, Any]) -> None:  # noqa: F811
    url, _ = server
    app = CribApp(url)
    seen: dict[str, list[str]] = {}
    async with app.run_test(size=SIZES[0]) as pilot:
        await at(pilot, app, SignInScreen, seen)
        await pilot.press(*"ada", "enter")
        await at(pilot, app, LobbyScreen, seen)
        await pilot.press("question_mark")
        await at(pilot, app, HelpScreen, seen)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
        await pilot.press("n")
        await pilot.pause(0.2)
        await pilot.press("tab", "end", "backspace", "1", "enter")  # a solo room
        await at(pilot, app, RoomScreen, seen)
        await pilot.press("s")
        await wait_card(pilot, app, 1)
        await at(pilot, app, GameScreen, seen)
        await pilot.press("escape")  # leaving asks first
        await at(pilot, app, ConfirmDialog, seen)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the match again")
        for turn in range(1, 17):
            legal = await wait_card(pilot, app, turn)
            await pilot.press(*legal[0])
        await at(pilot, app, ResultsScreen, seen)
        await pilot.press("p")
        await at(pilot, app, ReplayScreen, seen)
        await pilot.press("escape")
        await at(pilot, app, ResultsScreen, seen)
        await pilot.press("a")
        await at(pilot, app, AnalysisScreen, seen)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results again")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("i")
        await at(pilot, app, InviteDialog, seen)
        await pilot.press("escape")
        for key, kind in (("h", HistoryScreen), ("l", LeaderboardScreen),
                          ("t", TournamentListScreen), ("d", DailyScreen)):  # fmt: skip
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press(key)
            await at(pilot, app, kind, seen)
            await pilot.pause(0.3)  # its rows asked for and shown
            await fits(pilot, app, kind.__name__, seen)
            if kind is not TournamentListScreen:
                await pilot.press("escape")
                continue
            await pilot.press("n")  # a tournament of one's own
            await until(pilot, lambda: isinstance(app.screen, CreateTournamentDialog), "the form")
            await pilot.press(*"Cup", "enter")
            await at(pilot, app, TournamentScreen, seen)
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, TournamentScreen), "leaving it")
            while not isinstance(app.screen, LobbyScreen):
                await pilot.press("escape")
                await pilot.pause(0.1)
    assert len(seen) == 15, sorted(seen)
    assert {name: found for name, found in seen.items() if found} == {}
