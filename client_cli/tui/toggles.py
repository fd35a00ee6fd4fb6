"""Radio buttons and checkboxes whose state reads without colour.

Textual draws a radio button ``▐●▌`` and a checkbox ``▐X▌`` whether they are on
or off, and tells the two apart by colour alone: on a monochrome terminal, to a
colour-blind player, or in a screen reader's text, every choice looked taken.
Here the mark itself says it: ``◉`` / ``○`` for a radio button, ``✓`` / blank
for a checkbox (Textual reads the mark from the class's ``BUTTON_INNER``).
"""

from __future__ import annotations

from textual.widgets import Checkbox, RadioButton


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
