"""Radio buttons and checkboxes whose state reads without colour.

Textual draws a radio button ``▐●▌`` and a checkbox ``▐X▌`` whether they are on
or off, and tells the two apart by colour alone: on a monochrome terminal, to a
colour-blind player, or in a screen reader's text, every choice looked taken.
Here the mark itself says it: ``◉`` / ``○`` for a radio button, ``✓`` / blank
for a checkbox (Textual reads the mark from the class's ``BUTTON_INNER``).

In a form, a set of choices takes Enter as a field does (:class:`Choices`).
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Checkbox, RadioButton, RadioSet


class Choice(RadioButton):
    """A radio button: ◉ chosen, ○ not."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]
        return "◉" if self.value else "○"


class Tick(Checkbox):
    """A checkbox: ✓ ticked, blank not."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]
        return "✓" if self.value else " "


class Choices(RadioSet):
    """A set of radio buttons in a form: the arrows move, space chooses, and Enter
    chooses the highlighted one and submits the form (:class:`Choices.Submitted`), as
    Enter in a text field does: a dialog opened with its first field focused still
    plays or creates at once with Enter."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_button", "Choose", show=False),
        Binding("enter", "submit", "Submit", show=False),
    ]

    class Submitted(Message):
        """Enter was pressed in a set of choices."""

    def action_submit(self) -> None:
        self.action_toggle_button()
        self.post_message(self.Submitted())
