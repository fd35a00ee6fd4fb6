"""One tournament, live: standings (or a knockout's bracket), the round, your table."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import ScrollableContainer
from textual.coordinate import Coordinate
from textual.widgets import (
    DataTable,
    Footer,
    Static,
)

from client_cli import tournaments as tt
from client_cli.levels import picked
from client_cli.model.views import TournamentView, entrant_count
from client_cli.render import clock_text
from client_cli.safe import visible
from client_cli.tui.screens.base import BaseScreen
from client_cli.tui.screens.confirm import ConfirmDialog, confirm_withdrawal
from client_cli.tui.screens.tournament_dialogs import AddBotsDialog
from client_cli.tui.screens.tournament_list import STATUS_STYLE
from client_cli.tui.widgets import (
    EventLog,
)


class TournamentScreen(BaseScreen):
    TITLE = "tournament"
    HELP = """\
One tournament, live: the standings after every deal (duplicate: matchpoint
percentage, points, deals; Swiss: score, Buchholz, Sonneborn-Berger;
knockout: who is still in), the round and its clock, and your table.
When a round starts the client takes you to your table's game; after the
deal, Enter on the results brings you back here.

j        register          w   watch (live standings without playing)
d        withdraw (asks first; a withdrawal is for good)
b        knockout: the bracket / the standings
r        refresh
Escape   back to the lobby (watching stops)

The host also has:
s        start now (at least two entrants)
p        pause (no new round starts) / resume
c        cancel (asks first; the standings so far are final)
x        remove the chosen player (↑ ↓ choose in the standings)
a        add server bots (strategy and how many)"""
    BINDINGS: ClassVar[list[BindingType]] = [
        *BaseScreen.BINDINGS,
        Binding("j", "register", "Register"),
        Binding("w", "watch", "Watch"),
        Binding("d", "withdraw", "Withdraw"),
        Binding("b", "bracket", "Bracket"),
        Binding("s", "start", "Start"),
        Binding("p", "pause", "Pause/resume"),
        Binding("c", "cancel", "Cancel"),
        Binding("x", "remove", "Remove player"),
        Binding("a", "bots", "Add bots"),
        Binding("r", "refresh", "Refresh"),
        Binding("escape", "back", "Lobby"),
    ]
    HOST_ACTIONS = frozenset({"start", "pause", "cancel", "remove", "bots"})

    def __init__(self) -> None:
        super().__init__()
        self.bracket_shown: bool | None = None  # None: the bracket once it is drawn
        self.keys_for: tuple[Any, ...] = ()

    def compose(self) -> ComposeResult:
        yield from self.compose_bar()
        yield Static("", id="tournament-head", classes="heading")
        yield Static("", id="tournament-status", classes="status")
        yield DataTable(id="standings", cursor_type="row", zebra_stripes=True)
        with ScrollableContainer(id="bracket-pane", can_focus=False):
            yield Static("", id="bracket")
        yield Static("", id="tournament-note", classes="note")
        yield EventLog(id="tournament-log")
        yield Footer()

    def on_mount(self) -> None:
        self.set_interval(0.5, self.show_status)
        self.set_interval(5, self._poll)
        self.query_one("#tournament-log", EventLog).show(self.crib.log_lines)

    def _poll(self) -> None:
        # Members get every change pushed; anyone else looking asks now and then.
        if not self.model.gets_updates(self.model.tournament_id):
            self.crib.refresh_tournament()

    @property
    def view(self) -> TournamentView | None:
        return self.model.shown_tournament()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.view
        if view is None:
            return True
        tid = view.info.id
        actions = view.info.actions  # what the server lets anyone do now
        if action in self.HOST_ACTIONS:
            if not self.model.is_host(tid):
                return False
            wanted = {"pause": ("pause", "resume"), "bots": ("add_bots",)}.get(action, (action,))
            return any(a in actions.host for a in wanted)
        role = self.model.tournament_role(tid)
        if action == "register":
            return role in ("", "host", "spectator") and actions.entry is not None
        if action == "watch":
            return role == "" and not view.over
        if action == "withdraw":  # an entrant withdraws; a spectator stops watching
            return role in ("entrant", "spectator") and actions.withdraw
        if action == "bracket":
            return view.info.bracket is not None
        return True

    def show(self) -> None:
        super().show()
        view = self.view
        if view is None or not self.is_mounted:
            return
        info = view.info
        me = self.model.me.id if self.model.me else None
        # Which keys apply changes with the role and the status: redraw the footer then.
        keys = (
            info.id,
            info.status,
            self.model.tournament_role(info.id),
            self.model.is_host(info.id),
        )
        if keys != self.keys_for:
            self.keys_for = keys
            self.refresh_bindings()
        head = Text()
        head.append(info.name, "bold")
        head.append(f"   {tt.format_title(info)}, {info.length}")
        head.append(f", {tt.clock_terms(info.pace, info.card_clock_ms, info.deal_clock_ms)}")
        head.append(f", round clock {clock_text(info.round_clock_ms)}", "dim")
        head.append(f"\nhost {info.host.name}", "dim")
        if self.model.is_host(info.id):
            head.append(" (you)", "bold cyan")
        entered = entrant_count(info)
        head.append(f"   {entered}/{info.max_players} entrant{'s' if entered != 1 else ''}", "dim")
        head.append(f"   {info.visibility.value}", "dim")
        if not info.bots:
            head.append(", no bots", "dim")
        head.append(f"   id {info.id}", "dim")
        if info.invite_code:
            head.append("   invite code: ", "bold")
            head.append(info.invite_code, "bold yellow")
        self.query_one("#tournament-head", Static).update(head)
        self.show_status()
        self._fill_standings(view, me)
        bracket_now = info.bracket is not None and (  # a format with a bracket
            self.bracket_shown if self.bracket_shown is not None else bool(info.bracket)
        )
        self.query_one("#standings").display = not bracket_now
        self.query_one("#bracket-pane").display = bracket_now
        if bracket_now:
            self._draw_bracket(view, me)
        self._show_note(view, bracket_now)

    def show_status(self) -> None:
        view = self.view
        if view is None or not self.is_mounted:
            return
        info, now = view.info, self.crib.now()
        me = self.model.me.id if self.model.me else None
        t = Text()
        t.append(f"● {info.status}", "bold " + STATUS_STYLE.get(info.status, ""))
        t.append("   " + tt.round_text(info, view.round_left_ms(now), view.next_round_ms(now)))
        role = self.model.tournament_role(info.id)
        t.append("\n")
        if role == "entrant" and info.status == "registering":
            t.append("you are registered", "bold cyan")
            t.append(": your table comes when the tournament starts", "dim")
        elif role in ("entrant", "out"):
            mine = view.standing(me)
            t.append("you: ", "bold")
            if mine is not None:
                t.append(f"#{mine.rank} of {len(info.standings)}", "bold cyan")
            if role == "out":
                t.append(", knocked out", "dim")
            table = tt.table_text(view.table_of(me), view.names(), me, info.round)
            if table and role == "entrant":
                t.append(f"   your table: {table}")
        elif role in ("withdrawn", "removed"):
            t.append("you withdrew" if role == "withdrawn" else "you were removed", "bold red")
            t.append(": your results so far stay in the standings", "dim")
        elif role == "spectator":
            t.append("watching", "bold")
            t.append(": the standings come live", "dim")
        elif role == "host" and not view.over:
            t.append("you host it without playing", "bold")
            t.append("   j registers you", "dim")
        elif not view.over:
            t.append("not registered", "bold")
            t.append("   j registers, w watches", "dim")
        self.query_one("#tournament-status", Static).update(t)

    def _fill_standings(self, view: TournamentView, me: str | None) -> None:
        table = self.query_one("#standings", DataTable)
        columns = tt.standing_columns(view.info)
        if [str(c.label) for c in table.columns.values()] != list(columns):
            table.clear(columns=True)
            table.add_columns(*columns)
        keep = table.cursor_row
        table.clear()
        for row in view.info.standings:
            cells = tt.standing_cells(row, me)
            mine = row.player.id == me
            style = "bold cyan" if mine else "dim" if row.status != "active" else ""
            table.add_row(*(Text(c, style) for c in cells), key=row.player.id)
        if view.info.standings:
            table.move_cursor(row=min(max(keep, 0), len(view.info.standings) - 1))

    def _draw_bracket(self, view: TournamentView, me: str | None) -> None:
        rounds = tt.bracket(view.info, view.tables)
        out = Text(no_wrap=True)
        styles = {
            "won": "bold green",
            "lost": "dim",
            "me": "bold cyan",
            "empty": "dim",
            "line": "dim",
            "head": "bold underline",
            "slot": "",
        }
        for i, line in enumerate(tt.bracket_grid(rounds, me, width=28)):
            if i:
                out.append("\n")
            for cell in line:
                out.append(cell.text, styles[cell.kind])
        notes = tt.tie_break_lines(rounds, me)
        if notes:
            out.append("\n\ntie-breaks:", "bold")
            for note in notes:
                out.append("\n  " + note, "dim")
        if not rounds:
            out = Text(
                "The bracket is drawn when the tournament starts: seeded by rating, byes to "
                "the top seeds.",
                "italic",
            )
        self.query_one("#bracket", Static).update(out)

    def _show_note(self, view: TournamentView, bracket_now: bool) -> None:
        info = view.info
        t = Text()
        if not info.standings:
            t.append("Nobody has registered yet. ", "italic")
        elif (state := tt.standings_state(info)) and not bracket_now:
            t.append(f"Standings {state}. ", "bold yellow" if "tables done" in state else "dim")
        if not bracket_now:
            for note in info.tie_notes:  # the tie-break that decided, in the server's words
                t.append(visible(note) + ". ", "yellow")
        if info.bracket is not None:
            t.append("b: the standings. " if bracket_now else "b: the bracket. ", "dim")
        if self.model.is_host(info.id) and not view.over:
            t.append("You host it: ", "bold")
            can = {
                action: self.check_action(action, ()) is True
                for action in ("start", "pause", "bots", "remove", "cancel")
            }
            keys = [
                text
                for action, text in (
                    ("start", "s starts"),
                    ("pause", "p pauses/resumes"),
                    ("bots", "a adds bots"),
                    ("remove", "x removes the chosen player"),
                    ("cancel", "c cancels"),
                )
                if can[action]
            ]
            t.append(", ".join(keys) + ".", "dim")
        self.query_one("#tournament-note", Static).update(t)

    def log_line(self, line: str) -> None:
        for log in self.query("#tournament-log").results(EventLog):
            log.show(self.crib.log_lines)

    # -- actions -------------------------------------------------------------

    def _tid(self) -> str | None:
        return self.model.tournament_id

    def action_back(self) -> None:
        self.crib.close_tournament()

    def action_refresh(self) -> None:
        self.crib.refresh_tournament()

    def action_register(self) -> None:
        if (tid := self._tid()) is not None:
            self.crib.join_tournament(tournament_id=tid)

    def action_watch(self) -> None:
        if (tid := self._tid()) is not None:
            self.crib.join_tournament(tournament_id=tid, spectate=True)

    def action_withdraw(self) -> None:
        view = self.view
        if view is not None:
            confirm_withdrawal(self, view.info.id, view.info.name)

    def action_bracket(self) -> None:
        view = self.view
        if view is None or view.info.bracket is None:
            return
        shown = self.bracket_shown if self.bracket_shown is not None else bool(view.info.bracket)
        self.bracket_shown = not shown
        self.show()

    def action_start(self) -> None:
        self.crib.manage_tournament("start")

    def action_pause(self) -> None:
        view = self.view
        if view is not None:
            self.crib.manage_tournament("resume" if view.info.status == "paused" else "pause")

    def action_cancel(self) -> None:
        view = self.view
        if view is None:
            return

        def done(yes: bool | None) -> None:
            if yes:
                self.crib.manage_tournament("cancel")

        text = f"Cancel {view.info.name}? The tables still playing stop; the standings so far "
        text += "are final."
        self.app.push_screen(ConfirmDialog("Cancel the tournament", text), done)

    def action_remove(self) -> None:
        view = self.view
        table = self.query_one("#standings", DataTable)
        if view is None or not view.info.standings or table.cursor_row < 0:
            self.crib.tell("choose a player in the standings first (↑ ↓)")
            return
        pid = str(table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value)
        entrant = view.entrant(pid)
        if entrant is None or entrant.status != "active":
            self.crib.tell("only an active entrant can be removed")
            return

        def done(yes: bool | None) -> None:
            if yes:
                self.crib.manage_tournament("remove", pid)

        text = f"Remove {tt.player_name(entrant.player)} from {view.info.name}? "
        text += "It counts as a withdrawal: no coming back."
        self.app.push_screen(ConfirmDialog("Remove a player", text), done)

    def action_bots(self) -> None:
        def done(result: tuple[str, int] | None) -> None:
            if result:
                if self.model.bots is not None:
                    shown = picked(self.model.bots.levels, result[0])
                    bots = f"{result[1]} bot{'s' if result[1] != 1 else ''}"
                    self.crib.tell(f"entering {bots} of {shown}")
                self.crib.add_tournament_bots(*result)

        self.app.push_screen(AddBotsDialog(self.model.bots), done)
