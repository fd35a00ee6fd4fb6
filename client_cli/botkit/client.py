"""A bot on a server over the public protocol, exactly like a human's client.

:class:`BotClient` signs in with ``"bot": true`` (the server labels the player a
bot everywhere), joins or opens a room, places every card it is dealt and
collects the results. The network session is the play client's
(:class:`client_cli.session.Session`): same sign-in, same reconnection. A bot's
choice runs in a worker thread, so a slow strategy never stalls the connection;
one that fails or answers an illegal cell is replaced, for that card, by the
engine's fallback rule and counted.

The bot sends one request at a time and waits for its answer, so when the
server says it is dropping frames (``rate_limited`` with no ``ref``: the
connection's token bucket is empty, docs/protocol.md, *Limits*) while a request
is unanswered, that request is the one dropped: the bot waits
(:data:`client_cli.flood.BACKOFF_S`, the back-off every client of the session
keeps) and sends it again. A placement is sent again only once a fresh
``room_state`` shows its turn still waiting, so no card is ever placed twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from client_cli.botkit.api import (
    BotError,
    Choose,
    Outcome,
    Plan,
    cell_index,
)
from client_cli.flood import BACKOFF_S, backoff_s, is_drop_notice
from client_cli.model.state import ClientModel
from client_cli.model.text import placed_for_you, series_text
from client_cli.model.views import MatchView
from client_cli.session import Session, SessionError
from engine.bots import BotView, fallback_cell
from engine.cards import Card
from engine.grid import cell_name
from engine.verification import Verification
from protocol.connection import ErrorMessage, Welcome
from protocol.deals import CardDealt, MatchResult, MatchStarted, Place, Placed, SeriesInfo
from protocol.fields import Pace, Visibility
from protocol.head_to_head import AnswerChallenge, ChallengeUpdate, QueueStatus, QuickPlay
from protocol.rooms import (
    CreateRoom,
    JoinRoom,
    LeaveRoom,
    ListRooms,
    Ready,
    Resync,
    Rooms,
    RoomState,
    RoomStatus,
    RoomUpdate,
    StartMatch,
)
from protocol.wire import ServerMessage

BOT_CLIENT = "cribsquares-bot/0.1"

# Refusals of a placement that mean it is no longer needed.
TURN_GONE = frozenset({"already_placed", "past_turn", "not_playing"})
# Answers to ``quickplay`` that mean: no queue for this bot here (rated play is for
# people; an older server has no queue at all).
NO_QUEUE = frozenset({"not_rateable", "unknown_type", "bad_message"})


@dataclass
class _Match:
    """What the bot keeps of its seat besides the board: the board, the card waiting
    for it (its turn, its legal cells) and the placements are the client model's
    (:class:`ClientModel`, fed every message as the terminal client's is), read
    when the bot decides."""

    room_id: str
    started: bool = False
    fallbacks: int = 0
    match_id: str = ""  # the deal being played
    opened: bool = False  # a room of our own or found open: started after the wait
    done: set[int] = field(default_factory=set)  # turns answered or past: never sent again

    def new_deal(self, match_id: str) -> None:
        self.fallbacks, self.match_id, self.started = 0, match_id, True
        self.done = set()


class BotClient:
    """One bot on one server: sign in, find a room, play, report."""

    def __init__(
        self,
        url: str,
        choose: Choose,
        *,
        name: str,
        say: Callable[[str], None] = print,
        verbose: bool = False,
    ) -> None:
        self.choose = choose
        self.say = say
        self.verbose = verbose
        self.inbox: asyncio.Queue[ServerMessage] = asyncio.Queue()
        self.dropping = asyncio.Event()  # the server said it drops this connection's frames
        self.match: _Match | None = None
        self.session = Session(
            url,
            name=name,
            listener=self.heard,
            resume_room=lambda: self.match.room_id if self.match else None,
            give_up_after=3,
            bot=True,
            client=BOT_CLIENT,
            resync_after_drop=False,  # the bot resyncs per request it sends again
        )
        self.welcome: Welcome | None = None
        # The deal checks every client makes, fed every message as the terminal
        # client's model is, with the contributions this bot sent.
        self.model = ClientModel(url)
        self.checked: dict[str, Verification] = {}  # match id -> its deal checked
        self.use_queue = False  # cleared when the server will not queue a bot
        self.series_told: set[int] = set()

    async def run(self, plan: Plan) -> list[Outcome]:
        """Play ``plan`` to the end; raise :class:`BotError` on a refusal."""
        runner = asyncio.create_task(self.session.run(), name="bot-session")
        try:
            self.welcome = await self._signed_in(runner)
            me = self.welcome.player
            self.say(f"signed in as {me.name} ({me.id}){' as a bot' if me.bot else ''}")
            outcomes: list[Outcome] = []
            self.use_queue = plan.queue
            for game in range(plan.games):
                room_id = await self._enter(plan)
                outcomes += await self._play(room_id, plan, runner, game + 1)
                assert self.match is not None  # a challenge accepted may have moved it
                await self._request(LeaveRoom(room_id=self.match.room_id))
                self.match = None  # left: a reconnection has no room of ours to resync
            return outcomes
        finally:
            await self.session.close()
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, SessionError):
                await runner

    async def _signed_in(self, runner: asyncio.Task[None]) -> Welcome:
        waiter = asyncio.ensure_future(self.session.wait_signed_in())
        await asyncio.wait({waiter, runner}, return_when=asyncio.FIRST_COMPLETED)
        if not waiter.done():
            waiter.cancel()
            exc = runner.exception() if runner.done() else None
            raise BotError(str(exc) if exc else "the session ended before signing in")
        return waiter.result()

    def heard(self, message: ServerMessage) -> None:
        """Every message the session hands over: checked deals kept, then queued."""
        # A frame dropped has no ref; a quota's rate_limited has the request's: a refusal.
        if is_drop_notice(message):
            self.dropping.set()
        self.model.apply(message, time.monotonic())
        match = self.model.match
        if isinstance(message, MatchResult) and match is not None and match.verification:
            self.checked[message.match_id] = match.verification
        self.inbox.put_nowait(message)

    async def _answer(self, message: Any, drops: int) -> ServerMessage | None:
        """Send ``message`` and return its reply; None if the server dropped it.

        Dropped: the server said it drops frames before answering, and no answer
        came within the back-off (``backoff_s(drops)``) either. ``drops``: how many
        times this request was dropped already; the bot then gives it up. Nothing
        is sent within the shortest back-off of a drop (the session's ``flood``):
        a frame dropped then would be dropped untold.
        """
        quiet_s = self.session.flood.quiet_s(asyncio.get_running_loop().time())
        if quiet_s > 0:
            await asyncio.sleep(quiet_s)
        self.dropping.clear()
        reply = asyncio.ensure_future(self.session.request(message))
        told = asyncio.ensure_future(self.dropping.wait())
        try:
            await asyncio.wait({reply, told}, return_when=asyncio.FIRST_COMPLETED)
            if not reply.done():
                wait_s = backoff_s(drops)
                if self.verbose:
                    self.say(f"the server drops frames: {message.type} again in {wait_s:g} s")
                await asyncio.wait({reply}, timeout=wait_s)  # still listening for the answer
        finally:
            told.cancel()
            if not reply.done():
                reply.cancel()  # the session forgets the ref: a late answer goes to the inbox
                await asyncio.wait({reply})
        return None if reply.cancelled() else reply.result()

    async def _request(self, message: Any) -> ServerMessage:
        """The reply to ``message``, sent again after each back-off while the server drops it."""
        for drops in range(len(BACKOFF_S) + 1):
            reply = await self._answer(message, drops)
            if reply is not None:
                return reply
        raise SessionError(f"the server dropped {message.type} {len(BACKOFF_S) + 1} times")

    async def _ask(self, message: Any) -> ServerMessage:
        try:
            reply = await self._request(message)
        except SessionError as exc:
            raise BotError(str(exc)) from None
        if isinstance(reply, ErrorMessage):
            raise BotError(f"{message.type} refused: {reply.reason} ({reply.code})")
        return reply

    # -- finding a room --------------------------------------------------------

    async def _enter(self, plan: Plan) -> str:
        """Take a seat (and say ready where that starts the match); return the room id."""
        state = None
        if plan.room is not None:
            state = await self._join(plan.room)
        elif self.use_queue:
            state = await self._queue(plan)
        if state is None:
            state = await self._quick(plan)
        room_id = state.room.id
        self.match = _Match(room_id, opened=plan.room is None and state.room.origin == "room")
        self.say(
            f"seated in room {room_id} ({state.room.name!r}, {len(state.room.players)} of "
            f"{state.room.seats} seats)"
        )
        # Rooms the server pairs players into (quick play, challenges, tournament
        # tables) start by themselves: only an ordinary room waits for "ready".
        if state.room.status == RoomStatus.WAITING and state.room.origin == "room":
            await self._ask(Ready(room_id=room_id))
        return room_id

    async def _queue(self, plan: Plan) -> RoomState | None:
        """The server's quick-play queue: wait to be paired; None if it does not take bots."""
        bot_after = round(plan.bot_after_s * 1000) if plan.bot_after_s is not None else None
        ask = QuickPlay.model_validate(
            {
                "pace": plan.pace,
                "deals": plan.best_of,
                "bot_after_ms": None if plan.arena else bot_after,
                "arena": plan.arena,
                "contribution": self.model.new_contribution(),
            }
        )
        try:
            reply = await self._request(ask)
        except SessionError as exc:
            raise BotError(str(exc)) from None
        if isinstance(reply, ErrorMessage):
            if reply.code in NO_QUEUE and not plan.arena:
                # Quick play is rated, for people: a bot goes to the open rooms instead.
                self.say(f"quick play refused ({reply.reason}): looking for an open room instead")
                self.use_queue = False
                return None
            raise BotError(f"quickplay refused: {reply.reason} ({reply.code})")
        self.say("waiting in the arena" if plan.arena else "waiting in the quick-play queue")
        room_id: str | None = None
        while True:
            message = await self.inbox.get()
            if isinstance(message, QueueStatus):
                if message.state == "matched":
                    room_id = message.room_id
                elif message.state == "cancelled":
                    raise BotError("the server took the bot out of the quick-play queue")
            elif isinstance(message, RoomState) and message.room.id == room_id:
                return message

    async def _join(self, code: str) -> RoomState:
        """Join by room id, and if no room has that id, by invite code."""
        try:
            reply = await self._request(
                JoinRoom(room_id=code[:32], contribution=self.model.new_contribution())
            )
        except SessionError as exc:
            raise BotError(str(exc)) from None
        if isinstance(reply, ErrorMessage) and reply.code == "room_not_found":
            try:
                reply = await self._request(
                    JoinRoom(invite_code=code[:32], contribution=self.model.new_contribution())
                )
            except SessionError as exc:
                raise BotError(str(exc)) from None
            if isinstance(reply, ErrorMessage) and reply.code == "room_not_found":
                raise BotError(f"no room has the id or invite code {code!r}")
        if isinstance(reply, ErrorMessage):
            raise BotError(f"cannot join {code}: {reply.reason} ({reply.code})")
        assert isinstance(reply, RoomState)
        return reply

    async def _quick(self, plan: Plan) -> RoomState:
        """Quick play: the first open public lockstep room, else a new public room."""
        rooms = await self._ask(ListRooms())
        assert isinstance(rooms, Rooms)
        for room in rooms.rooms:
            if (
                room.status == RoomStatus.WAITING
                and room.pace == Pace.LOCKSTEP
                and room.visibility == Visibility.PUBLIC
                and room.taken < room.seats
            ):
                reply = await self._request(
                    JoinRoom(room_id=room.id, contribution=self.model.new_contribution())
                )
                if isinstance(reply, RoomState):
                    return reply
        assert self.welcome is not None
        reply = await self._ask(
            CreateRoom.model_validate(
                {
                    "name": f"{self.welcome.player.name}'s room"[:40],
                    "visibility": Visibility.PUBLIC,
                    "seats": plan.seats,
                    "pace": Pace.LOCKSTEP,
                    "card_clock_ms": plan.card_clock_ms,
                    "deals": plan.best_of,
                    "contribution": self.model.new_contribution(),
                }
            )
        )
        assert isinstance(reply, RoomState)
        return reply

    # -- playing ---------------------------------------------------------------

    async def _play(
        self, room_id: str, plan: Plan, runner: asyncio.Task[None], game: int = 1
    ) -> list[Outcome]:
        """Place every card dealt in the room until its series is over; one outcome a deal."""
        match = self.match
        assert match is not None
        loop = asyncio.get_running_loop()
        start_at = loop.time() + plan.wait_s if match.opened else None
        outcomes: list[Outcome] = []
        seen: set[str] = set()

        def scored(result: MatchResult, series: SeriesInfo | None) -> bool:
            """Record a deal's result; True when the series is over."""
            assert match is not None
            if result.match_id not in seen:
                seen.add(result.match_id)
                outcome = self._outcome(result, match)
                outcomes.append(outcome)
                self.say(f"game {game}: {outcome.line()}")
            return self._series_over(series, game)

        while True:
            timeout = None
            if start_at is not None and not match.started:
                timeout = max(0.0, start_at - loop.time())
            getter = asyncio.ensure_future(self.inbox.get())
            done, _ = await asyncio.wait(
                {getter, runner}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
            if getter not in done:
                getter.cancel()
                if runner in done:
                    exc = runner.exception()
                    raise BotError(str(exc) if exc else "the connection closed")
                start_at = None  # the wait is over: start with whoever is seated
                await self._start_if_creator(match.room_id)
                continue
            message = getter.result()
            if isinstance(message, ChallengeUpdate):
                moved = await self._challenged(message, match)
                if moved is not None:
                    match, start_at = moved, None
                continue
            if getattr(message, "room_id", match.room_id) != match.room_id:
                continue
            if isinstance(message, MatchStarted):
                if message.match_id != match.match_id:
                    match.new_deal(message.match_id)
                if self.verbose:
                    which = (
                        f"deal {message.deal} of {message.best_of}, " if message.best_of > 1 else ""
                    )
                    self.say(f"{which}match {message.match_id} started")
            elif isinstance(message, CardDealt):
                match.started = True
                await self._place_waiting(match)
            elif isinstance(message, Placed):
                match.done.add(message.turn)
                if self.verbose:
                    auto = f" ({placed_for_you(message)})" if message.auto else ""
                    self.say(f"turn {message.turn}: {message.card} on {message.cell}{auto}")
            elif isinstance(message, RoomState) and message.room.id == match.room_id:
                if message.match_id is not None and message.match_id != match.match_id:
                    match.new_deal(message.match_id)
                self._resync(match, message)
                await self._place_waiting(match)
                if message.result is not None and scored(message.result, message.room.series):
                    return outcomes
            elif isinstance(message, RoomUpdate) and message.room.id == match.room_id:
                series = message.room.series
                # A series decided between deals (the other player left) ends here.
                if (
                    series is not None
                    and series.finished
                    and seen
                    and self._series_over(series, game)
                ):
                    return outcomes
            elif isinstance(message, ErrorMessage) and message.ref is None:
                self.say(f"server: {message.reason} ({message.code})")
            elif isinstance(message, MatchResult) and scored(message, message.series):
                return outcomes

    def _series_over(self, series: SeriesInfo | None, game: int) -> bool:
        if series is None or series.finished:
            if series is not None and series.best_of > 1 and game not in self.series_told:
                self.series_told.add(game)
                me = self.welcome.player if self.welcome else None
                self.say(f"game {game}: {series_text(series, me)}")
            return True
        return False

    async def _challenged(self, update: ChallengeUpdate, match: _Match) -> _Match | None:
        """A player challenges the bot: accepted while it waits, declined while it plays.

        Returns the new room's match when accepted (the bot left its waiting room)."""
        me = self.welcome.player.id if self.welcome else None
        info = update.challenge
        if update.state != "offered" or info.opponent.id != me:
            return None
        if match.started:
            await self._request(AnswerChallenge(challenge_id=info.id, accept=False))
            return None
        with contextlib.suppress(SessionError):
            await self._request(LeaveRoom(room_id=match.room_id))
        try:
            reply = await self._request(
                AnswerChallenge(
                    challenge_id=info.id, accept=True, contribution=self.model.new_contribution()
                )
            )
        except SessionError:
            return None
        if not isinstance(reply, ChallengeUpdate) or reply.room_id is None:
            self.say(f"could not accept {info.challenger.name}'s challenge")
            return None
        self.say(f"accepted a challenge from {info.challenger.name}: room {reply.room_id}")
        self.match = _Match(reply.room_id)
        return self.match

    async def _start_if_creator(self, room_id: str) -> None:
        reply = await self._request(StartMatch(room_id=room_id))
        if isinstance(reply, ErrorMessage) and reply.code not in ("not_creator", "room_started"):
            self.say(f"could not start the match: {reply.reason}")

    def _resync(self, match: _Match, state: RoomState) -> None:
        if state.you is not None:
            match.done.update(p.turn for p in state.you.placements)
            match.started = True

    def _board(self, match: _Match) -> MatchView | None:
        """The deal ``match`` plays as the model knows it (None: it knows another)."""
        seen = self.model.match
        if seen is None or self.model.room is None or self.model.room.id != match.room_id:
            return None
        return seen if seen.match_id == match.match_id or not match.match_id else None

    async def _place_waiting(self, match: _Match) -> None:
        """Place the card the model says is waiting for this bot, if one is."""
        board = self._board(match)
        if board is not None and board.turn is not None and board.card is not None:
            await self._place(match, board.turn, Card.parse(board.card), list(board.legal))

    async def _place(self, match: _Match, turn: int, card: Card, legal: list[str]) -> None:
        board = self._board(match)
        if board is None or turn in match.done or any(p.turn == turn for p in board.placements):
            return  # a snapshot taken before its placement was acknowledged, or a deal gone
        grid = board.grid()  # the model's board: every placement told, in turn order
        view = BotView(grid.cells(), card)
        cell = await asyncio.to_thread(self._decide, view, legal)
        if cell is None:
            match.fallbacks += 1
            cell = cell_name(fallback_cell(grid, card))
        try:
            reply = await self._placed(match, Place(room_id=match.room_id, turn=turn, cell=cell))
            if isinstance(reply, ErrorMessage) and reply.code not in TURN_GONE:
                # Refused (the board here and on the server disagree?): the first legal cell.
                self.say(f"placing {card} on {cell} refused: {reply.reason}; trying {legal[0]}")
                match.fallbacks += 1
                await self._placed(match, Place(room_id=match.room_id, turn=turn, cell=legal[0]))
        except SessionError:
            pass  # disconnected: the session signs in again and a room_state resumes the match

    async def _placed(self, match: _Match, place: Place) -> ServerMessage | None:
        """The server's answer to ``place``; None once its turn needs no placement.

        A placement the server may have dropped is sent again only if a fresh
        ``room_state`` (read after the back-off, behind the placement on the same
        connection) shows its turn still waiting: placed already (the frame was
        not the one dropped) or gone (the clock placed the card), it is not.
        """
        for drops in range(len(BACKOFF_S) + 1):
            reply = await self._answer(place, drops)
            if reply is not None:
                if isinstance(reply, Placed) or (
                    isinstance(reply, ErrorMessage) and reply.code in TURN_GONE
                ):
                    match.done.add(place.turn)
                return reply
            state = await self._request(Resync(room_id=place.room_id))
            if isinstance(state, RoomState) and state.you is not None:
                match.done.update(p.turn for p in state.you.placements)
                if state.you.turn != place.turn:
                    match.done.add(place.turn)
            if place.turn in match.done or not isinstance(state, RoomState):
                return None
        raise SessionError(f"the server dropped the placement of turn {place.turn} every time")

    def _decide(self, view: BotView, legal: list[str]) -> str | None:
        """The bot's cell name for ``view``; None if it failed or answered an illegal cell."""
        try:
            name = cell_name(cell_index(self.choose(view)))
        except Exception as exc:
            self.say(f"the bot failed on {view.card} at turn {view.turn}: {exc!r}; fallback used")
            return None
        if name not in legal:
            self.say(f"the bot chose {name} for {view.card}, not a legal cell; fallback used")
            return None
        return name

    def _outcome(self, result: MatchResult, match: _Match) -> Outcome:
        assert self.welcome is not None
        me = self.welcome.player.id
        mine = next(b for b in result.boards if b.player.id == me)
        best_of = result.series.best_of if result.series is not None else 1
        checked = self.checked.pop(result.match_id, None)  # told once: not kept for good
        return Outcome(
            room_id=result.room_id,
            match_id=result.match_id,
            rank=mine.rank,
            players=len(result.boards),
            score=mine.score.total,
            starter=result.starter,
            boards=[(b.player.name, b.player.bot, b.rank, b.score.total) for b in result.boards],
            fallbacks=match.fallbacks,
            deal=result.deal,
            best_of=best_of,
            verified=checked is not None and checked.ok,
            failed_checks=tuple(c.label for c in checked.checks if not c.ok) if checked else (),
        )
