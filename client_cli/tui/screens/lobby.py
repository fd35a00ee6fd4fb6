"""The lobby: open rooms, and the quick-play wait, challenges and tournaments under way."""

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
from client_cli.model.text import match_terms
from client_cli.tui.screens.base import BaseScreen
from client_cli.tui.screens.challenge_prompt import ChallengePrompt
from client_cli.tui.screens.daily import DailyScreen
from client_cli.tui.screens.history import HistoryScreen
from client_cli.tui.screens.leaderboard import LeaderboardScreen
from client_cli.tui.screens.lobby_dialogs import (
    ChallengeDialog,
    CreateRoomDialog,
    InviteDialog,
    QuickPlayDialog,
)
from client_cli.tui.screens.tournament_list import TournamentListScreen
from protocol.fields import Pace
from protocol.rooms import RoomStatus


class LobbyScreen(BaseScreen):
    TITLE = "lobby"
    HELP = """\
The lobby lists the open public rooms.

↑ ↓      choose a room
Enter    join the chosen room
n        new room (public or private, solo with 1 seat, best of 1, 3 or 5, rated)
v        play against the server's strongest bot, at once
p        quick play: a rated head-to-head match against a player of your
         level (pace, best of 1, 3 or 5, optionally a bot after a wait)
c        challenge a player by name
a        answer a challenge made to you (accept or decline)
x        cancel: leave the quick-play queue, or withdraw your challenge
w        watch the chosen room's match (every board at the end)
i        join a private room by its invite code
r        refresh the list
t        tournaments: the list, register, watch, host one
d        the daily deal: today's deal for everyone, one attempt, standings,
         your streak, yesterday's deal against the field
h        your history of matches (and replays)
l        leaderboard (ratings per pace)
?        this help
q        quit"""
    BINDINGS: ClassVar[list[BindingType]] = [
        *BaseScreen.BINDINGS,
        # In the footer's order: what a newcomer looks for first fits 80 columns
        # (with "? Keys", which lists every key); the rest follows where there is room.
        Binding("n", "create", "New room"),
        Binding("v", "vs_bot", "Vs bot"),
        Binding("p", "quick_play", "Quick play"),
        Binding("d", "daily", "Daily"),
        Binding("t", "tournaments", "Tournaments"),
        Binding("h", "history", "History"),
        Binding("enter", "join", "Join", show=True),
        Binding("c", "challenge", "Challenge"),
        Binding("a", "answer", "Answer", show=False),
        Binding("x", "cancel", "Cancel", show=False),
        Binding("w", "watch", "Watch"),
        Binding("i", "invite", "Invite code"),
        Binding("r", "refresh", "Refresh"),
        Binding("l", "leaders", "Leaders"),
        Binding("q", "app.quit", "Quit"),
    ]

    def compose(self) -> ComposeResult:
        yield from self.compose_bar()
        yield Static("", id="lobby-status", classes="status")
        yield Static(Text("Open rooms", "bold"), classes="heading")
        yield DataTable(id="rooms", cursor_type="row", zebra_stripes=True)
        yield Static("", id="lobby-note", classes="note")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#rooms", DataTable)
        table.add_columns("room", "seats", "pace", "clock", "status", "created by", "id")
        self.set_interval(5, self.action_refresh)
        self.set_interval(0.5, self.show_status)

    def show_status(self) -> None:
        """Quick play and challenges under way, with their clocks."""
        model, now = self.model, self.crib.now()
        t = Text()
        queue = model.queue
        if queue is not None:
            spin = "◐◓◑◒"[queue.waited_s(now) % 4]
            t.append(f"{spin} quick play: ", "bold yellow")
            t.append(f"waiting for an opponent, {queue.waited_s(now)}s")
            t.append(f" ({match_terms(queue.pace, queue.deals, True)}")
            if queue.rating is not None:
                t.append(f", your rating {queue.rating}")
            if queue.bot_after_ms is not None:
                left = max(0, queue.bot_after_ms // 1000 - queue.waited_s(now))
                t.append(f", a bot in {left}s" if left else ", a bot is coming")
            t.append(")  ")
            t.append("x cancels", "dim")
        for offer in model.outgoing():
            if t:
                t.append("\n")
            t.append("⚔ challenge to ", "bold yellow")
            t.append(offer.other.name, "bold")
            t.append(f" ({offer.terms()}): waiting for an answer, ")
            t.append(f"{offer.clock.left_ms(now) // 1000}s left  ")
            t.append("x withdraws", "dim")
        for offer in model.incoming():
            if t:
                t.append("\n")
            t.append("⚔ ", "bold magenta")
            t.append(offer.other.name, "bold")
            t.append(f" challenges you ({offer.terms()}), ")
            t.append(f"{offer.clock.left_ms(now) // 1000}s to answer  ")
            t.append("a answers", "dim")
        for tid, view in model.tournaments.items():
            if view.over or not (model.entered(tid) or model.is_host(tid)):
                continue
            if t:
                t.append("\n")
            t.append("🏆 ", "bold yellow")
            t.append(view.info.name, "bold")
            t.append(": " + tt.round_text(view.info, view.round_left_ms(now),
                                          view.next_round_ms(now)))  # fmt: skip
            t.append("  t, then Enter, shows it", "dim")
        status = self.query_one("#lobby-status", Static)
        status.update(t)
        status.display = bool(t)

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        self.action_refresh()

    def show(self) -> None:
        super().show()
        table = self.query_one("#rooms", DataTable)
        rooms = self.model.rooms
        keep = table.cursor_row
        table.clear()
        for r in rooms:
            clock = (
                f"{r.card_clock_ms // 1000}s/card"
                if r.pace == Pace.LOCKSTEP
                else f"{r.deal_clock_ms // 1000}s/deal"
            )
            seats = Text(f"{r.taken}/{r.seats}", "green" if r.taken < r.seats else "red")
            status = Text(r.status.value, "green" if r.status == RoomStatus.WAITING else "yellow")
            table.add_row(
                Text(r.name), seats, r.pace.value, clock, status, Text(r.creator.name), Text(r.id),
                key=r.id,
            )  # fmt: skip
        if rooms:
            table.move_cursor(row=min(keep, len(rooms) - 1))
        note = self.query_one("#lobby-note", Static)
        if not rooms:
            note.update(
                Text(
                    "No open rooms. Press n to create one (1 seat plays solo), "
                    "p to quick play against someone of your level.",
                    "italic",
                )
            )
        else:
            note.update(Text(f"{len(rooms)} open room(s). Enter joins the chosen one.", "dim"))
        self.show_status()

    def action_refresh(self) -> None:
        self.crib.list_rooms()

    def _chosen(self) -> str | None:
        table = self.query_one("#rooms", DataTable)
        if not self.model.rooms or table.cursor_row < 0:
            self.crib.tell("no room chosen: press n to create one")
            return None
        row_key = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key
        return str(row_key.value) if row_key.value else None

    def action_join(self) -> None:
        if (room_id := self._chosen()) is not None:
            self.crib.join_room(room_id=room_id)

    def action_watch(self) -> None:
        if (room_id := self._chosen()) is not None:
            self.crib.watch_room(room_id)

    @on(DataTable.RowSelected, "#rooms")
    def row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value:
            self.crib.join_room(room_id=event.row_key.value)

    def action_create(self) -> None:
        def done(result: dict[str, Any] | None) -> None:
            if result:
                self.crib.create_room(result)

        self.app.push_screen(CreateRoomDialog(), done)

    def action_vs_bot(self) -> None:
        self.pick_level("Play against a bot", "starting a game against a bot", self.crib.vs_bot)

    def action_invite(self) -> None:
        def done(code: str | None) -> None:
            if code:
                self.crib.join_room(invite_code=code)

        self.app.push_screen(InviteDialog(), done)

    def action_quick_play(self) -> None:
        if self.model.queue is not None:
            self.crib.tell("already waiting for an opponent: x cancels")
            return

        def done(result: dict[str, Any] | None) -> None:
            if result:
                self.crib.quick_play(result)

        self.app.push_screen(QuickPlayDialog(self.model.bots), done)

    def action_challenge(self) -> None:
        def done(result: dict[str, Any] | None) -> None:
            if result:
                self.crib.challenge(result)

        self.app.push_screen(ChallengeDialog(), done)

    def action_answer(self) -> None:
        offers = self.model.incoming()
        if not offers:
            self.crib.tell("nobody is challenging you")
            return
        self.app.push_screen(ChallengePrompt(offers[0].info.id))

    def action_cancel(self) -> None:
        self.crib.cancel()

    def action_history(self) -> None:
        self.app.push_screen(HistoryScreen())

    def action_tournaments(self) -> None:
        self.app.push_screen(TournamentListScreen())

    def action_daily(self) -> None:
        self.app.push_screen(DailyScreen())

    def action_leaders(self) -> None:
        self.app.push_screen(LeaderboardScreen())
