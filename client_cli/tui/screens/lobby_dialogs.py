"""The lobby's dialogs: a new room, an invite code, quick play, a challenge."""

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
    Checkbox,
    Input,
    Label,
    Static,
)

from client_cli.tui.forms import (
    FormDialog,
    best_of,
    best_of_value,
    clock_field,
    clock_refusal,
    clock_terms,
    is_race,
    number_field,
    pace,
)
from client_cli.tui.keys import FieldInput
from client_cli.tui.levels import chosen_level, level_choices
from client_cli.tui.toggles import Tick
from protocol.head_to_head import Bots


class CreateRoomDialog(FormDialog[dict[str, Any]]):
    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("New room", "bold"), classes="title")
            with Horizontal(classes="field"):
                yield Label("Name")
                yield FieldInput(value="Squares", id="room-name", max_length=40, compact=True)
            yield from number_field(
                "Seats", "room-seats", "1 plays solo, up to 8", value="2", max_length=1
            )
            with Horizontal(classes="field tall"):
                yield Label("Pace")
                yield from pace("room-pace")
            yield from clock_field("room-clock")
            with Horizontal(classes="field"):
                yield Label("Best of")
                yield from best_of("room-deals")
            with Horizontal(classes="field"):
                yield Label("")
                yield Tick("private: join by invite code only", id="room-private", compact=True)
            with Horizontal(classes="field"):
                yield Label("")
                yield Tick(
                    "rated: 2 seats, moves both players' ratings", id="room-rated", compact=True
                )
            yield from self.compose_buttons("Create")

    def _value(self) -> dict[str, Any] | None:
        name = self.query_one("#room-name", Input).value.strip()
        seats_text = self.query_one("#room-seats", Input).value.strip() or "2"
        clock_text = self.query_one("#room-clock", Input).value.strip() or "30"
        if not name:
            self.refuse("the room needs a name")
            return None
        seats = int(seats_text)
        if not 1 <= seats <= 8:
            self.refuse("seats: 1 to 8")
            return None
        race = is_race(self, "room-pace")
        seconds = int(clock_text)
        if (why := clock_refusal(race, seconds)) is not None:
            self.refuse(why)
            return None
        rated = self.query_one("#room-rated", Checkbox).value
        if rated and seats != 2:
            self.refuse("a rated room has 2 seats")
            return None
        return {
            "name": name,
            "seats": seats,
            "pace": "race" if race else "lockstep",
            "visibility": "private"
            if self.query_one("#room-private", Checkbox).value
            else "public",
            "deals": best_of_value(self, "room-deals"),
            "rated": rated,
            **clock_terms(race, seconds),
        }


class InviteDialog(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("Join a private room", "bold"), classes="title")
            with Horizontal(classes="field"):
                yield Label("Code")
                yield FieldInput(
                    id="invite-code",
                    max_length=32,
                    compact=True,
                    placeholder="invite code (or a room id)",
                )
            with Horizontal(classes="buttons"):
                yield Button("Join", variant="primary", id="join", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    @on(Button.Pressed, "#join")
    @on(Input.Submitted)
    def join(self) -> None:
        code = self.query_one("#invite-code", Input).value.strip()
        self.dismiss(code or None)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class QuickPlayDialog(FormDialog[dict[str, Any]]):
    """Quick play: pace, best of, and whether to take a bot after a wait (and which)."""

    SUBMIT = "play"

    def __init__(self, bots: Bots | None = None) -> None:
        super().__init__()
        self.bots = bots  # the server's levels; None: it does not list them

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("Quick play", "bold"), classes="title")
            yield Static(
                Text(
                    "A rated head-to-head match against a waiting player of close rating; "
                    "the match starts as soon as you are paired.",
                    "dim",
                ),
                classes="hint-line",
            )
            with Horizontal(classes="field tall"):
                yield Label("Pace")
                yield from pace("qp-pace")
            with Horizontal(classes="field"):
                yield Label("Best of")
                yield from best_of("qp-deals")
            yield from number_field(
                "Bot", "qp-bot", "seconds, then a bot (casual); empty: never",
                max_length=3, placeholder="-",
            )  # fmt: skip
            if self.bots is not None:
                with Horizontal(classes="field tall"):
                    yield Label("Bot level")
                    yield from level_choices(self.bots.levels, "qp-level", self.bots.quickplay_bot)
            yield from self.compose_buttons("Play")

    def on_mount(self) -> None:
        self.query_one("#qp-pace").focus()  # the first field; Enter plays at once

    def _value(self) -> dict[str, Any] | None:
        value: dict[str, Any] = {
            "pace": "race" if is_race(self, "qp-pace") else "lockstep",
            "deals": best_of_value(self, "qp-deals"),
        }
        bot = self.query_one("#qp-bot", Input).value.strip()
        if bot:
            seconds = int(bot)
            if not 0 <= seconds <= 600:
                self.refuse("a bot after 0 to 600 seconds, or empty for never")
                return None
            value["bot_after_ms"] = seconds * 1000
            if self.bots is not None:
                value["bot_level"] = chosen_level(self, "qp-level", self.bots.levels)
        return value


class ChallengeDialog(FormDialog[dict[str, Any]]):
    """Challenge a player who is online, by name, on chosen terms."""

    SUBMIT = "send"

    def __init__(self, opponent: str = "") -> None:
        super().__init__()
        self.opponent = opponent

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("Challenge a player", "bold"), classes="title")
            with Horizontal(classes="field"):
                yield Label("Player")
                yield FieldInput(
                    value=self.opponent, id="ch-name", max_length=24, compact=True,
                    placeholder="the name of a player who is online",
                )  # fmt: skip
            with Horizontal(classes="field tall"):
                yield Label("Pace")
                yield from pace("ch-pace")
            with Horizontal(classes="field"):
                yield Label("Best of")
                yield from best_of("ch-deals")
            yield from clock_field("ch-clock")
            with Horizontal(classes="field"):
                yield Label("")
                yield Tick("rated", value=True, id="ch-rated", compact=True)
            yield from self.compose_buttons("Challenge")

    def _value(self) -> dict[str, Any] | None:
        name = self.query_one("#ch-name", Input).value.strip()
        if not name:
            self.refuse("whom? type a player's name")
            return None
        race = is_race(self, "ch-pace")
        seconds = int(self.query_one("#ch-clock", Input).value.strip() or "30")
        if (why := clock_refusal(race, seconds)) is not None:
            self.refuse(why)
            return None
        return {
            "opponent": name,
            "pace": "race" if race else "lockstep",
            "deals": best_of_value(self, "ch-deals"),
            "rated": self.query_one("#ch-rated", Checkbox).value,
            **clock_terms(race, seconds),
        }
