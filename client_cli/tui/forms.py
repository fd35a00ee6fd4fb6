"""The pieces the client's form dialogs are made of: a field with a number and
its hint, the clock, pace and best-of choices, and the dialog that checks its
fields when Enter is pressed.

Every dialog lays its fields out the same way (a label, the input, a dim hint,
styled by the ``.dialog .field`` rules of ``cribsquares.tcss``) and says what
is wrong on its own error line; building them here keeps them alike. Nothing
here talks to the server: a dialog gives its values back to the screen that
opened it.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Label, RadioSet, Static

from client_cli.tui.keys import MOVE_IN_ORDER, FieldInput
from client_cli.tui.toggles import Choice, Choices

T = TypeVar("T")

CLOCK_HINT = "seconds per card (lockstep) or per deal (race)"


def number_field(
    label: str, id: str, hint: str, *, value: str = "", max_length: int, placeholder: str = ""
) -> ComposeResult:
    """A labelled short whole-number input with a dim hint after it, on one line."""
    with Horizontal(classes="field"):
        yield Label(label)
        yield FieldInput(
            value=value, id=id, type="integer", max_length=max_length, compact=True,
            classes="short", placeholder=placeholder,
        )  # fmt: skip
        yield Static(Text(hint, "dim"), classes="hint")


def clock_field(id: str) -> ComposeResult:
    """The clock in seconds, 30 by default: per card in lockstep, per deal in a race."""
    yield from number_field("Clock", id, CLOCK_HINT, value="30", max_length=4)


def clock_refusal(race: bool, seconds: int) -> str | None:
    """Why the server would refuse this clock, or None when it is in range."""
    if race and not 10 <= seconds <= 3600:
        return "a race clock is 10 to 3600 seconds"
    if not race and not 1 <= seconds <= 600:
        return "a card clock is 1 to 600 seconds"
    return None


def clock_terms(race: bool, seconds: int) -> dict[str, int]:
    """The clock as the protocol has it: a race times the deal, lockstep each card."""
    return {"deal_clock_ms" if race else "card_clock_ms": seconds * 1000}


def best_of(id: str) -> ComposeResult:
    """Best of 1, 3 or 5 deals, across one line."""
    with Choices(id=id, compact=True, classes="across"):
        yield Choice("1 deal", value=True, compact=True, id=f"{id}-1")
        yield Choice("best of 3", compact=True, id=f"{id}-3")
        yield Choice("best of 5", compact=True, id=f"{id}-5")


def best_of_value(screen: Screen[Any], id: str) -> int:
    return (1, 3, 5)[max(0, screen.query_one(f"#{id}", RadioSet).pressed_index)]


def pace(
    id: str,
    lockstep: str = "lockstep: everyone places each card together",
    race: str = "race: your own speed, one clock for the deal",
) -> ComposeResult:
    with Choices(id=id, compact=True):
        yield Choice(lockstep, value=True, compact=True, id=f"{id}-lockstep")
        yield Choice(race, compact=True, id=f"{id}-race")


def is_race(screen: Screen[Any], id: str) -> bool:
    return screen.query_one(f"#{id}", RadioSet).pressed_index == 1


class FormDialog(ModalScreen[T | None]):
    """A dialog of fields. Enter in a field (a set of choices too), or the button whose
    id is ``SUBMIT``,
    closes it with :meth:`_value`'s result, unless that is None: then the error
    line says why. Escape or the ``#cancel`` button close it with None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        *MOVE_IN_ORDER,
    ]
    SUBMIT: ClassVar[str] = "create"

    def _value(self) -> T | None:
        raise NotImplementedError

    def compose_buttons(self, label: str) -> ComposeResult:
        """The error line, then the submit and cancel buttons: kept at the foot of the
        dialog (docked), always on screen, the fields scrolling above them where the
        terminal is too short for all of them (80x24)."""
        with Vertical(classes="dialog-foot"):
            yield Static("", id="dialog-error")
            with Horizontal(classes="buttons"):
                yield Button(label, variant="primary", id=self.SUBMIT, compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def refuse(self, reason: str) -> None:
        self.query_one("#dialog-error", Static).update(Text(reason, "bold red"))

    @on(Input.Submitted)
    @on(Choices.Submitted)
    def submit(self) -> None:
        value = self._value()
        if value is not None:
            self.dismiss(value)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        if event.button.id == self.SUBMIT:
            self.submit()
        elif event.button.id == "cancel":
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
