"""The sign-in screen: the server, a name, why a sign-in was refused."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import (
    Footer,
    Input,
    Label,
    Static,
)

from client_cli.render import SUIT_GLYPH
from client_cli.tui.keys import LeavingInput
from client_cli.tui.screens.base import BaseScreen


class SignInScreen(BaseScreen):
    TITLE = "sign in"
    HELP = """\
Type the name you want to play under and press Enter.
The server gives this computer a token, kept in your config directory,
so next time you are signed in straight away.

? or F1  this help
Ctrl+Q   quit"""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "app.quit", "Quit"),
        # A priority binding: "?" cannot be part of a name, so it opens the help
        # even while the name field has the keys.
        Binding("question_mark", "help", "Keys", key_display="?", priority=True),
        Binding("f1", "help", "Help", show=False),
    ]

    def compose(self) -> ComposeResult:
        yield from self.compose_bar()
        with Vertical(id="signin"):
            yield Static(self._banner(), id="banner")
            yield Label("Your name:")
            yield LeavingInput(
                placeholder="letters, digits, spaces, . _ -", id="name", max_length=24
            )
            yield Static("", id="signin-status")
        yield Footer()

    def _banner(self) -> Text:
        t = Text("\n")
        for s in "SHDC":
            t.append(
                f" A{SUIT_GLYPH[s]} ", ("bold red" if s in "HD" else "bold black") + " on white"
            )
            t.append(" ")
        t.append("\n\nCribbage Squares\n", "bold")
        t.append("16 cards, a 4x4 grid, one starter. 61 wins.", "italic")
        return t

    def on_mount(self) -> None:
        name = self.crib.session.name
        if name:
            self.query_one("#name", Input).value = name

    def show(self) -> None:
        super().show()
        status = self.query_one("#signin-status", Static)
        note = self.crib.sign_in_error or ""
        conn = self.model.connection_note
        if note:
            status.update(Text(note, "bold red"))
        elif self.crib.connecting:
            status.update(Text(f"connecting to {self.model.server_url}… {conn}", "yellow"))
        else:
            status.update(Text(f"server: {self.model.server_url}", "dim"))

    @on(Input.Submitted, "#name")
    def submit(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        if not name:
            self.crib.sign_in_error = "type a name first"
        else:
            self.crib.sign_in(name)
        self.show()
