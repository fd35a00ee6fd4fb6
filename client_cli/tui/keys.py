"""Text fields that keep keys in order and leave some keys to the screen: the one
place the client bends how Textual routes a key.

Textual types a printable key where it lands, in the focused field, but runs a
field's own bindings (Backspace, Delete, End, Home, the arrows, Enter) only once
the key has bubbled up to the app. In a burst of keys (``send-keys End BSpace 1``
in tmux, or fast typing over a slow link) the ``1`` was typed before End and
Backspace ran, and Backspace then deleted it: the field was left empty.
:class:`FieldInput` runs its own bindings as its keys arrive, in their order.

Textual gives a focused :class:`~textual.widgets.Input` every printable key, and
hides the screen's bindings for those keys, priority ones included, behind the
widget's public ``check_consume_key``. :class:`LeavingInput` answers "not mine"
for the characters it is told to leave, so a screen's priority binding for them
(``?`` for the help, where ``?`` cannot be typed anyway) runs instead of the
field. With a Textual that predates ``check_consume_key``, the bindings were not
hidden and the priority binding runs all the same.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.widgets import Input


def _actions_by_key(bindings: list[BindingType]) -> dict[str, str]:
    """Each key of ``bindings`` (a binding may name several, comma-separated) and
    its action."""
    found: dict[str, str] = {}
    for binding in bindings:
        if isinstance(binding, Binding):
            for key in binding.key.split(","):
                found[key.strip()] = binding.action
    return found


class FieldInput(Input):
    """An :class:`Input` whose own editing keys act in the order they were typed."""

    OWN_KEYS: ClassVar[dict[str, str]] = _actions_by_key(Input.BINDINGS)

    async def on_key(self, event: events.Key) -> None:
        # Handled here, before Input's own handler: the default handling is
        # prevented and the key does not bubble up to run the binding again.
        action = self.OWN_KEYS.get(event.key)
        if action is not None:
            event.stop()
            event.prevent_default()
            await self.run_action(action)


class LeavingInput(FieldInput):
    """An :class:`Input` that leaves the characters of ``leave`` to the screen's
    (priority) bindings."""

    def __init__(self, *args: Any, leave: str = "?", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.leave = frozenset(leave)

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character is not None and character in self.leave:
            return False
        return bool(super().check_consume_key(key, character))


# Tab and Shift+Tab move the focus as soon as the app reads them, before it hands
# the next key of the same burst to the field that has the focus: as the screen's
# own (not priority) bindings, they ran only once the key had bubbled back up from
# the field, and the keys typed after a Tab landed in the field before it
# (tests/client_cli/test_dialog_bursts.py).
MOVE_IN_ORDER: tuple[Binding, ...] = (
    Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
    Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True),
)
