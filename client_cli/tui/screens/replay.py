"""A finished match, placement by placement, on every board at once."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import ScrollableContainer
from textual.widgets import (
    Footer,
    Static,
)

from client_cli import analysis as ana
from client_cli import history as hist
from client_cli.render import card_text
from client_cli.safe import visible
from client_cli.tui.screens.analysis import AnalysisScreen
from client_cli.tui.screens.base import BOARD_SCROLL, BaseScreen
from client_cli.tui.widgets import (
    ResultBoard,
)


class ReplayScreen(BaseScreen):
    TITLE = "replay"
    HELP = """\
A finished match, placement by placement, on every board at once.
The card just placed is shown reversed.

→ / n     next placement
← / b     previous placement
Home/End  the start / the end (starter and scores)
↑ ↓ PgUp PgDn [ ]   scroll the boards
Space     play / pause
a         analyse your board: at each placement, the expert bot's cell
          and the expected points the move lost; the full analysis after
Escape    back"""
    BINDINGS: ClassVar[list[BindingType]] = [
        *BaseScreen.BINDINGS,
        Binding("right", "step(1)", "Next"),
        Binding("n", "step(1)", "Next", show=False),
        Binding("left", "step(-1)", "Previous"),
        Binding("b", "step(-1)", "Previous", show=False),
        Binding("home", "jump(0)", "Start"),
        Binding("end", "jump(17)", "End"),
        Binding("space", "play", "Play/pause"),
        Binding("a", "analyse", "Analyse"),
        Binding("escape", "app.pop_screen", "Back"),
        *BOARD_SCROLL,
    ]

    def __init__(self, replay: hist.Replay) -> None:
        super().__init__()
        self.replay = replay
        self.analysis: ana.BoardAnalysis | None = None
        self.analysing = False
        self.verification = replay.verification()
        self.step = 0
        self.playing = False

    def compose(self) -> ComposeResult:
        yield from self.compose_bar()
        yield Static("", id="replay-head", classes="heading")
        with ScrollableContainer(id="replay-boards", classes="boards", can_focus=False):
            for _ in self.replay.boards:
                yield ResultBoard()
        yield Footer()

    def on_mount(self) -> None:
        self.set_interval(0.7, self._auto)
        self.draw()

    def draw(self) -> None:
        replay, step = self.replay, self.step
        head = Text()
        head.append(f"Match {replay.match_id}  ", "bold")
        if step == 0:
            head.append("before the first card", "italic")
        elif step <= 16:
            head.append(f"placement {step} of 16", "bold yellow")
            card = next((p.card for p in replay.boards[0].placements if p.turn == step), None)
            if card:
                head.append("   card ")
                head.append_text(card_text(card, width=0))
        else:
            head.append("the starter ", "bold")
            head.append_text(card_text(replay.starter, width=0))
            head.append(" and the scores", "bold")
        head.append("   (←/→ step, Space play, a analyse)", "dim")
        head.append_text(self._analysis_text(step))
        if step > 16:  # with the scores: why, where the score did not decide (as live)
            for note in replay.ranking:
                head.append("\n" + visible(note.text), "bold yellow")
        if self.verification is None and replay.embargoed:
            head.append("\n" + replay.EMBARGO_TEXT, "italic")
        if self.verification is not None:
            head.append("\n")
            if self.verification.ok:
                head.append("✔ deal verified from the stored seed", "green")
            else:
                head.append(f"✖ {self.verification.summary}", "bold red")
        self.query_one("#replay-head", Static).update(head)
        me = self.model.me
        for view, board in zip(self.query(ResultBoard), replay.boards, strict=False):
            view.show(
                board,
                me is not None and board.player.id == me.id,
                upto=min(step, 16),
                reveal=step > 16,
            )

    def show(self) -> None:
        super().show()
        if self.is_mounted:
            self.draw()

    def action_step(self, delta: int) -> None:
        self.playing = False
        self.step = max(0, min(17, self.step + delta))
        self.draw()

    def action_jump(self, step: int) -> None:
        self.playing = False
        self.step = step
        self.draw()

    def _analysis_text(self, step: int) -> Text:
        a = self.analysis
        if a is None:
            return Text("\nanalysing… (a few seconds)", "italic") if self.analysing else Text()
        out = Text(f"\nanalysis of {a.board.player}'s board: ", "bold")
        out.append(f"hindsight best {a.hindsight.score}", "green")
        out.append(f" ({'proved optimal' if a.hindsight.optimal else 'best found'})", "dim")
        out.append(f", expected loss {a.total_loss:.1f} in all", "")
        if 1 <= step <= 16:
            out.append("\nthis move: ")
            out.append_text(ana.step_text(a, step))
        return out

    def action_analyse(self) -> None:
        board = ana.board_of(self.replay.boards, self.model.me.id if self.model.me else None)
        if board is None or self.analysing:
            return
        if self.analysis is not None:
            self.app.push_screen(AnalysisScreen(self.replay.match_id, self.replay.starter, board))
            return
        self.analysing = True
        self.draw()
        self.crib.analyse(self.replay.match_id, self.replay.starter, board, self._analysed)

    def _analysed(self, found: ana.BoardAnalysis | None) -> None:
        self.analysing = False
        self.analysis = found
        if self.is_mounted:
            self.draw()

    def action_play(self) -> None:
        if self.step >= 17:
            self.step = 0
        self.playing = not self.playing

    def _auto(self) -> None:
        if self.playing:
            self.step = min(17, self.step + 1)
            self.playing = self.step < 17
            self.draw()
