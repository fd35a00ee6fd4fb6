"""The tournament dialogs: a private one's invite code, server bots, a new tournament."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import (
    Button,
    Checkbox,
    Input,
    Label,
    RadioSet,
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
from client_cli.tui.toggles import Choice, Choices, Tick
from protocol.head_to_head import Bots
from protocol.tournaments import FormatOffer


class TournamentCodeDialog(ModalScreen[tuple[str, bool] | None]):
    """A private tournament's invite code: register, or just watch."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("A private tournament", "bold"), classes="title")
            with Horizontal(classes="field"):
                yield Label("Code")
                yield FieldInput(
                    id="tournament-code", max_length=32, compact=True, placeholder="its invite code"
                )
            with Horizontal(classes="field"):
                yield Label("")
                yield Tick("only watch (do not register)", id="code-watch", compact=True)
            with Horizontal(classes="buttons"):
                yield Button("Go", variant="primary", id="go", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    @on(Button.Pressed, "#go")
    @on(Input.Submitted)
    def go(self) -> None:
        code = self.query_one("#tournament-code", Input).value.strip()
        watch = self.query_one("#code-watch", Checkbox).value
        self.dismiss((code, watch) if code else None)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class AddBotsDialog(FormDialog[tuple[str, int]]):
    """The host enters server bots: a level (with its rating) and how many."""

    SUBMIT = "add"

    def __init__(self, bots: Bots | None = None) -> None:
        super().__init__()
        self.bots = bots  # None: a server that does not list levels, its three strategies

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("Add server bots", "bold"), classes="title")
            yield from number_field(
                "Bots", "bots-count", "how many (1 to 256)", value="1", max_length=3
            )
            with Horizontal(classes="field tall"):
                yield Label("Plays")
                if self.bots is not None:
                    yield from level_choices(self.bots.levels, "bots-level", "greedy")
                else:
                    with Choices(id="bots-strategy", compact=True, classes="across"):
                        yield Choice("greedy", value=True, compact=True, id="bots-greedy")
                        yield Choice("expert", compact=True, id="bots-expert")
                        yield Choice("random", compact=True, id="bots-random")
            yield from self.compose_buttons("Add")

    def _value(self) -> tuple[str, int] | None:
        count = int(self.query_one("#bots-count", Input).value.strip() or "1")
        if not 1 <= count <= 256:
            self.refuse("1 to 256 bots")
            return None
        if self.bots is not None:
            return chosen_level(self, "bots-level", self.bots.levels), count
        index = max(0, self.query_one("#bots-strategy", RadioSet).pressed_index)
        return ("greedy", "expert", "random")[index], count


class CreateTournamentDialog(FormDialog[dict[str, Any]]):
    """Host a tournament: every setting of ``create_tournament`` a person chooses, of
    the formats the server offers (``welcome.formats``), as it words them."""

    def __init__(self, offers: Sequence[FormatOffer] = ()) -> None:
        super().__init__()
        self.offers = list(offers)  # none: a server too old to say; its default format

    def compose(self) -> ComposeResult:
        counts = "/".join(dict.fromkeys(o.rounds for o in self.offers if o.rounds))
        with VerticalScroll(classes="dialog", can_focus=False):
            yield Static(Text("New tournament", "bold"), classes="title")
            with Horizontal(classes="field"):
                yield Label("Name")
                yield FieldInput(value="Squares open", id="tn-name", max_length=40, compact=True)
            with Horizontal(classes="field"):
                yield Label("Format")
                if not self.offers:
                    yield Static(Text("the server's own", "dim"), classes="hint")
                with Choices(id="tn-format", compact=True, classes="across"):
                    for i, offer in enumerate(self.offers):
                        yield Choice(
                            offer.title, value=i == 0, compact=True, id=f"tn-format-{offer.format}"
                        )
            yield from number_field(
                "Rounds", "tn-rounds", f"{counts or 'rounds'}, as the format counts them",
                value="5", max_length=2,
            )  # fmt: skip
            with Horizontal(classes="field"):
                yield Label("Best of")
                yield from best_of("tn-best-of")
            with Horizontal(classes="field tall"):
                yield Label("Pace")
                yield from pace("tn-pace")
            yield from clock_field("tn-clock")
            yield from number_field(
                "Round", "tn-round-clock", "seconds per round; empty: deals' clocks + 60",
                max_length=5, placeholder="-",
            )  # fmt: skip
            yield from number_field(
                "Start", "tn-start", "in N seconds by itself; empty: you start it (s)",
                max_length=6, placeholder="-",
            )  # fmt: skip
            yield from number_field(
                "Players", "tn-max", "at most (2 to 512)", value="64", max_length=3
            )
            with Horizontal(classes="field"):
                yield Label("")
                yield Tick(
                    "private: unlisted, joined by invite code", id="tn-private", compact=True
                )
            with Horizontal(classes="field"):
                yield Label("")
                yield Tick("bots may enter", value=True, id="tn-bots", compact=True)
            yield from self.compose_buttons("Create")

    def on_mount(self) -> None:
        self.query_one("#tn-name", Input).focus()

    def _int(self, id: str, default: int | None) -> int | None:
        text = self.query_one(f"#{id}", Input).value.strip()
        return int(text) if text else default

    def _value(self) -> dict[str, Any] | None:
        name = self.query_one("#tn-name", Input).value.strip()
        if not name:
            self.refuse("the tournament needs a name")
            return None
        chosen = max(0, self.query_one("#tn-format", RadioSet).pressed_index)
        offer = self.offers[chosen] if self.offers else None
        rounds = self._int("tn-rounds", 5) or 0
        if not 1 <= rounds <= 20:
            self.refuse("rounds: 1 to 20")
            return None
        race = is_race(self, "tn-pace")
        seconds = self._int("tn-clock", 30) or 0
        if (why := clock_refusal(race, seconds)) is not None:
            self.refuse(why)
            return None
        players = self._int("tn-max", 64) or 0
        if not 2 <= players <= 512:
            self.refuse("players: 2 to 512")
            return None
        round_s = self._int("tn-round-clock", None)
        if round_s is not None and not 10 <= round_s <= 4 * 3600:
            self.refuse("a round clock is 10 to 14400 seconds (or empty)")
            return None
        start = self._int("tn-start", None)
        if start is not None and not 0 <= start <= 7 * 24 * 3600:
            self.refuse("start in 0 to 604800 seconds: 7 days (or empty: you start it)")
            return None
        best = best_of_value(self, "tn-best-of")
        if offer is not None and best not in offer.best_of:  # as the server offers it
            deals = " or ".join(map(str, offer.best_of))
            self.refuse(f"a {offer.title}'s tables play {deals} deal{'s' if deals != '1' else ''}")
            return None
        value: dict[str, Any] = {
            "name": name,
            "rounds": rounds,
            "best_of": best,
            "pace": "race" if race else "lockstep",
            "max_players": players,
            "visibility": "private" if self.query_one("#tn-private", Checkbox).value else "public",
            "bots": self.query_one("#tn-bots", Checkbox).value,
            **clock_terms(race, seconds),
        }
        if offer is not None:
            value["format"] = offer.format
        if round_s is not None:
            value["round_clock_ms"] = round_s * 1000
        if start is not None:
            value["start_in_ms"] = start * 1000
        return value
