"""Your finished matches, from the server."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import (
    DataTable,
    Footer,
    Static,
)

from client_cli import history as hist
from client_cli.session import SessionError
from client_cli.tui.screens.base import BaseScreen
from client_cli.tui.screens.replay import ReplayScreen


class HistoryScreen(BaseScreen):
    TITLE = "history"
    HELP = """\
Your finished matches, newest first, from the server.

↑ ↓     choose a match
Enter   replay it, placement by placement
r       reload
Escape  back"""
    BINDINGS: ClassVar[list[BindingType]] = [
        *BaseScreen.BINDINGS,
        Binding("escape", "app.pop_screen", "Back"),
        Binding("r", "reload", "Reload"),
    ]

    def compose(self) -> ComposeResult:
        yield from self.compose_bar()
        yield Static(Text("Your matches", "bold"), classes="heading")
        yield DataTable(id="history", cursor_type="row", zebra_stripes=True)
        yield Static("loading…", id="history-note", classes="note")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#history", DataTable).add_columns(
            "when", "room", "players", "rank", "points", "match"
        )
        self.action_reload()

    @work(exclusive=True, group="history")
    async def action_reload(self) -> None:
        note = self.query_one("#history-note", Static)
        me = self.model.me
        if me is None:
            return
        try:
            matches = await hist.fetch_history(self.crib.session, me.id)
        except SessionError as exc:
            note.update(Text(f"✖ {exc}", "bold red"))
            return
        table = self.query_one("#history", DataTable)
        table.clear()
        for m in matches:
            rank = Text(
                str(m.rank) if m.rank is not None else "-", "bold green" if m.rank == 1 else ""
            )
            score = Text(
                str(m.score) if m.score is not None else "-",
                "bold green" if (m.score or 0) >= 61 else "",
            )
            table.add_row(
                m.when[:19], Text(m.room), str(m.players or "-"), rank, score, Text(m.match_id),
                key=m.match_id,
            )  # fmt: skip
        note.update(
            Text(
                f"{len(matches)} match(es). Enter replays the chosen one."
                if matches
                else "No finished matches yet.",
                "dim",
            )
        )

    @on(DataTable.RowSelected, "#history")
    def selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value:
            self.open_replay(event.row_key.value)

    @work(exclusive=True, group="replay")
    async def open_replay(self, match_id: str) -> None:
        try:
            replay = await hist.fetch_replay(self.crib.session, match_id)
        except SessionError as exc:
            self.query_one("#history-note", Static).update(Text(f"✖ {exc}", "bold red"))
            return
        self.app.push_screen(ReplayScreen(replay=replay))
