"""A yes/no question, and the withdrawal from a tournament that asks one first."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import (
    Button,
    Static,
)

from client_cli.tui.screens.base import BaseScreen


class ConfirmDialog(ModalScreen[bool]):
    """A yes/no question: ``y`` or Enter on Yes confirms, ``n`` or Escape does not."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "answer(False)", "No"),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(self.title_text, "bold"), classes="title")
            yield Static(Text(self.text), id="confirm-text", classes="hint-line")
            with Horizontal(classes="buttons"):
                yield Button("Yes (y)", variant="error", id="yes", compact=True)
                yield Button("No (n)", id="no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()  # Enter on its own does nothing rash

    @on(Button.Pressed, "#yes")
    def yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def no(self) -> None:
        self.dismiss(False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def confirm_withdrawal(screen: BaseScreen, tid: str, name: str) -> None:
    """Ask before ``leave_tournament``: a withdrawal is for good."""
    model = screen.model
    if not model.entered(tid) and tid not in model.watching:
        if model.tournaments.get(tid) is None:
            # Not told about it: the server says whether one is in it.
            text = f"Withdraw from {name}? If you are registered you cannot register again."
        else:
            screen.crib.tell(f"you are not registered in {name}")
            return
    elif model.entered(tid):
        text = f"Withdraw from {name}? You cannot register again"
        text += " and your table this round is forfeited." if _playing(model, tid) else "."
    else:
        screen.crib.leave_tournament(tid)  # a spectator just stops watching
        return

    def done(yes: bool | None) -> None:
        if yes:
            screen.crib.leave_tournament(tid)

    screen.app.push_screen(ConfirmDialog("Withdraw", text), done)


def _playing(model: Any, tid: str) -> bool:
    view = model.tournaments.get(tid)
    table = view.table_of(model.me.id if model.me else None) if view else None
    return bool(table is not None and table.status == "playing")
