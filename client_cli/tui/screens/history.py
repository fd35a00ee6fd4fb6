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
from engine.scoring import WIN_SCORE

RESULT_STYLE = {"win": "bold green", "loss": "red", "draw": "yellow", "solo": "dim"}


def series_word(said: str) -> str:
    """A series' end in a word or two, for the result column ("series lost"); the note
    line under the table says it in full ("lost the series 1–1, you resigned")."""
    for verb in ("won", "lost"):
        if said.startswith(verb):
            return f"series {verb}"
    return " ".join(said.split()[:2])  # "series drawn", "series aborted"


class HistoryScreen(BaseScreen):
    TITLE = "history"
    HELP = """\
Your last 20 matches, newest first, from the server: against whom, the result
(win, loss or draw; in a room of more, your rank; on a series' last deal how the
series ended), your points, and on the last deal of a rated series how your
rating moved. The line under the table says the chosen match in full.

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
        self.rows: dict[str, hist.HistoryRow] = {}
        self.summary = ""
        self.query_one("#history", DataTable).add_columns(
            "when", "room", "against", "result", "points", "rating", "match"
        )
        self.action_reload()

    @work(exclusive=True, group="history")
    async def action_reload(self) -> None:
        note = self.query_one("#history-note", Static)
        me = self.model.me
        if me is None:
            return
        try:
            rows = await hist.fetch_history_rows(self.crib.session, me.id)
        except SessionError as exc:
            note.update(Text(f"✖ {exc}", "bold red"))
            return
        table = self.query_one("#history", DataTable)
        table.clear()
        self.rows = {row.summary.match_id: row for row in rows}
        for row in rows:
            m = row.summary
            style = RESULT_STYLE.get(row.result, "")
            result = row.result + (f" ({m.rank} of {m.players})" if m.players > 2 else "")
            if row.series:  # a series' last deal: how it ended (in full on the note line)
                result = f"{result}; {series_word(row.series)}" if result else row.series
            score = Text(
                str(m.score) if m.score is not None else "-",
                "bold green" if (m.score or 0) >= WIN_SCORE else "",
            )
            up = "(-" not in row.rating
            # Columns that fit 80: the day without its year, the rating it moved to.
            table.add_row(
                m.when[5:16], Text(m.room), Text(", ".join(row.opponents) or "-"),
                Text(result or "-", style), score,
                Text(row.rating.split(" -> ")[-1], "green" if up else "red"), Text(m.match_id),
                key=m.match_id,
            )  # fmt: skip
        self.summary = (
            f"{len(rows)} match(es), the latest first. Enter replays the chosen one."
            if rows
            else "No finished matches yet."
        )
        note.update(Text(self.summary, "dim"))

    @on(DataTable.RowHighlighted, "#history")
    def highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The chosen match in full under the table: what its columns abbreviate."""
        row = self.rows.get(str(event.row_key.value))
        if row is None:
            return
        m = row.summary
        bits = [f"match {m.match_id}", m.when]
        bits += [row.series] if row.series else []
        bits += [f"rating {row.rating}"] if row.rating else []
        self.query_one("#history-note", Static).update(
            Text(" · ".join(bits) + "\n" + self.summary, "dim")
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
