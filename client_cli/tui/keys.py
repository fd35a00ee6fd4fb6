"""Text fields that leave some keys to the screen: the one place the client bends
how Textual routes a key.

Textual gives a focused :class:`~textual.widgets.Input` every printable key, and
hides the screen's bindings for those keys, priority ones included, behind the
widget's public ``check_consume_key``. :class:`LeavingInput` answers "not mine"
for the characters it is told to leave, so a screen's priority binding for them
(``?`` for the help, where ``?`` cannot be typed anyway) runs instead of the
field. With a Textual that predates ``check_consume_key``, the bindings were not
hidden and the priority binding runs all the same.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Input


class LeavingInput(Input):
    """An :class:`Input` that leaves the characters of ``leave`` to the screen's
    (priority) bindings."""

    def __init__(self, *args: Any, leave: str = "?", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.leave = frozenset(leave)

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character is not None and character in self.leave:
            return False
        return bool(super().check_consume_key(key, character))
