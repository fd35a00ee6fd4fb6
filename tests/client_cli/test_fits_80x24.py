"""Every form dialog and the help fit a terminal of 80x24, the size most open at: the
dialog inside the screen, its submit button on screen (docked at its foot, the
fields scrolling above it), the help wrapped within 80 columns."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.screen import ModalScreen
from textual.widgets import Button

from client_cli.tui.screens.daily import DailyDialog
from client_cli.tui.screens.help import HelpScreen
from client_cli.tui.screens.lobby import LobbyScreen
from client_cli.tui.screens.lobby_dialogs import ChallengeDialog, CreateRoomDialog, QuickPlayDialog
from client_cli.tui.screens.tournament_dialogs import AddBotsDialog, CreateTournamentDialog
from server.tournaments.formats import OFFERS

CSS = Path(__file__).resolve().parents[2] / "client_cli" / "tui" / "cribsquares.tcss"
SIZES = [(80, 24), (120, 40)]
DIALOGS: dict[str, Callable[[], ModalScreen[Any]]] = {
    "new room": CreateRoomDialog,
    "quick play": QuickPlayDialog,
    "challenge": ChallengeDialog,
    "new tournament": lambda: CreateTournamentDialog(OFFERS),
    "add bots": AddBotsDialog,
    "daily": DailyDialog,
}


class Bare(App[None]):
    CSS_PATH = str(CSS)


def inside(app: App[None], widget: Any) -> bool:
    region, screen = widget.region, app.screen.region
    return bool(region.area) and screen.contains_region(region)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", list(DIALOGS))
async def test_a_dialog_s_buttons_are_on_screen(name: str, size: tuple[int, int]) -> None:
    app = Bare()
    async with app.run_test(size=size) as pilot:
        app.push_screen(DIALOGS[name]())
        await pilot.pause()
        dialog = app.screen.query_one(".dialog")
        assert inside(app, dialog), (name, dialog.region)
        for button in app.screen.query(Button):
            assert inside(app, button), (name, button.label, button.region)


@pytest.mark.parametrize("size", SIZES)
async def test_the_help_fits(size: tuple[int, int]) -> None:
    app = Bare()
    async with app.run_test(size=size) as pilot:
        app.push_screen(HelpScreen("lobby", LobbyScreen.HELP))
        await pilot.pause()
        assert inside(app, app.screen.query_one(".help"))


@pytest.mark.parametrize("name", list(DIALOGS))
async def test_a_dialog_opens_on_its_first_field_and_enter_in_it_submits(name: str) -> None:
    app = Bare()
    closed: list[Any] = []
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(DIALOGS[name](), closed.append)
        await pilot.pause()
        chain = app.screen.focus_chain
        assert chain and app.focused is chain[0], (name, app.focused, chain[:2])
        assert not isinstance(app.focused, Button), (name, app.focused)
        if name in ("quick play", "daily"):  # their defaults are a request: Enter sends it
            await pilot.press("enter")
            await pilot.pause()
            assert closed and closed[0] is not None, (name, closed)
            assert closed[0]["pace"] == "lockstep", closed
