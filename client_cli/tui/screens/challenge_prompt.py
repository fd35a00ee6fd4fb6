"""A challenge made to this player: accept or decline before it expires."""

from __future__ import annotations

from typing import ClassVar, cast

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

from client_cli.tui.crib import Crib


class ChallengePrompt(ModalScreen[None]):
    """A challenge made to this player: accept or decline before it expires."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Accept"),
        Binding("n", "answer(False)", "Decline"),
        Binding("escape", "later", "Later"),
    ]

    def __init__(self, challenge_id: str) -> None:
        super().__init__()
        self.challenge_id = challenge_id

    @property
    def crib(self) -> Crib:
        return cast(Crib, self.app)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("Challenge", "bold"), classes="title")
            yield Static("", id="prompt-body")
            with Horizontal(classes="buttons"):
                yield Button("Accept (y)", variant="primary", id="accept", compact=True)
                yield Button("Decline (n)", id="decline", compact=True)
                yield Button("Later (Esc)", id="later", compact=True)

    def on_mount(self) -> None:
        self.set_interval(0.25, self.tick)
        self.tick()

    def tick(self) -> None:
        offer = self.crib.model.challenges.get(self.challenge_id)
        if offer is None:  # answered, withdrawn or expired: the notice says which
            self.dismiss(None)
            return
        left = offer.clock.left_ms(self.crib.now())
        body = Text()
        body.append(offer.other.name, "bold")
        body.append(" challenges you to a match:\n")
        body.append(offer.terms(), "bold cyan")
        body.append("\n\n")
        body.append(f"⏱ {left // 1000}s", "bold red" if left <= 10_000 else "bold")
        body.append(" to answer", "dim")
        self.query_one("#prompt-body", Static).update(body)

    @on(Button.Pressed, "#accept")
    def accept(self) -> None:
        self.action_answer(True)

    @on(Button.Pressed, "#decline")
    def decline(self) -> None:
        self.action_answer(False)

    @on(Button.Pressed, "#later")
    def action_later(self) -> None:
        self.dismiss(None)

    def action_answer(self, accept: bool) -> None:
        self.crib.answer_challenge(self.challenge_id, accept)
        self.dismiss(None)
