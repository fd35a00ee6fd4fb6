"""The screens of the terminal client: sign-in, lobby, room, game, results,
history, replay, leaderboard, help and the small dialogs.

Screens read ``self.app.model`` (the client-side model) in :meth:`show`,
which the app calls after every change; actions go to the app, which sends
them to the server from a worker. No screen talks to the network itself.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical, VerticalScroll
from textual.coordinate import Coordinate
from textual.events import Key
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import (
    Button,
    Checkbox,
    DataTable,
    Footer,
    Input,
    Label,
    Static,
)

from client_cli import analysis as ana
from client_cli import history as hist
from client_cli import tournaments as tt
from client_cli.model import ClientModel, TournamentView, match_terms, rating_text, series_text
from client_cli.render import SUIT_GLYPH, card_text
from client_cli.session import SessionError
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
from client_cli.tui.widgets import (
    BoardView,
    CardPanel,
    ConnectionBar,
    EventLog,
    ProgressPanel,
    ResultBoard,
    cell_label,
)
from engine import parse_cell
from protocol.messages import BoardResult, LeaderboardEntry, Pace, RoomStatus

if TYPE_CHECKING:
    from client_cli.tui.app import CribApp

W = TypeVar("W", bound=Widget)


def _quiet(widget: W) -> W:
    """A widget that only shows things: it never takes the keys from the screen."""
    widget.can_focus = False
    return widget


class BaseScreen(Screen[None]):
    """A main screen: the connection bar on top, the keys at the bottom, help on ``?``."""

    TITLE = ""
    HELP = ""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", key_display="?"),
    ]

    @property
    def crib(self) -> CribApp:
        return self.app  # type: ignore[return-value]

    @property
    def model(self) -> ClientModel:
        return self.crib.model

    def compose_bar(self) -> ComposeResult:
        yield ConnectionBar(id="bar")

    def on_screen_resume(self) -> None:
        self.show()

    def show(self) -> None:
        """Redraw from the model; subclasses extend."""
        for bar in self.query(ConnectionBar):
            bar.show(self.model, self.TITLE)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.TITLE, self.HELP))

    def action_scroll_boards(self, dx: int, dy: int) -> None:
        """Scroll the side-by-side boards (results, replay) by columns and lines."""
        for boards in self.query(".boards").results(ScrollableContainer):
            boards.scroll_relative(x=dx, y=dy, animate=False)


BOARD_SCROLL: list[BindingType] = [
    Binding("up", "scroll_boards(0, -1)", "↑", show=False),
    Binding("down", "scroll_boards(0, 1)", "↓", show=False),
    Binding("pageup", "scroll_boards(0, -10)", "PgUp", show=False),
    Binding("pagedown", "scroll_boards(0, 10)", "PgDn", show=False),
    Binding("left_square_bracket", "scroll_boards(-48, 0)", "[", show=False),
    Binding("right_square_bracket", "scroll_boards(48, 0)", "]", show=False),
]


# ---------------------------------------------------------------------------
# Sign-in


class NameInput(Input):
    """The name field: "?" cannot be part of a name, so there it opens the help."""

    async def _on_key(self, event: Key) -> None:
        if event.character == "?":
            event.stop()
            event.prevent_default()
            await self.screen.run_action("help")
            return
        await super()._on_key(event)


class SignInScreen(BaseScreen):
    TITLE = "sign in"
    HELP = """\
Type the name you want to play under and press Enter.
The server gives this computer a token, kept in your config directory,
so next time you are signed in straight away.

? or F1  this help
Ctrl+Q   quit"""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "app.quit", "Quit"),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("f1", "help", "Help", show=False),
    ]

    def compose(self) -> ComposeResult:
        yield from self.compose_bar()
        with Vertical(id="signin"):
            yield Static(self._banner(), id="banner")
            yield Label("Your name:")
            yield NameInput(placeholder="letters, digits, spaces, . _ -", id="name", max_length=24)
            yield Static("", id="signin-status")
        yield Footer()

    def _banner(self) -> Text:
        t = Text("\n")
        for s in "SHDC":
            t.append(
                f" A{SUIT_GLYPH[s]} ", ("bold red" if s in "HD" else "bold black") + " on white"
            )
            t.append(" ")
        t.append("\n\nCribbage Squares\n", "bold")
        t.append("16 cards, a 4x4 grid, one starter. 61 wins.", "italic")
        return t

    def on_mount(self) -> None:
        name = self.crib.session.name
        if name:
            self.query_one("#name", Input).value = name

    def show(self) -> None:
        super().show()
        status = self.query_one("#signin-status", Static)
        note = self.crib.sign_in_error or ""
        conn = self.model.connection_note
        if note:
            status.update(Text(note, "bold red"))
        elif self.crib.connecting:
            status.update(Text(f"connecting to {self.model.server_url}… {conn}", "yellow"))
        else:
            status.update(Text(f"server: {self.model.server_url}", "dim"))

    @on(Input.Submitted, "#name")
    def submit(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        if not name:
            self.crib.sign_in_error = "type a name first"
        else:
            self.crib.sign_in(name)
        self.show()


# ---------------------------------------------------------------------------
# Lobby


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
i        join a private room by its invite code
r        refresh the list
t        tournaments: the list, register, watch, host one
h        your history of matches (and replays)
l        leaderboard (ratings per pace)
?        this help
q        quit"""
    BINDINGS: ClassVar[list[BindingType]] = [
        *BaseScreen.BINDINGS,
        Binding("n", "create", "New room"),
        Binding("v", "vs_bot", "Vs bot"),
        Binding("p", "quick_play", "Quick play"),
        Binding("c", "challenge", "Challenge"),
        Binding("a", "answer", "Answer", show=False),
        Binding("x", "cancel", "Cancel", show=False),
        Binding("enter", "join", "Join", show=True),
        Binding("i", "invite", "Invite code"),
        Binding("r", "refresh", "Refresh"),
        Binding("t", "tournaments", "Tournaments"),
        Binding("h", "history", "History"),
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
        model, now = self.model, time.monotonic()
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
                r.name, seats, r.pace.value, clock, status, r.creator.name, r.id, key=r.id
            )
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

    def action_join(self) -> None:
        table = self.query_one("#rooms", DataTable)
        if not self.model.rooms or table.cursor_row < 0:
            self.crib.tell("no room chosen: press n to create one")
            return
        row_key = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key
        if row_key.value:
            self.crib.join_room(room_id=row_key.value)

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
        self.crib.tell("starting a game against a bot…")
        self.crib.vs_bot()

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

        self.app.push_screen(QuickPlayDialog(), done)

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
        from client_cli.tui.tournaments import TournamentListScreen  # it builds on this module

        self.app.push_screen(TournamentListScreen())

    def action_leaders(self) -> None:
        self.app.push_screen(LeaderboardScreen())


class CreateRoomDialog(FormDialog[dict[str, Any]]):
    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("New room", "bold"), classes="title")
            with Horizontal(classes="field"):
                yield Label("Name")
                yield Input(value="Squares", id="room-name", max_length=40, compact=True)
            yield from number_field(
                "Seats", "room-seats", "1 plays solo, up to 8", value="2", max_length=1
            )
            with Horizontal(classes="field tall"):
                yield Label("Pace")
                yield from pace("room-pace")
            yield from clock_field("room-clock")
            with Horizontal(classes="field"):
                yield Label("Best of")
                yield from best_of("room-deals")
            with Horizontal(classes="field"):
                yield Label("")
                yield Checkbox("private: join by invite code only", id="room-private", compact=True)
            with Horizontal(classes="field"):
                yield Label("")
                yield Checkbox(
                    "rated: 2 seats, moves both players' ratings", id="room-rated", compact=True
                )
            yield from self.compose_buttons("Create")

    def _value(self) -> dict[str, Any] | None:
        name = self.query_one("#room-name", Input).value.strip()
        seats_text = self.query_one("#room-seats", Input).value.strip() or "2"
        clock_text = self.query_one("#room-clock", Input).value.strip() or "30"
        if not name:
            self.refuse("the room needs a name")
            return None
        seats = int(seats_text)
        if not 1 <= seats <= 8:
            self.refuse("seats: 1 to 8")
            return None
        race = is_race(self, "room-pace")
        seconds = int(clock_text)
        if (why := clock_refusal(race, seconds)) is not None:
            self.refuse(why)
            return None
        rated = self.query_one("#room-rated", Checkbox).value
        if rated and seats != 2:
            self.refuse("a rated room has 2 seats")
            return None
        return {
            "name": name,
            "seats": seats,
            "pace": "race" if race else "lockstep",
            "visibility": "private"
            if self.query_one("#room-private", Checkbox).value
            else "public",
            "deals": best_of_value(self, "room-deals"),
            "rated": rated,
            **clock_terms(race, seconds),
        }


class InviteDialog(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("Join a private room", "bold"), classes="title")
            with Horizontal(classes="field"):
                yield Label("Code")
                yield Input(
                    id="invite-code",
                    max_length=32,
                    compact=True,
                    placeholder="invite code (or a room id)",
                )
            with Horizontal(classes="buttons"):
                yield Button("Join", variant="primary", id="join", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    @on(Button.Pressed, "#join")
    @on(Input.Submitted)
    def join(self) -> None:
        code = self.query_one("#invite-code", Input).value.strip()
        self.dismiss(code or None)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class QuickPlayDialog(FormDialog[dict[str, Any]]):
    """Quick play: pace, best of, and whether to take a bot after a wait."""

    SUBMIT = "play"

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("Quick play", "bold"), classes="title")
            yield Static(
                Text(
                    "A rated head-to-head match against a waiting player of close rating; "
                    "the match starts as soon as you are paired.",
                    "dim",
                ),
                classes="hint-line",
            )
            with Horizontal(classes="field tall"):
                yield Label("Pace")
                yield from pace("qp-pace")
            with Horizontal(classes="field"):
                yield Label("Best of")
                yield from best_of("qp-deals")
            yield from number_field(
                "Bot", "qp-bot", "seconds, then a bot (casual); empty: never",
                max_length=3, placeholder="-",
            )  # fmt: skip
            yield from self.compose_buttons("Play")

    def on_mount(self) -> None:
        self.query_one("#play", Button).focus()  # Enter plays at once with the defaults

    def _value(self) -> dict[str, Any] | None:
        value: dict[str, Any] = {
            "pace": "race" if is_race(self, "qp-pace") else "lockstep",
            "deals": best_of_value(self, "qp-deals"),
        }
        bot = self.query_one("#qp-bot", Input).value.strip()
        if bot:
            seconds = int(bot)
            if not 0 <= seconds <= 600:
                self.refuse("a bot after 0 to 600 seconds, or empty for never")
                return None
            value["bot_after_ms"] = seconds * 1000
        return value


class ChallengeDialog(FormDialog[dict[str, Any]]):
    """Challenge a player who is online, by name, on chosen terms."""

    SUBMIT = "send"

    def __init__(self, opponent: str = "") -> None:
        super().__init__()
        self.opponent = opponent

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("Challenge a player", "bold"), classes="title")
            with Horizontal(classes="field"):
                yield Label("Player")
                yield Input(
                    value=self.opponent, id="ch-name", max_length=24, compact=True,
                    placeholder="the name of a player who is online",
                )  # fmt: skip
            with Horizontal(classes="field tall"):
                yield Label("Pace")
                yield from pace("ch-pace")
            with Horizontal(classes="field"):
                yield Label("Best of")
                yield from best_of("ch-deals")
            yield from clock_field("ch-clock")
            with Horizontal(classes="field"):
                yield Label("")
                yield Checkbox("rated", value=True, id="ch-rated", compact=True)
            yield from self.compose_buttons("Challenge")

    def _value(self) -> dict[str, Any] | None:
        name = self.query_one("#ch-name", Input).value.strip()
        if not name:
            self.refuse("whom? type a player's name")
            return None
        race = is_race(self, "ch-pace")
        seconds = int(self.query_one("#ch-clock", Input).value.strip() or "30")
        if (why := clock_refusal(race, seconds)) is not None:
            self.refuse(why)
            return None
        return {
            "opponent": name,
            "pace": "race" if race else "lockstep",
            "deals": best_of_value(self, "ch-deals"),
            "rated": self.query_one("#ch-rated", Checkbox).value,
            **clock_terms(race, seconds),
        }


class ChallengePrompt(ModalScreen[None]):
    """A challenge made to this player: accept or decline before it expires."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Accept"),
        Binding("n", "answer(False)", "Decline"),
        Binding("escape", "later", "Later"),
    ]

    def __init__(self, challenge_id: str) -> None:
        super().__init__()
        self.challenge_id = challenge_id

    @property
    def crib(self) -> CribApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text("Challenge", "bold"), classes="title")
            yield Static("", id="prompt-body")
            with Horizontal(classes="buttons"):
                yield Button("Accept (y)", variant="primary", id="accept", compact=True)
                yield Button("Decline (n)", id="decline", compact=True)
                yield Button("Later (Esc)", id="later", compact=True)

    def on_mount(self) -> None:
        self.set_interval(0.25, self.tick)
        self.tick()

    def tick(self) -> None:
        offer = self.crib.model.challenges.get(self.challenge_id)
        if offer is None:  # answered, withdrawn or expired: the notice says which
            self.dismiss(None)
            return
        left = offer.clock.left_ms(time.monotonic())
        body = Text()
        body.append(offer.other.name, "bold")
        body.append(" challenges you to a match:\n")
        body.append(offer.terms(), "bold cyan")
        body.append("\n\n")
        body.append(f"⏱ {left // 1000}s", "bold red" if left <= 10_000 else "bold")
        body.append(" to answer", "dim")
        self.query_one("#prompt-body", Static).update(body)

    @on(Button.Pressed, "#accept")
    def accept(self) -> None:
        self.action_answer(True)

    @on(Button.Pressed, "#decline")
    def decline(self) -> None:
        self.action_answer(False)

    @on(Button.Pressed, "#later")
    def action_later(self) -> None:
        self.dismiss(None)

    def action_answer(self, accept: bool) -> None:
        self.crib.answer_challenge(self.challenge_id, accept)
        self.dismiss(None)


# ---------------------------------------------------------------------------
# Room


class RoomScreen(BaseScreen):
    TITLE = "room"
    HELP = """\
The room before the match: who is seated and who is ready.
The match starts when every seat is taken and everyone is ready,
or when the room's creator starts it.

Space / r   toggle ready
s           start the match now (creator only)
b           fill an empty seat with a bot (creator only)
Escape      leave the room
?           this help"""
    BINDINGS: ClassVar[list[BindingType]] = [
        *BaseScreen.BINDINGS,
        Binding("space", "ready", "Ready"),
        Binding("r", "ready", "Ready", show=False),
        Binding("s", "start", "Start"),
        Binding("b", "bot", "Add bot"),
        Binding("escape", "leave", "Leave"),
    ]

    def compose(self) -> ComposeResult:
        yield from self.compose_bar()
        yield Static("", id="room-head", classes="heading")
        yield _quiet(DataTable(id="seats", cursor_type="none", zebra_stripes=True))
        yield Static("", id="room-note", classes="note")
        yield EventLog(id="room-log")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#seats", DataTable).add_columns("seat", "player", "ready", "connection")
        self.query_one("#room-log", EventLog).show(self.crib.log_lines)

    def show(self) -> None:
        super().show()
        room = self.model.room
        if room is None:
            return
        head = Text()
        head.append(room.name, "bold")
        head.append(f"   {room.visibility.value}, {room.pace.value}, ")
        clock = (
            f"{room.card_clock_ms // 1000}s per card"
            if room.pace == Pace.LOCKSTEP
            else f"{room.deal_clock_ms // 1000}s per deal"
        )
        head.append(clock)
        if room.deals > 1 or room.rated:
            head.append(f", {'best of ' + str(room.deals) if room.deals > 1 else 'one deal'}")
            head.append(", rated" if room.rated else ", casual", "bold" if room.rated else "")
        head.append(f"   id {room.id}", "dim")
        if room.invite_code:
            head.append("\ninvite code: ", "bold")
            head.append(room.invite_code, "bold yellow")
        self.query_one("#room-head", Static).update(head)
        table = self.query_one("#seats", DataTable)
        table.clear()
        for s in sorted(room.players, key=lambda s: s.seat):
            me = self.model.me is not None and s.player.id == self.model.me.id
            name = s.player.name + (" (you)" if me else "") + (" [bot]" if s.player.bot else "")
            if s.player.id == room.creator.id:
                name += " ★"
            table.add_row(
                str(s.seat + 1),  # seats are 0-based on the wire, 1-based for people
                Text(name, "bold" if me else ""),
                Text("✔ ready", "green") if s.ready else Text("· not ready", "dim"),
                Text("online", "green") if s.connected else Text("disconnected", "bold red"),
            )
        for _ in range(room.seats - len(room.players)):
            table.add_row("", Text("(empty seat)", "dim"), "", "")
        note = Text()
        if self.model.match is not None and self.model.match.result is not None:
            note.append("The last match is over. ", "italic")
        if self.model.am_ready():
            note.append("You are ready. ", "green")
        else:
            note.append("Press Space when you are ready. ", "bold")
        if self.model.is_creator:
            note.append("You created this room: s starts the match now, b adds a bot.")
        else:
            note.append(f"{room.creator.name} can start the match.")
        self.query_one("#room-note", Static).update(note)

    def log_line(self, line: str) -> None:
        for log in self.query("#room-log").results(EventLog):
            log.show(self.crib.log_lines)

    def action_ready(self) -> None:
        self.crib.set_ready(not self.model.am_ready())

    def action_start(self) -> None:
        if not self.model.is_creator:
            self.crib.tell("only the room's creator can start the match; press Space to be ready")
            return
        self.crib.start_match()

    def action_bot(self) -> None:
        if not self.model.is_creator:
            self.crib.tell("only the room's creator can add a bot")
            return
        self.crib.add_bot()

    def action_leave(self) -> None:
        self.crib.leave_room()


# ---------------------------------------------------------------------------
# Game


class GameScreen(BaseScreen):
    TITLE = "match"
    HELP = """\
Place each card on your 4x4 grid. After the first, a card must go in an
empty cell touching a filled one (across, down or diagonally); legal cells
are outlined in green and show their names.

← ↑ → ↓       move the cursor
Enter/Space   place the card under the cursor
a-d then 1-4  place by cell name (b3 = column b, row 3)
mouse         click a cell to place the card there
Escape        clear a half-typed cell name
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
        Binding("escape", "clear", "Clear typing", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.typed = ""
        self.match_id: str | None = None
        self.note = ""

    def compose(self) -> ComposeResult:
        yield from self.compose_bar()
        with Horizontal(id="game"):
            with Vertical(id="board-pane"):
                yield BoardView(id="board")
                yield Static("", id="game-note", classes="note")
            with Vertical(id="side"):
                yield Static("", id="game-tournament", classes="heading")
                yield CardPanel(id="card")
                yield Static(Text("Players", "bold"), classes="heading")
                yield ProgressPanel(id="progress")
                yield EventLog(id="game-log")
        yield Footer()

    def on_mount(self) -> None:
        self.set_interval(0.25, self.tick)
        self.query_one("#game-log", EventLog).show(self.crib.log_lines)

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
        board.set_board(match.cells, legal, last)
        if legal and board.cursor not in legal and match.placed_count > 0:
            board.cursor = min(
                legal, key=lambda i: abs(i // 4 - board.cursor // 4) + abs(i % 4 - board.cursor % 4)
            )
        self.query_one("#progress", ProgressPanel).show(self.model.progress_rows())
        self._show_tournament()
        self.tick()
        self._show_note()

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

    def tick(self) -> None:
        match = self.model.match
        if match is None:
            return
        left = match.clock.left_ms(time.monotonic()) if match.clock else None
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
        elif not self.typed:
            t.append("arrows + Enter, type a cell (b3) or click a green cell", "dim")
        self.query_one("#game-note", Static).update(t)

    def log_line(self, line: str) -> None:
        for log in self.query("#game-log").results(EventLog):
            log.show(self.crib.log_lines)

    def refuse(self, reason: str) -> None:
        self.note = f"✖ {reason}"
        self._show_note()

    def action_move(self, drow: int, dcol: int) -> None:
        self.query_one("#board", BoardView).move(drow, dcol)
        self.note = ""
        self._show_note()

    def action_place(self) -> None:
        self.place(cell_label(self.query_one("#board", BoardView).cursor))

    def action_clear(self) -> None:
        self.typed, self.note = "", ""
        self._show_note()

    def place(self, cell: str) -> None:
        reason = self.model.why_not(cell)
        if reason is not None:
            self.refuse(reason)
            return
        self.note = ""
        self._show_note()
        self.crib.place(cell)

    def on_key(self, event: Key) -> None:
        char = (event.character or "").lower()
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
            self.place(cell)
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
        self.place(cell_label(event.index))


# ---------------------------------------------------------------------------
# Results


class ResultsScreen(BaseScreen):
    TITLE = "results"
    HELP = """\
Every board, revealed with the starter: each row and column scored as a
cribbage hand (fifteens, pairs, runs, flush, nobs), heels when the starter
is a jack, the total, the ranking and the wins (61 or more).

The ✔ mark says the client checked the deal itself: the revealed seed
matches the commitment published before the first card, comes from the
server's secret and every player's contribution, and deals exactly the
cards you received and the starter.

← → [ ] ↑ ↓ PgUp PgDn   scroll the boards
In a series (best of 3 or 5) the score of the series is on top and the next
deal starts by itself after a few seconds; at the end, the winner and, in a
rated match, how your rating moved.

← → [ ] ↑ ↓ PgUp PgDn   scroll the boards
p              replay this match placement by placement
a              analyse your board: the best board in hindsight and
               what each move cost against the expert bot
r              rematch: offer one, or accept your opponent's (again: withdraw);
               it starts when every player wants it
Enter/Escape   leave the room, back to the lobby (a tournament's table: back
               to the tournament; during a series: twice, since leaving
               forfeits it)
?              this help"""
    BINDINGS: ClassVar[list[BindingType]] = [
        *BaseScreen.BINDINGS,
        Binding("p", "replay", "Replay"),
        Binding("a", "analyse", "Analyse"),
        Binding("r", "rematch", "Rematch"),
        Binding("enter", "leave", "Lobby"),
        Binding("escape", "leave", "Lobby", show=False),
        Binding("left", "scroll_boards(-48, 0)", "←", show=False),
        Binding("right", "scroll_boards(48, 0)", "→", show=False),
        *BOARD_SCROLL,
    ]

    def __init__(self) -> None:
        super().__init__()
        self.shown: str | None = None
        self.leaving = False  # Enter pressed once during a series: press again to forfeit

    def compose(self) -> ComposeResult:
        yield from self.compose_bar()
        yield Static("", id="results-head", classes="heading")
        yield Static("", id="results-series", classes="heading")
        yield ScrollableContainer(id="boards", classes="boards", can_focus=False)
        yield Footer()

    def show(self) -> None:
        super().show()
        match = self.model.match
        if match is None or match.result is None:
            return
        result = match.result
        head = Text()
        head.append("Starter ", "bold")
        head.append_text(card_text(result.starter, width=0))
        me = self.model.me
        mine = next((b for b in result.boards if me and b.player.id == me.id), None)
        if mine is not None:
            head.append(f"    you: #{mine.rank}, {mine.score.total} points", "bold cyan")
            if mine.score.win:
                head.append("  — a WIN (61+)", "bold green")
        v = match.verification
        head.append("\n")
        if v is not None and v.ok:
            head.append("✔ deal verified", "bold green")
            head.append(
                f"  seed {result.seed[:16]}… matches commitment {result.seed_commitment[:16]}…",
                "dim",
            )
        elif v is not None:
            head.append(f"✖ {v.summary}", "bold red")
        self.query_one("#results-head", Static).update(head)
        self.show_series()
        if self.shown == result.match_id:
            return
        self.shown = result.match_id
        self.leaving = False
        boards = self.query_one("#boards", ScrollableContainer)
        boards.remove_children()
        views = []
        for board in result.boards:
            view = ResultBoard()
            views.append((view, board))
        boards.mount_all([v for v, _ in views])
        for view, board in views:
            view.show(board, me is not None and board.player.id == me.id)

    def on_mount(self) -> None:
        self.set_interval(0.5, self.show_series)

    def show_series(self) -> None:
        """The series, the rating change and the rematch: the lines that move by themselves."""
        model = self.model
        t = Text()
        series = model.series
        if series is not None and series.best_of > 1:
            style = "bold green" if series.finished else "bold yellow"
            t.append(series_text(series, model.me, model.next_in_ms(time.monotonic())), style)
        change = model.my_rating_change()
        if change is not None:
            if t:
                t.append("\n")
            up = change.after >= change.before
            t.append(f"your {rating_text(change)}", "bold green" if up else "bold red")
        room = model.room
        tournament = model.tournament_for_room()
        if tournament is not None:
            if t:
                t.append("\n")
            t.append_text(self._tournament_line(tournament))
        elif room is not None and model.series_over() and model.match is not None:
            wanted, others = model.rematch_state()
            seated = [s.player for s in room.players if not model.me or s.player.id != model.me.id]
            waiting = [p.name for p in seated if p not in others and not p.bot]
            if t:
                t.append("\n")
            if wanted and waiting:
                t.append(f"You asked for a rematch: waiting for {', '.join(waiting)}", "cyan")
                t.append("  (r withdraws)", "dim")
            elif wanted:
                t.append("Rematch: starting…", "cyan")
            elif others:
                names = ", ".join(p.name for p in others)
                verb = "wants" if len(others) == 1 else "want"
                t.append(f"{names} {verb} a rematch", "bold cyan")
                t.append("  r accepts", "bold")
            else:
                t.append("r offers a rematch, Enter goes back to the lobby", "dim")
        if self.leaving:
            if t:
                t.append("\n")
            t.append(
                "Leaving now forfeits the series: Enter again to leave, an arrow to stay",
                "bold red",
            )
        target = self.query_one("#results-series", Static)
        target.update(t)
        target.display = bool(t)

    def _tournament_line(self, view: TournamentView) -> Text:
        """Where this table's tournament stands, and the way back to it."""
        info, now = view.info, time.monotonic()
        me = self.model.me.id if self.model.me else None
        t = Text()
        t.append(f"🏆 {info.name}: ", "bold")
        t.append(tt.round_text(info, view.round_left_ms(now), view.next_round_ms(now)))
        mine = view.standing(me)
        if mine is not None:
            t.append(f"; you are #{mine.rank} of {len(info.standings)}", "bold cyan")
        if self.model.series_over():
            t.append("   Enter: back to the tournament's standings", "dim")
        return t

    def action_leave(self) -> None:
        if not self.model.series_over() and not self.leaving:
            self.leaving = True
            self.show_series()
            return
        self.crib.leave_room()

    def action_rematch(self) -> None:
        self.leaving = False
        self.crib.rematch()
        self.show_series()

    def action_scroll_boards(self, dx: int, dy: int) -> None:
        if self.leaving:
            self.leaving = False
            self.show_series()
        super().action_scroll_boards(dx, dy)

    def action_replay(self) -> None:
        match = self.model.match
        if match is None or match.result is None:
            return
        r = match.result
        replay = hist.Replay(r.match_id, r.starter, tuple(r.boards), r.seed, r.seed_commitment)
        self.app.push_screen(ReplayScreen(replay=replay))

    def action_analyse(self) -> None:
        match = self.model.match
        if match is None or match.result is None:
            return
        r = match.result
        board = ana.board_of(r.boards, self.model.me.id if self.model.me else None)
        if board is not None:
            self.app.push_screen(AnalysisScreen(r.match_id, r.starter, board))


# ---------------------------------------------------------------------------
# History, replay, leaderboard, help


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
                m.when[:19], m.room, str(m.players or "-"), rank, score, m.match_id, key=m.match_id
            )
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


class AnalysisScreen(BaseScreen):
    TITLE = "analysis"
    DEFAULT_CSS = "#analysis-body { padding: 0 1; }"
    HELP = """\
One board of a finished match, analysed after the fact.

Left, the board as played and its score; right, the hindsight best board:
the highest-scoring board reachable under the touch rule, in the order the
cards came, knowing all 17 cards. "proved optimal" when the search could
prove it, else the best found within the search's budget.

Below, every move: the card, the cell played, the cell the expert bot would
have chosen, and the expected points the move lost by the expert's
estimates (from what you knew then, not from the future). The costliest
moves are marked.

↑ ↓ PgUp PgDn   scroll
Escape          back"""
    BINDINGS: ClassVar[list[BindingType]] = [
        *BaseScreen.BINDINGS,
        Binding("escape", "app.pop_screen", "Back"),
    ]

    def __init__(self, match_id: str, starter: str, board: BoardResult) -> None:
        super().__init__()
        self.match_id = match_id
        self.starter = starter
        self.board = board
        self.analysis: ana.BoardAnalysis | None = None

    def compose(self) -> ComposeResult:
        yield from self.compose_bar()
        yield Static("", id="analysis-head", classes="heading")
        yield VerticalScroll(Static("", id="analysis-body"), id="analysis-scroll")
        yield Footer()

    def on_mount(self) -> None:
        head = Text(f"Match {self.match_id}: analysis of the board of {self.board.player.name}")
        head.stylize("bold")
        self.query_one("#analysis-head", Static).update(head)
        self.query_one("#analysis-body", Static).update(
            Text("analysing… (a few seconds: the expert weighs every move)", "italic")
        )
        self.query_one("#analysis-scroll").focus()
        self.crib.analyse(self.match_id, self.starter, self.board, self._analysed)

    def _analysed(self, found: ana.BoardAnalysis | None) -> None:
        self.analysis = found
        if not self.is_mounted:
            return
        body = self.query_one("#analysis-body", Static)
        if found is None:
            body.update(Text("✖ this board cannot be analysed", "bold red"))
            return
        body.update(Text("\n").join(ana.analysis_lines(found)))


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


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.pop_screen", "Close"),
        Binding("question_mark", "app.pop_screen", "Close", show=False),
        Binding("q", "app.pop_screen", "Close", show=False),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog help"):
            yield Static(Text(f"Help: {self.title_text}", "bold"))
            yield Static(self.text)
            yield Static(Text("\nCtrl+Q quits from anywhere. Escape closes this help.", "dim"))
