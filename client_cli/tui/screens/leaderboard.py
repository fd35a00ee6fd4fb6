"""The rated players of one pace."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import (
    DataTable,
    Footer,
    Static,
)

from client_cli.tui.screens.base import BaseScreen, _quiet
from protocol.fields import Pace
from protocol.head_to_head import LeaderboardEntry


class LeaderboardScreen(BaseScreen):
    TITLE = "leaderboard"
    HELP = """\
The rated players of one pace, by rating (Glicko-2): the top of the list,
then the players around you. A rating is ± its deviation; a player is
provisional (listed, not ranked) until the deviation has come down.

p       switch the pace: lockstep / race
+ -     show 10 more / fewer at the top
r       reload
Escape  back"""
    BINDINGS: ClassVar[list[BindingType]] = [
        *BaseScreen.BINDINGS,
        Binding("escape", "app.pop_screen", "Back"),
        Binding("p", "pace", "Pace"),
        Binding("plus", "top(10)", "More"),
        Binding("minus", "top(-10)", "Fewer"),
        Binding("r", "reload", "Reload"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.pace = Pace.LOCKSTEP
        self.top = 20

    def compose(self) -> ComposeResult:
        yield from self.compose_bar()
        yield Static("", id="leaders-head", classes="heading")
        yield _quiet(DataTable(id="leaders-top", cursor_type="none", zebra_stripes=True))
        yield Static(Text("Around you", "bold"), id="leaders-around-head", classes="heading")
        yield _quiet(DataTable(id="leaders-around", cursor_type="none", zebra_stripes=True))
        yield Static("loading…", id="leaders-note", classes="note")
        yield Footer()

    def on_mount(self) -> None:
        for table in self.query(DataTable):
            table.add_columns("rank", "player", "rating", "±", "games", "")
        self.action_reload()

    def action_reload(self) -> None:
        self.query_one("#leaders-note", Static).update(Text("loading…", "italic"))
        self.crib.ask_leaderboard(self.pace.value, self.top, done=self._refused)

    def _refused(self, reason: str) -> None:
        if self.is_mounted:
            self.query_one("#leaders-note", Static).update(Text(f"✖ {reason}", "bold red"))

    def action_pace(self) -> None:
        self.pace = Pace.RACE if self.pace == Pace.LOCKSTEP else Pace.LOCKSTEP
        self.action_reload()

    def action_top(self, delta: int) -> None:
        self.top = max(10, min(100, self.top + delta))
        self.action_reload()

    def _fill(self, table: DataTable[Any], entries: list[LeaderboardEntry]) -> None:
        me = self.model.me.id if self.model.me else None
        table.clear()
        for e in entries:
            mine = e.player.id == me
            style = "bold cyan" if mine else ""
            notes = ("provisional" if e.provisional else "") + ("  ← you" if mine else "")
            table.add_row(
                Text(str(e.rank) if e.rank else "-", style),
                Text(e.player.name + (" [bot]" if e.player.bot else ""), style),
                Text(str(e.rating), style),
                Text(str(e.deviation), "dim"),
                str(e.games),
                Text(notes.strip(), "dim" if not mine else style),
            )

    def show(self) -> None:
        super().show()
        if not self.is_mounted:
            return
        head = Text()
        head.append("Leaderboard: ", "bold")
        head.append(self.pace.value, "bold yellow")
        head.append(f"   top {self.top}", "dim")
        self.query_one("#leaders-head", Static).update(head)
        board = self.model.leaderboard
        note = self.query_one("#leaders-note", Static)
        if board is None or board.pace != self.pace:
            return
        self._fill(self.query_one("#leaders-top", DataTable), board.top)
        shown = {e.player.id for e in board.top}
        around = [e for e in board.around if e.player.id not in shown]
        self._fill(self.query_one("#leaders-around", DataTable), around)
        self.query_one("#leaders-around-head").display = bool(around)
        self.query_one("#leaders-around").display = bool(around)
        if not board.top:
            note.update(Text(f"Nobody is rated at {self.pace.value} pace yet.", "italic"))
        else:
            note.update(
                Text(
                    f"{board.players} ranked player(s). Provisional players are listed "
                    "with rank - until their rating settles.",
                    "dim",
                )
            )
