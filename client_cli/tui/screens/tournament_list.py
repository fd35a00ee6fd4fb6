"""The server's public tournaments."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual.widgets import (
    DataTable,
    Footer,
    Static,
)

from client_cli import tournaments as tt
from client_cli.tui.screens.base import BaseScreen
from client_cli.tui.screens.confirm import confirm_withdrawal
from client_cli.tui.screens.tournament_dialogs import CreateTournamentDialog, TournamentCodeDialog

STATUS_STYLE = {
    "registering": "green",
    "playing": "yellow",
    "paused": "magenta",
    "finished": "dim",
    "cancelled": "dim red",
}


class TournamentListScreen(BaseScreen):
    TITLE = "tournaments"
    HELP = """\
The server's public tournaments: registering, playing, and those finished in
the last minutes; f lists every finished one, with its winner. Private ones are
not listed: register with their invite code.

↑ ↓      choose a tournament
Enter    show it: standings, rounds, your table (and a knockout's bracket)
j        register for the chosen tournament
w        watch it (its standings then come live)
d        withdraw from it (asks first: you cannot register again)
i        register (or watch) a private tournament by its invite code
n        host a new tournament
f        finished tournaments (all of them, with their winners) / those live
r        refresh the list
Escape   back to the lobby"""
    BINDINGS: ClassVar[list[BindingType]] = [
        *BaseScreen.BINDINGS,
        Binding("enter", "show_chosen", "Show"),
        Binding("j", "register", "Register"),
        Binding("w", "watch", "Watch"),
        Binding("d", "withdraw", "Withdraw"),
        Binding("i", "invite", "Invite code"),
        Binding("n", "create", "New tournament"),
        Binding("f", "finished", "Finished/live"),
        Binding("r", "refresh", "Refresh"),
        Binding("escape", "app.pop_screen", "Back"),
    ]

    status: str | None = None  # None: the tournaments held live; "finished": every one over

    def compose(self) -> ComposeResult:
        yield from self.compose_bar()
        yield Static(Text("Tournaments", "bold"), classes="heading")
        yield DataTable(id="tournaments", cursor_type="row", zebra_stripes=True)
        yield Static("loading…", id="tournaments-note", classes="note")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#tournaments", DataTable).add_columns(
            "name", "format", "pace", "rounds", "entrants", "status", "starts", "host", "id"
        )
        self.set_interval(5, self.action_refresh)
        self.action_refresh()

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        self.action_refresh()

    def show(self) -> None:
        super().show()
        if not self.is_mounted:
            return
        table = self.query_one("#tournaments", DataTable)
        rows = self.model.tournament_list
        keep = table.cursor_row
        table.clear()
        for t in rows:
            full = t.entrants >= t.max_players
            mine = self.model.entered(t.id)
            table.add_row(
                Text(t.name + (" ✔" if mine else ""), "bold cyan" if mine else ""),
                tt.format_title(t),
                t.pace.value,
                t.length,
                Text(f"{t.entrants}/{t.max_players}", "red" if full else "green"),
                Text(
                    tt.winners_text([w.name for w in t.winners]) or t.status,
                    STATUS_STYLE.get(t.status, ""),
                ),
                tt.start_text(t.status, t.starts_ms),
                Text(t.host.name),
                Text(t.id),
                key=t.id,
            )
        if rows:
            table.move_cursor(row=min(max(keep, 0), len(rows) - 1))
        note = self.query_one("#tournaments-note", Static)
        if self.status == "finished":
            count = f"{len(rows)} finished tournament(s)" if rows else "No finished tournament yet"
            note.update(Text(f"{count}. f lists those live; Enter shows the chosen one.", "dim"))
        elif rows:
            note.update(
                Text(
                    f"{len(rows)} tournament(s). Enter shows the chosen one, j registers, "
                    "w watches; ✔ marks those you are in.",
                    "dim",
                )
            )
        else:
            note.update(
                Text(
                    "No public tournaments. Press n to host one, i to use an invite code.", "italic"
                )
            )

    def _chosen(self) -> str | None:
        table = self.query_one("#tournaments", DataTable)
        if not self.model.tournament_list or table.cursor_row < 0:
            self.crib.tell("no tournament chosen: press n to host one")
            return None
        key = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value
        return str(key) if key else None

    def action_refresh(self) -> None:
        self.crib.list_tournaments(self.status)

    def action_finished(self) -> None:
        self.status = None if self.status else "finished"
        heading = "Finished tournaments" if self.status else "Tournaments"
        self.query_one(".heading", Static).update(Text(heading, "bold"))
        self.action_refresh()

    def action_show_chosen(self) -> None:
        if (tid := self._chosen()) is not None:
            self.crib.open_tournament(tid)

    @on(DataTable.RowSelected, "#tournaments")
    def row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value:
            self.crib.open_tournament(str(event.row_key.value))

    def action_register(self) -> None:
        if (tid := self._chosen()) is not None:
            self.crib.join_tournament(tournament_id=tid)

    def action_watch(self) -> None:
        if (tid := self._chosen()) is not None:
            self.crib.join_tournament(tournament_id=tid, spectate=True)

    def action_withdraw(self) -> None:
        tid = self._chosen()
        if tid is None:
            return
        name = next((t.name for t in self.model.tournament_list if t.id == tid), tid)
        confirm_withdrawal(self, tid, name)

    def action_invite(self) -> None:
        def done(result: tuple[str, bool] | None) -> None:
            if result:
                code, watch = result
                self.crib.join_tournament(invite_code=code, spectate=watch)

        self.app.push_screen(TournamentCodeDialog(), done)

    def action_create(self) -> None:
        def done(result: dict[str, Any] | None) -> None:
            if result:
                self.crib.create_tournament(result)

        self.app.push_screen(CreateTournamentDialog(self.model.formats), done)
