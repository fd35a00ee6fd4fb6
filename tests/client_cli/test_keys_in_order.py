"""Keys that arrive in one burst act in the order they were typed: End, Backspace,
then 1 leaves "1" in a field that held "2" (tmux's ``send-keys End BSpace 1``).
Textual types a printable key where it lands but runs a field's own bindings only
once the key has bubbled up to the app, so a plain Input typed the 1 first (over
the text selected on focus) and then let End and Backspace delete it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Input

from client_cli.tui.keys import FieldInput, LeavingInput


class OneField(App[None]):
    def __init__(self, make: Callable[[], Input]) -> None:
        super().__init__()
        self.make = make

    def compose(self) -> ComposeResult:
        yield self.make()


BURSTS = [
    (["end", "backspace", "1"], "1"),
    (["end", "backspace", "backspace", "6"], "6"),
    (["home", "delete", "3"], "3"),
    (["end", "left", "backspace", "9"], "92"),
]


async def burst(make: Callable[[], Input], keys: list[str]) -> str:
    app = OneField(make)
    async with app.run_test() as pilot:
        field = app.query_one(Input)
        field.focus()
        await pilot.pause()
        for key in keys:  # all at once, as a terminal's read delivers them
            character = key if len(key) == 1 else None
            app.post_message(events.Key(key, character))
        await pilot.pause()
        await pilot.pause()
        return field.value


@pytest.mark.parametrize(("keys", "expected"), BURSTS)
async def test_a_burst_of_keys_acts_in_order(keys: list[str], expected: str) -> None:
    start = "2" if expected != "92" else "12"
    made = await burst(lambda: FieldInput(value=start, type="integer", max_length=2), keys)
    assert made == expected
    assert await burst(lambda: LeavingInput(value=start), keys) == expected


async def test_textual_s_own_input_reorders_them() -> None:
    """What the client works around (if Textual fixes it, FieldInput can go)."""
    plain = await burst(lambda: Input(value="2", type="integer", max_length=2), BURSTS[0][0])
    assert plain != "1"
