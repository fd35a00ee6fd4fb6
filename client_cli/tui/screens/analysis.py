"""One board of a finished match, analysed after the fact."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import (
    Footer,
    Static,
)

from client_cli import analysis as ana
from client_cli.tui.screens.base import BaseScreen
from protocol.deals import BoardResult


class AnalysisScreen(BaseScreen):
    TITLE = "analysis"
    DEFAULT_CSS = "#analysis-body { padding: 0 1; }"
    HELP = """\
One board of a finished match, analysed after the fact.

Left, the board as played and its score; right, the hindsight best board:
the highest-scoring board reachable under the touch rule, in the order the
cards came, knowing all 17 cards. "proved optimal" when the search could
prove it, else the best found within the search's budget.

Below, every move: the card, the cell played, the cell the expert bot would
have chosen, and the expected points the move lost by the expert's
estimates (from what you knew then, not from the future). The costliest
moves are marked.

↑ ↓ PgUp PgDn   scroll
Escape          back"""
    BINDINGS: ClassVar[list[BindingType]] = [
        *BaseScreen.BINDINGS,
        Binding("escape", "app.pop_screen", "Back"),
    ]

    def __init__(self, match_id: str, starter: str, board: BoardResult) -> None:
        super().__init__()
        self.match_id = match_id
        self.starter = starter
        self.board = board
        self.analysis: ana.BoardAnalysis | None = None
        self.answered = False

    def compose(self) -> ComposeResult:
        yield from self.compose_bar()
        yield Static("", id="analysis-head", classes="heading")
        yield VerticalScroll(Static("", id="analysis-body"), id="analysis-scroll")
        yield Footer()

    def on_mount(self) -> None:
        head = Text(f"Match {self.match_id}: analysis of the board of {self.board.player.name}")
        head.stylize("bold")
        self.query_one("#analysis-head", Static).update(head)
        self.query_one("#analysis-scroll").focus()
        # An analysis already made (a replay's second 'a') is handed back at once,
        # before this screen counts as mounted: the body is drawn after asking.
        self.crib.analyse(self.match_id, self.starter, self.board, self._analysed)
        self._draw()

    def _analysed(self, found: ana.BoardAnalysis | None) -> None:
        self.analysis, self.answered = found, True
        if self.is_mounted:
            self._draw()

    def _draw(self) -> None:
        body = self.query_one("#analysis-body", Static)
        if not self.answered:
            body.update(Text("analysing… (a few seconds: the expert weighs every move)", "italic"))
        elif self.analysis is None:
            body.update(Text("✖ this board cannot be analysed", "bold red"))
        else:
            body.update(Text("\n").join(ana.analysis_lines(self.analysis)))
