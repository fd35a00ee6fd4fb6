"""The full-screen terminal client (Textual).

:class:`CribApp` owns the client-side model and the network session. The
session runs in a ``@work`` worker on the app's event loop; every server
message is folded into the model, then the screen the model calls for is
shown and redrawn. Requests to the server are sent from short workers too,
so no key press ever waits on the network.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ValidationError
from textual import work
from textual.app import App
from textual.binding import Binding, BindingType

from client_cli import analysis as ana
from client_cli import daily as daily_text
from client_cli.config import TokenStore
from client_cli.flood import is_drop_notice
from client_cli.levels import picked
from client_cli.model.state import ClientModel
from client_cli.model.views import Connection, View
from client_cli.safe import visible
from client_cli.session import Session, SessionError, SignInRefused, add_bot, start_vs_bot
from client_cli.tui.crib import Crib
from client_cli.tui.keys import MOVE_IN_ORDER
from client_cli.tui.screens.base import BaseScreen
from client_cli.tui.screens.challenge_prompt import ChallengePrompt
from client_cli.tui.screens.game import GameScreen
from client_cli.tui.screens.lobby import LobbyScreen
from client_cli.tui.screens.results import ResultsScreen
from client_cli.tui.screens.room import RoomScreen
from client_cli.tui.screens.sign_in import SignInScreen
from client_cli.tui.screens.tournament import TournamentScreen
from engine.errors import EngineError
from protocol.connection import ErrorMessage, Welcome
from protocol.daily import Daily, GetDaily, PlayDaily
from protocol.deals import BoardResult, MatchStarted, Place
from protocol.fields import Pace
from protocol.head_to_head import (
    AnswerChallenge,
    CancelQuickPlay,
    Challenge,
    ChallengeUpdate,
    GetLeaderboard,
    ListBots,
    QuickPlay,
)
from protocol.rooms import (
    CreateRoom,
    JoinRoom,
    LeaveRoom,
    ListRooms,
    Ready,
    Rematch,
    RoomStatus,
    StartMatch,
)
from protocol.tournaments import (
    AddTournamentBot,
    CreateTournament,
    GetTournament,
    JoinTournament,
    LeaveTournament,
    ListTournaments,
    ManageTournament,
    TournamentUpdate,
)
from protocol.wire import ServerMessage


class CribApp(App[int]):
    CSS_PATH = "cribsquares.tcss"
    TITLE = "Cribbage Squares"
    # A screen of 110x34 or more is "-wide -tall": the board is drawn large, each row
    # and column with its points so far (cribsquares.tcss, widgets.BoardView).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]  # noqa: RUF012 (as App has it)
    VERTICAL_BREAKPOINTS = [(0, "-short"), (34, "-tall")]  # noqa: RUF012
    ENABLE_COMMAND_PALETTE = False
    MODES: ClassVar[dict[str, Any]] = {
        View.SIGN_IN.value: SignInScreen,
        View.LOBBY.value: LobbyScreen,
        View.ROOM.value: RoomScreen,
        View.GAME.value: GameScreen,
        View.RESULTS.value: ResultsScreen,
        View.TOURNAMENT.value: TournamentScreen,
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
        *MOVE_IN_ORDER,  # every screen's fields, the sign-in's too (tui.keys)
    ]

    def __init__(
        self,
        url: str,
        *,
        name: str | None = None,
        guest: bool = False,
        store: TokenStore | None = None,
        vs_bot: str | None = None,
        quickplay: dict[str, Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        # Every clock the player sees counts on this one (a test gives one it moves).
        self._clock = clock
        # A game against a bot to start once signed in ("": the strongest bot).
        self.pending_vs_bot = vs_bot
        # Quick play to ask for once signed in: the QuickPlay fields.
        self.pending_quickplay = quickplay
        # Incoming challenges already put to the player (a prompt is shown once).
        self.prompted: set[str] = set()
        # Analyses already made, by (match id, player id): they take seconds.
        self.analyses: dict[tuple[str, str], ana.BoardAnalysis] = {}
        self.model = ClientModel(url)
        self.store = store if store is not None else TokenStore()
        self.session = Session(
            url,
            name=name,
            guest=guest,
            store=self.store,
            listener=self.on_server_message,
            status=self.on_connection,
            resume_room=lambda: self.model.room.id if self.model.room else None,
        )
        self.model.server_url = self.session.url
        self.log_lines: list[str] = []
        self.log_count = 0  # lines ever logged (the list keeps the last 500)
        self.match_log_from = 0  # log_count when the current match started
        self.sign_in_error: str | None = None
        self.connecting = False
        self.quiet_refs: set[str] = set()

    # -- lifecycle -----------------------------------------------------------

    def on_mount(self) -> None:
        self.switch_mode(View.SIGN_IN.value)
        if self.session.name or self.session.guest or self.store.get(self.session.url):
            self.sign_in(self.session.name)

    def sign_in(self, name: str | None) -> None:
        self.session.name = name
        self.sign_in_error = None
        self.connecting = True
        self.run_session()

    @work(exclusive=True, group="session", exit_on_error=False)
    async def run_session(self) -> None:
        try:
            await self.session.run()
        except SessionError as exc:
            self.sign_in_error = str(exc)
            self.model.me = None
            refused = isinstance(exc, SignInRefused)
            self.model.set_connection(
                Connection.REFUSED if refused else Connection.OFFLINE, str(exc)
            )
        finally:
            self.connecting = False
            self.refresh_views()

    async def action_quit(self) -> None:
        await self.session.close()
        self.exit(0)

    # -- model updates -------------------------------------------------------

    def on_server_message(self, msg: ServerMessage) -> None:
        if isinstance(msg, ErrorMessage) and (
            msg.ref in self.quiet_refs or msg.code == "unknown_strategy"
        ):
            self.quiet_refs.discard(msg.ref or "")
            return
        if isinstance(msg, Welcome) and self.model.bots is None:
            self.send(ListBots(), quiet=True)  # the levels, to show with their ratings
        before = self.model.match.match_id if self.model.match else None
        lines = self.model.apply(msg, self.now())
        if isinstance(msg, MatchStarted) and msg.match_id != before:
            self.match_log_from = self.log_count  # a fresh log for each match
        try:
            if isinstance(msg, ErrorMessage) and not is_drop_notice(msg):
                self.refused(msg.reason)  # a drop notice: the session's note says it
            elif isinstance(msg, ChallengeUpdate) and msg.state != "offered":
                self.tell(lines[0] if lines else f"challenge {msg.state}")
            self._show_log(lines)
            self.refresh_views()
        except Exception as exc:  # a drawing bug must not cost the connection
            self.log.error(f"redraw failed on {msg.type}: {exc!r}")
            self._notice(f"display problem: {exc}", severity="error")

    def on_connection(self, state: Connection, note: str) -> None:
        was = self.model.connection
        lines = self.model.set_connection(state, note)
        # One toast when the line drops; the top bar and the log follow the retries.
        if state == Connection.RECONNECTING and was == Connection.ONLINE:
            self._notice(
                f"Connection lost: {note or 'reconnecting'}", severity="warning", timeout=3
            )
        elif state == Connection.ONLINE and was == Connection.RECONNECTING:
            self._notice("Reconnected", timeout=3)
        elif state == Connection.ONLINE and note:
            # Moved to the room's server node, or the server drops frames: one line.
            self._notice(note, timeout=4)
        self._show_log(lines)
        self.refresh_views()

    def _show_log(self, lines: list[str]) -> None:
        lines = [visible(line) for line in lines]
        self.log_lines += lines
        self.log_count += len(lines)
        del self.log_lines[:-500]
        screen = self.screen
        writer = getattr(screen, "log_line", None)
        if writer is not None:
            for line in lines:
                writer(line)

    def match_log(self) -> list[str]:
        """The log since the current match started (its match_started line first)."""
        since = min(self.log_count - self.match_log_from, len(self.log_lines))
        return self.log_lines[-since:] if since > 0 else []

    def refresh_views(self) -> None:
        """Show the screen the model calls for, and redraw it."""
        view = self.model.view
        if view == View.LOBBY and self.pending_vs_bot is not None:
            strategy, self.pending_vs_bot = self.pending_vs_bot, None
            self.vs_bot(strategy or None)
        if view == View.LOBBY and self.pending_quickplay is not None:
            fields, self.pending_quickplay = self.pending_quickplay, None
            self.quick_play(fields)
        if view.value != self.current_mode:
            # Dialogs and overlays belong to the view being left.
            while len(self.screen_stack) > 1:
                self.pop_screen()
            self.switch_mode(view.value)
            return  # the new screen draws itself on resume
        for screen in self.screen_stack:
            if isinstance(screen, BaseScreen) and screen.is_mounted:
                screen.show()
        self._put_challenges(view)

    def _put_challenges(self, view: View) -> None:
        """An incoming challenge is put to the player in the lobby; elsewhere, a notice."""
        for offer in self.model.incoming():
            cid = offer.info.id
            if cid in self.prompted:
                continue
            self.prompted.add(cid)
            if view == View.LOBBY:
                self.push_screen(ChallengePrompt(cid))
            else:
                self._notice(
                    f"{offer.other.name} challenges you ({offer.terms()}): "
                    "answer in the lobby (a) within "
                    f"{offer.clock.left_ms(self.now()) // 1000}s",
                    title="Challenge",
                    timeout=8,
                )

    def _notice(self, text: str, **kwargs: Any) -> None:
        """A toast: its text shown as written (no markup), nothing in it obeyed."""
        self.notify(visible(text), markup=False, **kwargs)

    def now(self) -> float:
        """The client's clock, in seconds: what every countdown on the screen counts on."""
        return self._clock()

    def tell(self, text: str) -> None:
        self._notice(text, timeout=4)

    def refused(self, reason: str) -> None:
        screen = self.screen
        if isinstance(screen, GameScreen):
            screen.refuse(reason)
        self._notice(reason, title="Refused", severity="error", timeout=5)

    # -- requests ------------------------------------------------------------

    @work(group="requests", exit_on_error=False)
    async def send(self, msg: BaseModel, quiet: bool = False) -> None:
        try:
            ref = await self.session.send(msg)
        except SessionError as exc:
            if not quiet:
                self.refused(str(exc))
            return
        if quiet:
            self.quiet_refs.add(ref)

    def _build(self, cls: type[BaseModel], **fields: Any) -> BaseModel | None:
        try:
            return cls(**fields)
        except ValidationError as exc:
            first = exc.errors()[0]
            self.refused(f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}")
            return None

    def _contribution(self) -> str:
        return self.model.new_contribution()

    def list_rooms(self) -> None:
        if self.session.connected:
            self.send(ListRooms())

    def create_room(self, fields: dict[str, Any]) -> None:
        msg = self._build(CreateRoom, contribution=self._contribution(), **fields)
        if msg is not None:
            self.send(msg)

    def join_room(self, *, room_id: str | None = None, invite_code: str | None = None) -> None:
        if invite_code is not None:
            self._join_code(invite_code)
            return
        msg = self._build(JoinRoom, room_id=room_id, contribution=self._contribution())
        if msg is not None:
            self.send(msg)

    @work(group="requests", exit_on_error=False)
    async def _join_code(self, code: str) -> None:
        # An invite code first; if no room has it, the text may be a room id.
        try:
            reply = await self.session.request(
                JoinRoom(invite_code=code, contribution=self._contribution())
            )
            if isinstance(reply, ErrorMessage) and reply.code == "room_not_found":
                await self.session.request(
                    JoinRoom(room_id=code, contribution=self._contribution())
                )
        except (SessionError, ValidationError) as exc:
            self.refused(str(exc))

    def watch_room(self, room_id: str) -> None:
        """Watch a room's match without a seat: its progress, every board at the end."""
        if self.model.room is not None:
            self.tell("leave this room first")
            return
        self.send(JoinRoom(room_id=room_id, spectate=True))

    def _room_id(self) -> str | None:
        return self.model.room.id if self.model.room else None

    def set_ready(self, ready: bool) -> None:
        if (room := self._room_id()) is not None:
            self.send(Ready(room_id=room, ready=ready))

    def start_match(self) -> None:
        if (room := self._room_id()) is not None:
            self.send(StartMatch(room_id=room))

    @work(group="requests", exit_on_error=False)
    async def add_bot(self, strategy: str | None = None) -> None:
        room = self._room_id()
        if room is None:
            return
        try:
            await add_bot(self.session, room, strategy)
        except SessionError as exc:
            self.refused(str(exc))

    @work(exclusive=True, group="vs-bot", exit_on_error=False)
    async def vs_bot(self, strategy: str | None = None) -> None:
        """A new 2-seat room with a bot in it, started: the game screen follows."""
        if self.model.room is not None:
            self.tell("leave this room first")
            return
        me = self.model.me.name if self.model.me else "you"
        try:
            await start_vs_bot(self.session, me, self._contribution(), strategy)
        except SessionError as exc:
            text = str(exc)
            # The server's refusals are shown as they arrive, except an unknown strategy.
            if not text.startswith("refused: ") or strategy is not None:
                self.refused(text.removeprefix("refused: "))

    # -- analysis ------------------------------------------------------------

    def analyse(
        self,
        match_id: str,
        starter: str,
        board: BoardResult,
        done: Callable[[ana.BoardAnalysis | None], None],
    ) -> None:
        """Analyse ``board`` (once per match and player) and hand the result to ``done``."""
        self._analyse_once((match_id, board.player.id),
                           lambda: ana.board_from_result(board, starter), done)  # fmt: skip

    def analyse_input(
        self,
        key: tuple[str, str],
        board: ana.BoardInput,
        done: Callable[[ana.BoardAnalysis | None], None],
    ) -> None:
        """Analyse a board given as the engine's input (the daily deal's own board)."""
        self._analyse_once(key, lambda: board, done)

    def _analyse_once(
        self,
        key: tuple[str, str],
        make: Callable[[], ana.BoardInput],
        done: Callable[[ana.BoardAnalysis | None], None],
    ) -> None:
        """The analysis kept for ``key`` if there is one, else made in a worker."""
        if key in self.analyses:
            done(self.analyses[key])
            return
        self._analyse(key, make, done)

    @work(thread=True, group="analysis", exit_on_error=False)
    def _analyse(
        self,
        key: tuple[str, str],
        make: Callable[[], ana.BoardInput],
        done: Callable[[ana.BoardAnalysis | None], None],
    ) -> None:
        # CPU-bound for a second or two: a thread, so the screens and the session live on.
        try:
            found = ana.analyse(make())
        except EngineError as exc:
            self.call_from_thread(self.refused, f"cannot analyse: {exc}")
            self.call_from_thread(done, None)
            return
        self.call_from_thread(self._analysed, key, found, done)

    def _analysed(
        self,
        key: tuple[str, str],
        found: ana.BoardAnalysis,
        done: Callable[[ana.BoardAnalysis | None], None],
    ) -> None:
        self.analyses[key] = found
        done(found)

    # -- head to head ----------------------------------------------------------

    def quick_play(self, fields: dict[str, Any]) -> None:
        """Queue for a rated head-to-head match (``fields``: pace, deals, bot_after_ms)."""
        if self.model.queue is not None:
            self.tell("already waiting for an opponent: x cancels")
            return
        if self.model.room is not None:
            self.tell("leave this room first")
            return
        msg = self._build(QuickPlay, contribution=self._contribution(), **fields)
        if msg is not None:
            self.model.bot_after_ms = fields.get("bot_after_ms")
            bots, after = self.model.bots, fields.get("bot_after_ms")
            if after is not None and bots is not None:
                shown = picked(bots.levels, fields.get("bot_level") or bots.quickplay_bot)
                self.tell(f"after {after // 1000} s without a person: a bot of {shown}")
            self.send(msg)

    def cancel(self) -> None:
        """Leave the quick-play queue, or withdraw one's open challenge."""
        if self.model.queue is not None:
            self.send(CancelQuickPlay())
            return
        mine = self.model.outgoing()
        if mine:
            self.send(AnswerChallenge(challenge_id=mine[0].info.id, accept=False))
            return
        self.tell("nothing to cancel: not waiting for quick play nor for an answer")

    def challenge(self, fields: dict[str, Any]) -> None:
        msg = self._build(Challenge, contribution=self._contribution(), **fields)
        if msg is not None:
            self.send(msg)

    def answer_challenge(self, challenge_id: str, accept: bool) -> None:
        contribution = self._contribution() if accept else ""
        self.send(
            AnswerChallenge(challenge_id=challenge_id, accept=accept, contribution=contribution)
        )

    def rematch(self) -> None:
        """Offer (or accept) a rematch; asked again, withdraw the offer."""
        room = self.model.room
        if room is None:
            return
        if room.origin == "tournament":
            self.tell("a tournament table has no rematch: the tournament pairs the next round")
            return
        if room.origin == "daily":
            self.tell("one attempt a day: the daily deal has no rematch")
            return
        if not self.model.series_over():
            self.tell("the series is not over: the next deal starts by itself")
            return
        wanted, _ = self.model.rematch_state()
        contribution = "" if wanted else self._contribution()
        self.send(Rematch(room_id=room.id, want=not wanted, contribution=contribution))

    # -- the daily deal ------------------------------------------------------------

    @work(exclusive=True, group="daily", exit_on_error=False)
    async def ask_daily(
        self, day: str | None = None, top: int = 20, done: Callable[[str], None] | None = None
    ) -> None:
        """Ask for a day of the daily deal (the model keeps it); ``done`` hears a refusal.
        ``day`` "yesterday" asks for today first, then for the day before it."""
        try:
            if day == "yesterday":
                today = await self.session.request(GetDaily(top=1))
                day = daily_text.yesterday_of(today.today) if isinstance(today, Daily) else None
            reply = await self.session.request(GetDaily(day=day, top=top))
        except (SessionError, ValidationError) as exc:
            reason = str(exc)
        else:
            reason = reply.reason if isinstance(reply, ErrorMessage) else ""
        if reason and done is not None:
            done(reason)

    def play_daily(self, fields: dict[str, Any]) -> None:
        """Begin today's one attempt (``fields``: pace and its clock): the game follows."""
        if self.model.room is not None:
            self.tell("leave this room first")
            return
        msg = self._build(PlayDaily, **fields)
        if msg is not None:
            self.send(msg)

    @work(exclusive=True, group="leaderboard", exit_on_error=False)
    async def ask_leaderboard(
        self,
        pace: str,
        top: int,
        around: str | None = None,
        done: Callable[[str], None] | None = None,
    ) -> None:
        """Ask for a leaderboard (the model keeps it); ``done`` hears why if refused."""
        try:
            reply = await self.session.request(
                GetLeaderboard(pace=Pace(pace), top=top, around=around)
            )
        except (SessionError, ValidationError) as exc:
            reason = str(exc)
        else:
            reason = reply.reason if isinstance(reply, ErrorMessage) else ""
        if reason and done is not None:
            done(reason)

    # -- tournaments ------------------------------------------------------------

    def list_tournaments(self, status: str | None = None) -> None:
        if self.session.connected:
            self.send(ListTournaments(status=status))  # type: ignore[arg-type]

    def open_tournament(self, tournament_id: str) -> None:
        """Show a tournament: its screen follows the snapshot asked for."""
        self.model.show_tournament(tournament_id)
        self.send(GetTournament(tournament_id=tournament_id))
        self.refresh_views()

    def refresh_tournament(self) -> None:
        tid = self.model.tournament_id
        if tid is not None and self.session.connected:
            self.send(GetTournament(tournament_id=tid), quiet=True)

    def close_tournament(self) -> None:
        """Back to the lobby from the tournament screen; a spectator stops watching."""
        tid = self.model.tournament_id
        if tid is not None and tid in self.model.watching:
            self.model.watching.discard(tid)
            self.send(LeaveTournament(tournament_id=tid), quiet=True)
        self.model.show_tournament(None)
        self.refresh_views()

    @work(group="requests", exit_on_error=False)
    async def join_tournament(
        self,
        tournament_id: str | None = None,
        invite_code: str | None = None,
        spectate: bool = False,
    ) -> None:
        """Register (or watch) by id or invite code; then show the tournament."""
        try:
            msg = JoinTournament(
                tournament_id=tournament_id,
                invite_code=invite_code,
                spectate=spectate,
                contribution="" if spectate else self._contribution(),
            )
            reply = await self.session.request(msg)
        except (SessionError, ValidationError) as exc:
            self.refused(str(exc))
            return
        if isinstance(reply, TournamentUpdate):
            tid = reply.tournament.id
            if spectate and not self.model.entered(tid):
                self.model.watching.add(tid)
                self.tell(f"watching {reply.tournament.name}")
            self.model.show_tournament(tid)
            self.refresh_views()

    def leave_tournament(self, tournament_id: str) -> None:
        """Withdraw (for good), or stop watching."""
        self.model.watching.discard(tournament_id)
        self.send(LeaveTournament(tournament_id=tournament_id))

    def manage_tournament(self, action: str, player_id: str | None = None) -> None:
        tid = self.model.tournament_id
        if tid is not None:
            msg = self._build(ManageTournament, tournament_id=tid, action=action,
                              player_id=player_id)  # fmt: skip
            if msg is not None:
                self.send(msg)

    def add_tournament_bots(self, strategy: str, count: int) -> None:
        tid = self.model.tournament_id
        if tid is not None:
            msg = self._build(AddTournamentBot, tournament_id=tid, strategy=strategy, count=count)
            if msg is not None:
                self.send(msg)

    @work(group="requests", exit_on_error=False)
    async def create_tournament(self, fields: dict[str, Any]) -> None:
        """Host a new tournament (``fields``: the CreateTournament fields); then show it."""
        msg = self._build(CreateTournament, **fields)
        if msg is None:
            return
        try:
            reply = await self.session.request(msg)
        except SessionError as exc:
            self.refused(str(exc))
            return
        if isinstance(reply, TournamentUpdate):
            self.model.show_tournament(reply.tournament.id)
            self.refresh_views()

    def leave_room(self) -> None:
        room = self.model.room
        if room is None:
            return
        if room.status == RoomStatus.FINISHED:
            # A finished room is over for good: go now, and let the server forget it quietly.
            self.model.forget_room()
            self.send(LeaveRoom(room_id=room.id), quiet=True)
            self.refresh_views()
        else:
            self.send(LeaveRoom(room_id=room.id))

    def place(self, cell: str) -> None:
        match = self.model.match
        if (room := self._room_id()) is not None and match is not None and match.turn:
            self.send(Place(room_id=room, turn=match.turn, cell=cell))
            self.model.sending()


if TYPE_CHECKING:
    # The screens reach the app only through Crib: mypy proves the app is one.
    _app_is_a_crib: type[Crib] = CribApp
