"""What every main screen of the client shares: the connection bar, the help key,
scrolling the side-by-side boards, and the way to the app (:class:`~client_cli.tui.crib.Crib`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, TypeVar, cast

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import ScrollableContainer
from textual.screen import Screen
from textual.widget import Widget

from client_cli.levels import picked
from client_cli.model.state import ClientModel
from client_cli.tui.crib import Crib
from client_cli.tui.levels import LevelDialog
from client_cli.tui.screens.help import HelpScreen
from client_cli.tui.widgets import (
    ConnectionBar,
)

W = TypeVar("W", bound=Widget)


def _quiet(widget: W) -> W:
    """A widget that only shows things: it never takes the keys from the screen."""
    widget.can_focus = False
    return widget


class BaseScreen(Screen[None]):
    """A main screen: the connection bar on top, the keys at the bottom, help on ``?``."""

    TITLE = ""
    HELP = ""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Keys", key_display="?"),
    ]

    @property
    def crib(self) -> Crib:
        return cast(Crib, self.app)

    @property
    def model(self) -> ClientModel:
        return self.crib.model

    def pick_level(self, title: str, doing: str, then: Callable[[str | None], object]) -> None:
        """Ask which of the server's bot levels (each with its rating), say it, ``then(level)``.

        A server that does not list its levels gets ``then(None)`` at once: its strongest bot.
        """
        bots = self.model.bots
        if bots is None:
            self.crib.tell(f"{doing}…")
            then(None)
            return

        def done(level: str | None) -> None:
            if level:
                self.crib.tell(f"{doing} of {picked(bots.levels, level)}…")
                then(level)

        self.app.push_screen(LevelDialog(title, bots.levels, bots.quickplay_bot), done)

    def compose_bar(self) -> ComposeResult:
        yield ConnectionBar(id="bar")

    def on_screen_resume(self) -> None:
        self.show()

    def show(self) -> None:
        """Redraw from the model; subclasses extend."""
        for bar in self.query(ConnectionBar):
            bar.show(self.model, self.TITLE)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.TITLE, self.HELP))

    def action_scroll_boards(self, dx: int, dy: int) -> None:
        """Scroll the side-by-side boards (results, replay) by columns and lines."""
        for boards in self.query(".boards").results(ScrollableContainer):
            boards.scroll_relative(x=dx, y=dy, animate=False)


BOARD_SCROLL: list[BindingType] = [
    Binding("up", "scroll_boards(0, -1)", "↑", show=False),
    Binding("down", "scroll_boards(0, 1)", "↓", show=False),
    Binding("pageup", "scroll_boards(0, -10)", "PgUp", show=False),
    Binding("pagedown", "scroll_boards(0, 10)", "PgDn", show=False),
    Binding("left_square_bracket", "scroll_boards(-48, 0)", "[", show=False),
    Binding("right_square_bracket", "scroll_boards(48, 0)", "]", show=False),
]
