"""Choosing a computer opponent in the full-screen client: the server's levels, each
with its rating (client_cli.levels), as a list of choices.

:func:`level_choices` is the list inside a form (quick play's bot, a
tournament's bots); :class:`LevelDialog` asks for one level on its own (a game
against a bot, a bot for one's room). Nothing here talks to the server: the
levels come from the model (the server's ``bots`` message), the choice goes back
to the screen that asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Button, RadioSet, Static

from client_cli.levels import find, label
from client_cli.tui.forms import FormDialog
from client_cli.tui.toggles import Choice, Choices
from protocol.head_to_head import BotLevel


def level_choices(
    levels: Sequence[BotLevel], id: str, default: str, *, describe: bool = False
) -> ComposeResult:
    """One radio button a level, weakest first, its rating beside its name."""
    chosen = find(levels, default)
    with Choices(id=id, compact=True):
        for level in levels:
            text = label(level) + (f": {level.description}" if describe else "")
            yield Choice(text, value=level is chosen, compact=True, id=f"{id}-{level.name}")


def chosen_level(screen: Screen[Any], id: str, levels: Sequence[BotLevel]) -> str:
    index = screen.query_one(f"#{id}", RadioSet).pressed_index
    return levels[max(0, index)].name


class LevelDialog(FormDialog[str]):
    """Pick one level of the server's bots; its rating is shown beside each."""

    SUBMIT = "choose"

    def __init__(self, title: str, levels: Sequence[BotLevel], default: str) -> None:
        super().__init__()
        self.title_text = title
        self.levels = list(levels)
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(self.title_text, "bold"), classes="title")
            yield Static(
                Text(
                    "Ratings are measured by the levels playing each other on the same deals.",
                    "dim",
                )
            )
            # One line a level (name, rating); the chosen one described in full below,
            # wrapped, so that no description is cut at 80 columns.
            yield from level_choices(self.levels, "level", self.default)
            yield Static(self._about(self.default), id="level-about")
            yield from self.compose_buttons("Play")

    def on_mount(self) -> None:
        self.query_one("#choose", Button).focus()  # Enter plays the default at once

    def _about(self, name: str) -> Text:
        level = find(self.levels, name)
        return Text(f"{level.name}: {level.description}" if level else "", "dim")

    @on(RadioSet.Changed, "#level")
    def described(self) -> None:
        chosen = chosen_level(self, "level", self.levels)
        self.query_one("#level-about", Static).update(self._about(chosen))

    def _value(self) -> str | None:
        chosen = chosen_level(self, "level", self.levels)
        default = find(self.levels, self.default)
        # The default as it was named (``expert``): its bot is called so, as quick play's.
        return self.default if default is not None and default.name == chosen else chosen
