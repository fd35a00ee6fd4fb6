"""The help of a screen, over it."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import (
    Static,
)


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Close"),
        Binding("question_mark", "app.pop_screen", "Close", show=False),
        Binding("q", "app.pop_screen", "Close", show=False),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog help"):
            yield Static(Text(f"Help: {self.title_text}", "bold"))
            yield Static(Text(self.text))
            yield Static(Text("\nCtrl+Q quits from anywhere. Escape closes this help.", "dim"))
