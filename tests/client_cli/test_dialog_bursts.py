"""No key is ever lost in a dialog: every field of every dialog typed in one burst (the
keys of all its fields and the Tabs between them at once, as a terminal's read
delivers a fast typist's or a script's), and again pasted; every field holds what
was typed.

In the suite each dialog is opened 3 times. The trial of issue 29, each 20 times
while two CPU-bound processes run beside the client (about 2.5 minutes, so not in
every run of the suite)::

    BURST_TRIAL=1 python -m pytest tests/client_cli/test_dialog_bursts.py
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from textual import events
from textual.screen import ModalScreen
from textual.widgets import Input

from tests.client_cli.test_fits_80x24 import DIALOGS, Bare

TRIAL = os.environ.get("BURST_TRIAL") == "1"
pytestmark = [pytest.mark.slow, pytest.mark.timeout(300 if TRIAL else 60)]
ROUNDS = 20 if TRIAL else 3
HOG = "import time\nend = time.monotonic() + 60\nwhile time.monotonic() < end: pass"


@contextmanager
def two_cpu_hogs() -> Iterator[None]:
    """In the trial, two busy processes for the test's duration (each gives up after
    60 s anyway)."""
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(2 if TRIAL else 0)]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait(10)


def sample(field: Input, n: int) -> str:
    """Something the field takes, different each round."""
    text = f"{n % 10}{(n * 7) % 10}" if field.type == "integer" else f"Zed{n}x"
    return text[: field.max_length] if field.max_length else text


def clearing(field: Input) -> list[events.Event]:
    """End, then a Backspace for each character the field opened with."""
    return [events.Key(k, None) for k in ["end", *["backspace"] * len(field.value)]]


async def typed_in_one_burst(
    make: Callable[[], ModalScreen[Any]], paste: bool
) -> list[tuple[int, dict[str, str], dict[str, str]]]:
    """Open the dialog ROUNDS times; each time every field typed (or pasted) in one
    burst, Tab by Tab from the first; what each round meant and what the fields hold."""
    app = Bare()
    wrong = []
    async with app.run_test(size=(80, 24)) as pilot:
        for n in range(ROUNDS):
            app.push_screen(make())
            await pilot.pause()
            meant: dict[str, str] = {}
            burst: list[events.Event] = []
            for widget in app.screen.focus_chain:
                if isinstance(widget, Input) and widget.id:
                    meant[widget.id] = text = sample(widget, n)
                    burst += clearing(widget)
                    if paste:
                        burst.append(events.Paste(text))
                    else:
                        burst += [events.Key(c, c) for c in text]
                burst.append(events.Key("tab", None))
            for event in burst:  # all at once: nothing is awaited between them
                app.post_message(event)
            for _ in range(3):
                await pilot.pause()
            held = {i.id: i.value for i in app.screen.query(Input) if i.id in meant}
            if held != meant:
                wrong.append((n, meant, held))
            app.pop_screen()
            await pilot.pause()
    return wrong


@pytest.mark.parametrize("paste", [False, True], ids=["typed", "pasted"])
@pytest.mark.parametrize("name", list(DIALOGS))
async def test_every_field_holds_what_a_burst_typed(name: str, paste: bool) -> None:
    with two_cpu_hogs():
        wrong = await typed_in_one_burst(DIALOGS[name], paste)
    assert wrong == [], f"{name}: {len(wrong)} of {ROUNDS} bursts lost keys, e.g. {wrong[:2]}"
