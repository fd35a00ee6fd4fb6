"""Widgets of the terminal client; each renders a piece of the client-side model.

No widget keeps game state of its own beyond what the view needs (the
cursor, a scroll position): the board, the card and the clock are always
drawn from :class:`client_cli.model.ClientModel` or a result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, NamedTuple

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.events import Click
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from client_cli.model.state import ClientModel
from client_cli.model.text import time_text
from client_cli.model.views import Connection, PlayerProgress
from client_cli.render import (
    SUIT_GLYPH,
    SUIT_NAME,
    board_lines,
    card_text,
    clock_text,
    score_table,
)
from engine.cards import Card
from engine.scoring import points_so_far
from protocol.deals import BoardResult

COLUMNS = "abcd"


class Geometry(NamedTuple):
    """How big a board is drawn: a box's inner width and height, the gap after it,
    the row label's width, and whether each row and column shows its points so far."""

    inner_w: int
    inner_h: int
    left: int
    points: bool

    @property
    def cell_w(self) -> int:
        return self.inner_w + 3  # two borders and the gap

    @property
    def cell_h(self) -> int:
        return self.inner_h + 2

    @property
    def width(self) -> int:
        return self.left + 4 * self.cell_w + (5 if self.points else 0)

    @property
    def height(self) -> int:
        return TOP + 4 * self.cell_h + (1 if self.points else 0)


SMALL = Geometry(inner_w=5, inner_h=1, left=3, points=False)  # 80x24
LARGE = Geometry(inner_w=7, inner_h=3, left=4, points=True)  # 120x40 and up
TOP = 1  # column letters


def cell_label(index: int) -> str:
    return f"{COLUMNS[index % 4]}{index // 4 + 1}"


class ConnectionBar(Static):
    """Top line: who is signed in where, and whether the connection is up."""

    DEFAULT_CSS = """
    ConnectionBar { dock: top; height: 1; background: $panel; padding: 0 1; }
    """

    def show(self, model: ClientModel, title: str) -> None:
        text = Text()
        text.append("Cribbage Squares", style="bold")
        text.append(f"  {title}", style="italic")
        if model.me is not None:
            text.append(f"   {model.me.name}", style="bold cyan")
        state = model.connection
        style = {
            Connection.ONLINE: "green",
            Connection.CONNECTING: "yellow",
            Connection.RECONNECTING: "bold red",
            Connection.OFFLINE: "red",
            Connection.REFUSED: "yellow",
        }[state]
        label = {
            Connection.ONLINE: "● online",
            Connection.CONNECTING: "◌ connecting",
            Connection.RECONNECTING: "✖ connection lost: reconnecting",
            Connection.OFFLINE: "✖ offline",
            Connection.REFUSED: "● server reached: sign-in refused",
        }[state]
        if state == Connection.RECONNECTING and model.connection_note:
            # The reason goes to the log; the bar keeps to what happens next.
            label = f"✖ connection lost: {model.connection_note.split('; ')[-1]}"
        text.append(f"   {label}", style=style)
        self.update(text)


class BoardView(Widget):
    """A 4x4 grid of card boxes with legal cells and a cursor; clicks choose a cell.

    Drawn small (boxes of one line) where the screen is small, and large, each
    row and column with its points so far (engine.scoring.points_so_far), where
    the layout gives it room (the ``-wide -tall`` screen classes of the app's
    breakpoints, cribsquares.tcss)."""

    DEFAULT_CSS = f"""
    BoardView {{ width: {SMALL.width}; height: {SMALL.height}; }}
    """

    cursor: reactive[int] = reactive(5)

    class CellChosen(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None, interactive: bool = True) -> None:
        super().__init__(id=id)
        self.cells: list[str | None] = [None] * 16
        self.legal: set[int] = set()
        self.last: int | None = None  # the most recent placement, marked
        self.interactive = interactive
        self.show_cursor = interactive
        self.can_focus = interactive

    def set_board(
        self, cells: Sequence[str | None], legal: Sequence[int] = (), last: int | None = None
    ) -> None:
        self.cells, self.legal, self.last = list(cells), set(legal), last
        self.refresh()

    def move(self, drow: int, dcol: int) -> None:
        row, col = divmod(self.cursor, 4)
        self.cursor = 4 * ((row + drow) % 4) + (col + dcol) % 4

    @property
    def geometry(self) -> Geometry:
        size = self.size
        if size.width >= LARGE.width and size.height >= LARGE.height:
            return LARGE
        return SMALL

    def line_points(self) -> tuple[list[int], list[int]]:
        """The points so far of each row and each column of the cards placed."""
        cards = [None if c is None else Card.parse(c) for c in self.cells]
        rows = [points_so_far([c for c in cards[4 * r : 4 * r + 4] if c]) for r in range(4)]
        columns = [points_so_far([c for c in cards[k::4] if c]) for k in range(4)]
        return rows, columns

    def render(self) -> RenderableType:
        g = self.geometry
        head = Text(" " * g.left, "bold")
        for c in COLUMNS:
            head.append(c.center(g.inner_w + 2) + " ", "bold")
        if g.points:
            head.append(" pts", "cyan")
        lines: list[Text] = [head]
        rows, columns = self.line_points() if g.points else ([], [])
        for row in range(4):
            top, bot = Text(" " * g.left), Text(" " * g.left)
            middle = [Text(f" {row + 1} ".ljust(g.left), "bold") if n == g.inner_h // 2
                      else Text(" " * g.left) for n in range(g.inner_h)]  # fmt: skip
            for col in range(4):
                i = 4 * row + col
                border, face = self._cell(i, g)
                cursor = self.show_cursor and i == self.cursor
                rule = ("━" if cursor else "─") * g.inner_w
                side = "┃" if cursor else "│"
                top.append(("┏" if cursor else "┌") + rule + ("┓ " if cursor else "┐ "), border)
                bot.append(("┗" if cursor else "└") + rule + ("┛ " if cursor else "┘ "), border)
                for n, line in enumerate(middle):
                    line.append(side, border)
                    line.append_text(face[n])
                    line.append(side + " ", border)
            if g.points:
                middle[g.inner_h // 2].append(f"{rows[row]:>4}", "cyan")
            lines += [top, *middle, bot]
        if g.points:
            foot = Text("pts".ljust(g.left), "cyan")
            for points in columns:
                foot.append(str(points).center(g.inner_w + 2) + " ", "cyan")
            lines.append(foot)
        return Group(*lines)

    def _cell(self, i: int, g: Geometry) -> tuple[str, list[Text]]:
        """A cell's border style and the lines inside its box."""
        card = self.cells[i]
        cursor = self.show_cursor and i == self.cursor
        legal = i in self.legal
        if cursor:
            border = "bold yellow" if legal or not self.legal else "bold red"
        elif legal:
            border = "green"
        elif i == self.last:
            border = "cyan"
        else:
            border = "grey50" if card else "grey30"
        fill = " on grey23" if cursor else " on #0a2a0a" if legal else ""
        paper = "on grey85" if cursor else "on white"
        blank = Text(" " * g.inner_w, paper if card is not None else fill.strip())
        if card is not None:
            inner = card_text(card, width=3)
            inner.stylize(paper)
            pad = g.inner_w - 3
            middle = Text(" " * (pad // 2), paper)
            middle.append_text(inner)
            middle.append(" " * (pad - pad // 2), paper)
        elif legal:
            middle = Text(cell_label(i).center(g.inner_w), "green" + fill)
        elif cursor:
            middle = Text("·".center(g.inner_w), "yellow" + fill)
        else:
            middle = Text(" " * g.inner_w)
        lines = [blank.copy() for _ in range(g.inner_h)]
        lines[g.inner_h // 2] = middle
        return border, lines

    def cell_at(self, x: int, y: int) -> int | None:
        g = self.geometry
        col, row = (x - g.left) // g.cell_w, (y - TOP) // g.cell_h
        if x < g.left or y < TOP or not (0 <= col < 4 and 0 <= row < 4):
            return None
        if (x - g.left) % g.cell_w == g.cell_w - 1:
            return None  # the gap between boxes
        return 4 * row + col

    def on_click(self, event: Click) -> None:
        if not self.interactive:
            return
        index = self.cell_at(event.x, event.y)
        if index is not None:
            self.cursor = index
            self.post_message(self.CellChosen(index))


class CardPanel(Static):
    """The card to place, the turn and the clock."""

    DEFAULT_CSS = """
    CardPanel { height: 7; border: round $accent; padding: 0 1; }
    """

    def show(
        self, turn: int | None, card: str | None, left_ms: int | None, per: str, note: str = ""
    ) -> None:
        if card is None:
            self.update(Text(note or "waiting for the next card…", style="italic"))
            return
        grid = Table.grid(padding=(0, 2))
        grid.add_column(width=7)
        grid.add_column()
        info = Text()
        info.append(f"Card {turn} of 16\n", "bold")
        info.append(f"{card_name(card)}\n")
        low = left_ms is not None and left_ms <= 5000
        info.append(f"⏱ {clock_text(left_ms)} ", "bold red" if low else "bold")
        info.append(per, "dim")
        if note:
            info.append(f"\n{note}", "italic")
        grid.add_row(big_card(card), info)
        self.update(grid)


RANK_NAMES = {"A": "ace", "T": "ten", "J": "jack", "Q": "queen", "K": "king"}


def card_name(card: str) -> str:
    """``"TH"`` -> ``"ten of hearts"``: for people, and for screen readers."""
    rank = RANK_NAMES.get(card[0], card[0])
    return f"{rank} of {SUIT_NAME.get(card[-1], card[-1])}"


def big_card(card: str) -> Text:
    """A five-line card face, red for hearts and diamonds."""
    rank = "10" if card[0] == "T" else card[0]
    suit = SUIT_GLYPH.get(card[-1], card[-1])
    ink = ("red" if card[-1] in "DH" else "black") + " on white"
    t = Text()
    t.append("┌─────┐\n", ink)
    t.append(f"│{rank:<5}│\n", "bold " + ink)
    t.append(f"│  {suit}  │\n", "bold " + ink)
    t.append(f"│{rank:>5}│\n", "bold " + ink)
    t.append("└─────┘", ink)
    return t


class ProgressPanel(Static):
    """The other players: placed, thinking, done or disconnected."""

    DEFAULT_CSS = """
    ProgressPanel { height: auto; border: round $primary; padding: 0 1; }
    """

    STATE_STYLE: ClassVar[dict[str, tuple[str, str]]] = {
        "placed": ("✔ placed", "green"),
        "thinking": ("… thinking", "yellow"),
        "done": ("■ done", "cyan"),
        "disconnected": ("✖ disconnected", "bold red"),
        "ready": ("✔ ready", "green"),
        "not ready": ("· not ready", "dim"),
    }

    def show(self, rows: Sequence[PlayerProgress]) -> None:
        if not rows:
            self.update(Text("nobody", "dim"))
            return
        table = Table.grid(padding=(0, 1), expand=True)
        table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        table.add_column(justify="right", no_wrap=True, style="cyan")
        table.add_column(no_wrap=True, width=14)
        for row in rows:
            name = Text(row.player.name, "bold" if row.me else "")
            if row.me:
                name.append(" (you)")
            if row.player.bot:
                name.append(" [bot]", "dim")
            label, style = self.STATE_STYLE.get(row.state, (row.state, ""))
            state = Text(label, style)
            # A race: the deal clock of a player still placing, the time of a full board.
            if row.state == "done" and row.used_ms is not None:
                state = Text(f"■ {clock_text(row.used_ms)} used", "cyan")
            elif row.state == "thinking" and row.clock_ms is not None:
                low = row.clock_ms <= 10_000
                state = Text(f"… ⏱ {clock_text(row.clock_ms)}", "bold red" if low else "yellow")
            table.add_row(name, f"{row.placed}/16", state)
        self.update(table)


class EventLog(VerticalScroll):
    """The latest events as readable lines, newest at the bottom, wrapped to the width."""

    DEFAULT_CSS = """
    EventLog { height: 1fr; border: round $panel; padding: 0 1; }
    EventLog > Static { width: 1fr; height: auto; }
    """

    can_focus = False

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        # Its text, held from the start: a screen may show lines in its own on_mount,
        # before this log's compose has mounted its children (a query then found none).
        self.text = Static("")

    def compose(self) -> ComposeResult:
        yield self.text

    def show(self, lines: Sequence[str]) -> None:
        self.text.update(Text("\n".join(lines[-100:])))
        # once the new lines are laid out: scrolled now, it stopped short of them
        self.call_after_refresh(self.scroll_end, animate=False)


class ResultBoard(Static):
    """One revealed board: who, rank, total, the grid with line totals, every item."""

    DEFAULT_CSS = """
    ResultBoard { width: 46; height: auto; border: round $primary; padding: 0 1; margin: 0 1 0 0; }
    ResultBoard.-winner { border: double $success; }
    """

    def show(
        self,
        board: BoardResult,
        me: bool,
        upto: int | None = None,
        reveal: bool = True,
        *,
        ranked: bool = True,
        race: bool = False,
    ) -> None:
        """``upto``: show only the first ``upto`` placements (a replay step); ``ranked``
        false: no rank (a board alone); ``race``: the time used, the race's tie-break."""
        self.player_id = board.player.id  # whose board this shows
        cells: list[str | None] = list(board.cells)
        last = None
        if upto is not None:
            cells = [None] * 16
            for p in sorted(board.placements, key=lambda p: p.turn):
                if p.turn <= upto:
                    idx = "abcd".index(p.cell[0]) + 4 * (int(p.cell[1]) - 1)
                    cells[idx] = p.card
                    if p.turn == upto:
                        last = idx
        head = Text()
        head.append(f"#{board.rank} " if reveal and ranked else "", "bold yellow")
        head.append(board.player.name + (" (you)" if me else ""), "bold")
        if board.player.bot:
            head.append(" [bot]", "dim")
        if reveal:
            head.append(f"   {board.score.total} points", "bold cyan")
            if board.score.win:
                head.append("  61+", "bold green")
            if race:
                head.append(f"\n{time_text(board.time_used_ms)} used", "cyan")
        parts: list[RenderableType] = [head]
        parts += board_lines(
            cells, board.score if reveal else None, highlight=[last] if last is not None else []
        )
        if reveal:
            parts.append(Text(""))
            parts.append(score_table(board.score))
        self.set_class(reveal and board.score.win, "-winner")
        self.update(Group(*parts))
