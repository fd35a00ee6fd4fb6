"""The tournament screens of the terminal client: the list, one tournament's
standings (and a knockout's bracket), and the dialogs to create one, confirm a
withdrawal and add bots.

Like every screen they render the client-side model (``self.app.model``) in
:meth:`show` and hand actions to the app; they never talk to the network and
show nothing the server did not send.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical, VerticalScroll
from textual.coordinate import Coordinate
from textual.screen import ModalScreen
from textual.widgets import (
    Button,
    Checkbox,
    DataTable,
    Footer,
    Input,
    Label,
    RadioButton,
    RadioSet,
    Static,
)

from client_cli import tournaments as tt
from client_cli.model import TournamentView
from client_cli.render import clock_text
from client_cli.tui.forms import (
    FormDialog,
    best_of,
    best_of_value,
    clock_field,
    clock_refusal,
    clock_terms,
    is_race,
    number_field,
    pace,
)
from client_cli.tui.screens import BaseScreen
from client_cli.tui.widgets import EventLog
from protocol.messages import TournamentFormat

STATUS_STYLE = {
    "registering": "green",
    "playing": "yellow",
    "paused": "magenta",
    "finished": "dim",
    "cancelled": "dim red",
}


# ---------------------------------------------------------------------------
# The list


class TournamentListScreen(BaseScreen):
    TITLE = "tournaments"
    HELP = """\
The server's public tournaments: registering, playing, and those finished in
the last minutes. Private ones are not listed: register with their invite code.

↑ ↓      choose a tournament
Enter    show it: standings, rounds, your table (and a knockout's bracket)
j        register for the chosen tournament
w        watch it (its standings then come live)
d        withdraw from it (asks first: you cannot register again)
i        register (or watch) a private tournament by its invite code
n        host a new tournament
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
        Binding("r", "refresh", "Refresh"),
        Binding("escape", "app.pop_screen", "Back"),
    ]

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
                tt.FORMAT_NAME[t.format],
                t.pace.value,
                tt.list_rounds_text(t),
                Text(f"{t.entrants}/{t.max_players}", "red" if full else "green"),
                Text(t.status, STATUS_STYLE.get(t.status, "")),
                tt.start_text(t.status, t.starts_ms),
                t.host.name,
                t.id,
                key=t.id,
            )
        if rows:
            table.move_cursor(row=min(max(keep, 0), len(rows) - 1))
        note = self.query_one("#tournaments-note", Static)
        if rows:
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
        self.crib.list_tournaments()

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

        self.app.push_screen(CreateTournamentDialog(), done)


def confirm_withdrawal(screen: BaseScreen, tid: str, name: str) -> None:
    """Ask before ``leave_tournament``: a withdrawal is for good."""
    model = screen.model
    if not model.entered(tid) and tid not in model.watching:
        if model.tournaments.get(tid) is None:
            # Not told about it: the server says whether one is in it.
            text = f"Withdraw from {name}? If you are registered you cannot register again."
        else:
            screen.crib.tell(f"you are not registered in {name}")
            return
    elif model.entered(tid):
        text = f"Withdraw from {name}? You cannot register again"
        text += " and your table this round is forfeited." if _playing(model, tid) else "."
    else:
        screen.crib.leave_tournament(tid)  # a spectator just stops watching
        return

    def done(yes: bool | None) -> None:
        if yes:
            screen.crib.leave_tournament(tid)

    screen.app.push_screen(ConfirmDialog("Withdraw", text), done)


def _playing(model: Any, tid: str) -> bool:
    view = model.tournaments.get(tid)
    table = view.table_of(model.me.id if model.me else None) if view else None
    return bool(table is not None and table.status == "playing")


# ---------------------------------------------------------------------------
# One tournament


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
        if action in self.HOST_ACTIONS:
            if not self.model.is_host(tid) or view.over:
                return False
            status = view.info.status
            if action == "start":
                return status == "registering"
            if action == "bots":
                return status == "registering" or (
                    view.info.late_join and view.info.format != TournamentFormat.KNOCKOUT
                )
            if action == "pause":
                return status in ("playing", "paused")
            return True
        role = self.model.tournament_role(tid)
        if action == "register":
            return role in ("", "host", "spectator") and not view.over
        if action == "watch":
            return role == "" and not view.over
        if action == "withdraw":
            return role in ("entrant", "spectator") and not view.over
        if action == "bracket":
            return view.info.format == TournamentFormat.KNOCKOUT
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
        head.append(f"   {tt.FORMAT_NAME[info.format]}, ")
        head.append(tt.rounds_text(info.format, info.rounds, info.best_of))
        head.append(f", {tt.clock_terms(info.pace, info.card_clock_ms, info.deal_clock_ms)}")
        head.append(f", round clock {clock_text(info.round_clock_ms)}", "dim")
        head.append(f"\nhost {info.host.name}", "dim")
        if self.model.is_host(info.id):
            head.append(" (you)", "bold cyan")
        active = sum(1 for e in info.entrants if e.status == "active")
        head.append(f"   {active}/{info.max_players} entrants", "dim")
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
        bracket_now = info.format == TournamentFormat.KNOCKOUT and (
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
        info, now = view.info, time.monotonic()
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
        fmt = view.info.format
        columns = tt.standing_columns(fmt)
        if [str(c.label) for c in table.columns.values()] != list(columns):
            table.clear(columns=True)
            table.add_columns(*columns)
        keep = table.cursor_row
        table.clear()
        seeds = view.seeds()
        for row in view.info.standings:
            cells = tt.standing_cells(row, fmt, me, seeds, view.info.status == "finished")
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
        if info.format == TournamentFormat.KNOCKOUT:
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
        if view is None or view.info.format != TournamentFormat.KNOCKOUT:
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
                self.crib.add_tournament_bots(*result)

        self.app.push_screen(AddBotsDialog(), done)


# ---------------------------------------------------------------------------
# Dialogs


class ConfirmDialog(ModalScreen[bool]):
    """A yes/no question: ``y`` or Enter on Yes confirms, ``n`` or Escape does not."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "answer(False)", "No"),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(self.title_text, "bold"), classes="title")
            yield Static(self.text, id="confirm-text", classes="hint-line")
            with Horizontal(classes="buttons"):
                yield Button("Yes (y)", variant="error", id="yes", compact=True)
                yield Button("No (n)", id="no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()  # Enter on its own does nothing rash

    @on(Button.Pressed, "#yes")
    def yes(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#no")
    def no(self) -> None:
        self.dismiss(False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class TournamentCodeDialog(ModalScreen[tuple[str, bool] | None]):
    """A private tournament's invite code: register, or just watch."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("A private tournament", "bold"), classes="title")
            with Horizontal(classes="field"):
                yield Label("Code")
                yield Input(
                    id="tournament-code", max_length=32, compact=True, placeholder="its invite code"
                )
            with Horizontal(classes="field"):
                yield Label("")
                yield Checkbox("only watch (do not register)", id="code-watch", compact=True)
            with Horizontal(classes="buttons"):
                yield Button("Go", variant="primary", id="go", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    @on(Button.Pressed, "#go")
    @on(Input.Submitted)
    def go(self) -> None:
        code = self.query_one("#tournament-code", Input).value.strip()
        watch = self.query_one("#code-watch", Checkbox).value
        self.dismiss((code, watch) if code else None)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class AddBotsDialog(FormDialog[tuple[str, int]]):
    """The host enters server bots: a strategy and how many."""

    SUBMIT = "add"

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("Add server bots", "bold"), classes="title")
            yield from number_field(
                "Bots", "bots-count", "how many (1 to 256)", value="1", max_length=3
            )
            with Horizontal(classes="field tall"):
                yield Label("Plays")
                with RadioSet(id="bots-strategy", compact=True, classes="across"):
                    yield RadioButton("greedy", value=True, compact=True, id="bots-greedy")
                    yield RadioButton("expert", compact=True, id="bots-expert")
                    yield RadioButton("random", compact=True, id="bots-random")
            yield from self.compose_buttons("Add")

    def _value(self) -> tuple[str, int] | None:
        count = int(self.query_one("#bots-count", Input).value.strip() or "1")
        if not 1 <= count <= 256:
            self.refuse("1 to 256 bots")
            return None
        index = max(0, self.query_one("#bots-strategy", RadioSet).pressed_index)
        return ("greedy", "expert", "random")[index], count


class CreateTournamentDialog(FormDialog[dict[str, Any]]):
    """Host a tournament: every setting of ``create_tournament`` a person chooses."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", can_focus=False):
            yield Static(Text("New tournament", "bold"), classes="title")
            with Horizontal(classes="field"):
                yield Label("Name")
                yield Input(value="Squares open", id="tn-name", max_length=40, compact=True)
            with Horizontal(classes="field"):
                yield Label("Format")
                with RadioSet(id="tn-format", compact=True, classes="across"):
                    yield RadioButton(
                        "duplicate field", value=True, compact=True, id="tn-format-duplicate"
                    )
                    yield RadioButton("Swiss", compact=True, id="tn-format-swiss")
                    yield RadioButton("knockout", compact=True, id="tn-format-knockout")
            yield from number_field(
                "Rounds", "tn-rounds", "deals, or Swiss rounds; knockouts: as needed",
                value="5", max_length=2,
            )  # fmt: skip
            with Horizontal(classes="field"):
                yield Label("Best of")
                yield from best_of("tn-best-of")
            with Horizontal(classes="field tall"):
                yield Label("Pace")
                yield from pace("tn-pace")
            yield from clock_field("tn-clock")
            yield from number_field(
                "Round", "tn-round-clock", "minutes per round; empty: deals' clocks + 1",
                max_length=3, placeholder="-",
            )  # fmt: skip
            yield from number_field(
                "Start", "tn-start", "in N minutes by itself; empty: you start it (s)",
                max_length=5, placeholder="-",
            )  # fmt: skip
            yield from number_field(
                "Players", "tn-max", "at most (2 to 512)", value="64", max_length=3
            )
            with Horizontal(classes="field"):
                yield Label("")
                yield Checkbox(
                    "private: unlisted, joined by invite code", id="tn-private", compact=True
                )
            with Horizontal(classes="field"):
                yield Label("")
                yield Checkbox("bots may enter", value=True, id="tn-bots", compact=True)
            yield from self.compose_buttons("Create")

    def on_mount(self) -> None:
        self.query_one("#tn-name", Input).focus()

    def _int(self, id: str, default: int | None) -> int | None:
        text = self.query_one(f"#{id}", Input).value.strip()
        return int(text) if text else default

    def _value(self) -> dict[str, Any] | None:
        name = self.query_one("#tn-name", Input).value.strip()
        if not name:
            self.refuse("the tournament needs a name")
            return None
        fmt = ("duplicate", "swiss", "knockout")[
            max(0, self.query_one("#tn-format", RadioSet).pressed_index)
        ]
        rounds = self._int("tn-rounds", 5) or 0
        if not 1 <= rounds <= 20:
            self.refuse("rounds: 1 to 20")
            return None
        race = is_race(self, "tn-pace")
        seconds = self._int("tn-clock", 30) or 0
        if (why := clock_refusal(race, seconds)) is not None:
            self.refuse(why)
            return None
        players = self._int("tn-max", 64) or 0
        if not 2 <= players <= 512:
            self.refuse("players: 2 to 512")
            return None
        round_min = self._int("tn-round-clock", None)
        if round_min is not None and not 1 <= round_min <= 240:
            self.refuse("a round clock is 1 to 240 minutes (or empty)")
            return None
        start = self._int("tn-start", None)
        if start is not None and not 0 <= start <= 7 * 24 * 60:
            self.refuse("start in 0 minutes to 7 days (or empty: you start it)")
            return None
        best = best_of_value(self, "tn-best-of")
        if best > 1 and fmt != "knockout":
            self.refuse("best of 3 or 5 is for knockout matches; other formats play one deal")
            return None
        value: dict[str, Any] = {
            "name": name,
            "format": fmt,
            "rounds": rounds,
            "best_of": best,
            "pace": "race" if race else "lockstep",
            "max_players": players,
            "visibility": "private" if self.query_one("#tn-private", Checkbox).value else "public",
            "bots": self.query_one("#tn-bots", Checkbox).value,
            **clock_terms(race, seconds),
        }
        if round_min is not None:
            value["round_clock_ms"] = max(10_000, round_min * 60_000)
        if start is not None:
            value["start_in_ms"] = start * 60_000
        return value
