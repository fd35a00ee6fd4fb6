"""The match: your grid, the card to place and its clock, everyone's progress, the log."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Key
from textual.widgets import (
    Footer,
    Static,
)

from client_cli import tournaments as tt
from client_cli.model.text import deal_heading
from client_cli.tui.screens.base import BaseScreen
from client_cli.tui.screens.confirm import ConfirmDialog
from client_cli.tui.widgets import (
    BoardView,
    CardPanel,
    EventLog,
    ProgressPanel,
    cell_label,
)
from engine import parse_cell
from protocol.fields import Pace

CONFIRM_S = 1.5  # how long after a typed cell name an Enter only confirms it


class GameScreen(BaseScreen):
    TITLE = "match"
    HELP = """\
Place each card on your 4x4 grid. After the first, a card must go in an
empty cell touching a filled one (across, down or diagonally); legal cells
are outlined in green and show their names.

← ↑ → ↓       move the cursor
Enter/Space   place the card under the cursor
a-d then 1-4  place by cell name (b3 = column b, row 3); an Enter right
              after it only confirms it
mouse         click a cell to place the card there
Escape        clear a half-typed cell name; with nothing typed, leave the
              match (asks first: leaving forfeits it, as resigning)
?             this help

When the clock runs out the server places the card for you.
Rows and columns score as cribbage hands with the starter."""
    BINDINGS: ClassVar[list[BindingType]] = [
        *BaseScreen.BINDINGS,
        Binding("up", "move(-1, 0)", "↑", show=False),
        Binding("down", "move(1, 0)", "↓", show=False),
        Binding("left", "move(0, -1)", "←", show=False),
        Binding("right", "move(0, 1)", "→", show=False),
        Binding("enter", "place", "Place"),
        Binding("space", "place", "Place", show=False),
        Binding("escape", "clear", "Leave", key_display="Esc"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.typed = ""
        # When a typed cell name last placed a card: an Enter or Space just after it
        # confirms that placement (as after a command) instead of placing the next card.
        self.typed_placed_at: float | None = None
        self.match_id: str | None = None
        # The card the cursor was last put on a legal cell for: a new card's first
        # redraw moves it there if it is not; later redraws (a clock, a neighbour's
        # progress) leave it where the player is moving it, illegal cells included.
        self.snapped: tuple[str, int | None] | None = None
        self.note = ""

    def compose(self) -> ComposeResult:
        yield from self.compose_bar()
        with Horizontal(id="game"):
            with Vertical(id="board-pane"):
                yield BoardView(id="board")
                yield Static("", id="game-note", classes="note")
            with Vertical(id="side"):
                yield Static("", id="game-tournament", classes="heading")
                yield Static("", id="game-series", classes="heading")
                yield CardPanel(id="card")
                yield Static(Text("Players", "bold"), classes="heading")
                yield ProgressPanel(id="progress")
                yield EventLog(id="game-log")
        yield Footer()

    def on_mount(self) -> None:
        self.set_interval(0.25, self.tick)
        self.query_one("#game-log", EventLog).show(self.crib.match_log())

    def show(self) -> None:
        super().show()
        match = self.model.match
        board = self.query_one("#board", BoardView)
        if match is None:
            return
        if match.match_id != self.match_id:
            self.match_id, self.typed, self.note = match.match_id, "", ""
            board.cursor = 5
        legal = [parse_cell(c) for c in match.legal]
        last = None
        if match.placements:
            last = parse_cell(max(match.placements, key=lambda p: p.turn).cell)
        board.show_cursor = not self.model.spectating()  # a spectator has no board here
        board.set_board(match.cells, legal, last)
        card = (match.match_id, match.turn)
        if legal and self.snapped != card:
            self.snapped = card
            if board.cursor not in legal and match.placed_count > 0:
                board.cursor = min(
                    legal,
                    key=lambda i: abs(i // 4 - board.cursor // 4) + abs(i % 4 - board.cursor % 4),
                )
        self.query_one("#progress", ProgressPanel).show(self.model.progress_rows(self.crib.now()))
        self._show_tournament()
        self._show_series()
        self.tick()
        self._show_note()
        self.refresh_bindings()  # a spectator's footer: no Place

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("place", "move"):  # a spectator has no board to place on
            return not self.model.spectating()
        return True

    def _show_tournament(self) -> None:
        """At a tournament's table, which tournament, round and table it is."""
        line = self.query_one("#game-tournament", Static)
        room = self.model.room
        line.display = room is not None and room.origin == "tournament"
        if not line.display:
            return
        view = self.model.tournament_for_room()
        me = self.model.me.id if self.model.me else None
        text = (
            "a tournament's table"
            if view is None
            else tt.table_heading(view.info, view.table_of(me))
        )
        line.update(Text(text, "bold"))

    def _show_series(self) -> None:
        """In a series, which deal this is and the score before it."""
        line = self.query_one("#game-series", Static)
        match = self.model.match
        text = ""
        if match is not None:
            text = deal_heading(match.deal, match.best_of, self.model.series, self.model.me)
        line.display = bool(text)
        line.update(Text(text, "bold yellow"))

    def tick(self) -> None:
        match = self.model.match
        if match is None:
            return
        now = self.crib.now()
        if match.pace == Pace.RACE:
            self.query_one("#progress", ProgressPanel).show(self.model.progress_rows(now))
        if self.model.spectating():
            note = "You are watching: the boards are revealed at the end. Escape leaves."
            self.query_one("#card", CardPanel).show(None, None, None, "", note)
            return
        left = match.clock.left_ms(self.crib.now()) if match.clock else None
        per = "this card" if match.pace == Pace.LOCKSTEP else "left for the whole deal"
        waiting = ""
        if match.card is None:
            others = [
                r.player.name
                for r in self.model.progress_rows()
                if not r.me and r.state == "thinking"
            ]
            who = f"waiting for {', '.join(others)}…" if others else "waiting for the next card…"
            if match.placed_count >= 16:
                waiting = f"Your board is full: {who}"
            elif match.placements:
                last = max(match.placements, key=lambda p: p.turn)
                waiting = f"Placed {last.card} on {last.cell}: {who}"
            else:
                waiting = who[0].upper() + who[1:]
        self.query_one("#card", CardPanel).show(match.turn, match.card, left, per, waiting)

    def _show_note(self) -> None:
        t = Text()
        if self.typed:
            t.append(f"typed: {self.typed}_  ", "bold yellow")
        if self.note:
            t.append(self.note, "bold red")
        elif self.model.spectating():
            t.append("watching: Escape stops", "dim")
        elif not self.typed:
            t.append("arrows + Enter, type a cell (b3) or click a green cell", "dim")
        self.query_one("#game-note", Static).update(t)

    def log_line(self, line: str) -> None:
        for log in self.query("#game-log").results(EventLog):
            log.show(self.crib.match_log())  # this match's lines only

    def refuse(self, reason: str) -> None:
        self.note = f"✖ {reason}"
        self._show_note()

    def action_move(self, drow: int, dcol: int) -> None:
        self.typed_placed_at = None
        self.query_one("#board", BoardView).move(drow, dcol)
        self.note = ""
        self._show_note()

    def action_place(self) -> None:
        typed_at, self.typed_placed_at = self.typed_placed_at, None
        if typed_at is not None and self.crib.now() - typed_at < CONFIRM_S:
            return  # "b3" then Enter: the Enter confirms b3, already placed
        self.place(cell_label(self.query_one("#board", BoardView).cursor))

    def action_clear(self) -> None:
        if self.typed or self.note:
            self.typed, self.note = "", ""
            self._show_note()
            return
        self.action_leave()

    def action_leave(self) -> None:
        """Leave the room: at once when it costs nothing, else after asking."""
        what = self.model.leaving_forfeits()
        if what is None:
            self.crib.leave_room()
            return

        def done(yes: bool | None) -> None:
            if yes:
                self.crib.leave_room()

        text = (
            f"Leave now and resign? It forfeits {what}: it counts as a loss (a rated "
            "series moves your rating as for one), and the server plays your cards."
        )
        self.app.push_screen(ConfirmDialog("Leave the match", text), done)

    def place(self, cell: str) -> bool:
        """Send the placement on ``cell`` if the model allows it (else say why)."""
        reason = self.model.why_not(cell)
        if reason is not None:
            self.refuse(reason)
            return False
        self.note = ""
        self._show_note()
        self.crib.place(cell)
        return True

    def on_key(self, event: Key) -> None:
        char = (event.character or "").lower()
        if event.key not in ("enter", "space"):
            self.typed_placed_at = None
        if char in ("a", "b", "c", "d"):
            self.typed = char
            self.note = ""
            event.stop()
        elif char in ("1", "2", "3", "4") and self.typed:
            cell = self.typed + char
            self.typed = ""
            board = self.query_one("#board", BoardView)
            board.cursor = parse_cell(cell)
            event.stop()
            if self.place(cell):
                self.typed_placed_at = self.crib.now()
            return
        elif char.isdigit() or char.isalpha():
            self.typed = ""
            if char not in ("q",):
                self.note = f"cells are a1..d4: column a-d, then row 1-4 (not {char!r})"
            event.stop()
        else:
            return
        self._show_note()

    @on(BoardView.CellChosen)
    def clicked(self, event: BoardView.CellChosen) -> None:
        self.typed_placed_at = None
        self.place(cell_label(event.index))
