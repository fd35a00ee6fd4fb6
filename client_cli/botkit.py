"""Bots that play over the public protocol, exactly like a human's client, and the API to write one.

A bot is a function from what its player can see to a cell::

    from engine.bots import BotView

    def choose(view: BotView) -> int | str:
        ...

``view.cells`` holds the 16 cells in reading order (a1, b1, c1, d1, a2, ...),
each a :class:`~engine.cards.Card` or ``None``; ``view.card`` is the card to
place, ``view.turn`` its number (1..16), ``view.seen`` every card dealt so far
and ``view.legal_cells()`` the indices where it may go. Return a cell index
(0..15) or a cell name (``"b2"``). The same view is what the engine's own
strategies see, so a bot never knows more than a human player would.

:func:`load_chooser` turns ``--strategy`` into such a function: an engine
strategy by name (``random``, ``greedy``, ``expert``), ``path/to/file.py:func``
or ``package.module:func``. :class:`BotClient` signs in with ``"bot": true``
(the server labels the player a bot everywhere), joins or opens a room, places
every card it is dealt and collects the results. :func:`main` is the command
line shared by ``cribsquares bot`` and a bot script's ``__main__``.

The network session is the play client's (:class:`client_cli.session.Session`):
same sign-in, same reconnection. A bot's choice runs in a worker thread, so a
slow strategy never stalls the connection; one that fails or answers an
illegal cell is replaced, for that card, by the engine's fallback rule and
counted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import importlib.util
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection

from client_cli.model import series_text
from client_cli.session import Session, SessionError, normalize_url
from engine.bots import STRATEGIES, BotView, Budget, fallback_cell, make_strategy
from engine.cards import Card
from engine.errors import EngineError
from engine.grid import CELLS, Grid, cell_name, parse_cell
from protocol.messages import (
    AnswerChallenge,
    CardDealt,
    ChallengeUpdate,
    CreateRoom,
    ErrorMessage,
    Hello,
    JoinRoom,
    LeaveRoom,
    ListRooms,
    MatchResult,
    MatchStarted,
    Pace,
    Place,
    Placed,
    QueueStatus,
    QuickPlay,
    Ready,
    Rooms,
    RoomState,
    RoomStatus,
    RoomUpdate,
    SeriesInfo,
    ServerMessage,
    StartMatch,
    Visibility,
    Welcome,
)
from protocol.names import MAX_NAME

Choose = Callable[[BotView], "int | str"]
"""A bot: the visible state in, a cell index or name out."""

BOT_CLIENT = "cribsquares-bot/0.1"
# The engine's strongest strategy may think this long per card, at most, and
# never more than half of the card's clock.
MAX_THINK_S = 5.0
# Refusals of a placement that mean it is no longer needed.
TURN_GONE = frozenset({"already_placed", "past_turn", "not_playing"})
# Answers to ``quickplay`` that mean: no queue for this bot here (rated play is for
# people; an older server has no queue at all).
NO_QUEUE = frozenset({"not_rateable", "unknown_type", "bad_message"})


class BotError(Exception):
    """Something to tell the bot's operator in one line (bad strategy, refused room...)."""


# ----------------------------------------------------------------------
# Strategies


def load_chooser(spec: str, *, seed: int | str = 0) -> Choose:
    """The bot ``spec`` names: an engine strategy, ``file.py[:func]`` or ``module:func``.

    A file or module without ``:func`` must define ``choose``.
    """
    if spec in STRATEGIES:
        return engine_chooser(spec, seed=seed)
    target, _, func = spec.partition(":")
    func = func or "choose"
    if target.endswith(".py") or os.sep in target or "/" in target:
        path = Path(target)
        if not path.is_file():
            raise BotError(f"no bot file {target}")
        module_name = "cribsquares_bot_" + re.sub(r"\W", "_", path.stem)
        loader_spec = importlib.util.spec_from_file_location(module_name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise BotError(f"cannot load {target} as Python")
        module = importlib.util.module_from_spec(loader_spec)
        try:
            loader_spec.loader.exec_module(module)
        except Exception as exc:
            raise BotError(f"{target} failed to load: {exc!r}") from None
    elif ":" in spec:
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            raise BotError(f"cannot import {target}: {exc}") from None
    else:
        known = ", ".join(sorted(STRATEGIES))
        raise BotError(
            f"unknown strategy {spec!r}: use one of {known}, FILE.py[:FUNC] or MODULE:FUNC"
        )
    chooser = getattr(module, func, None)
    if not callable(chooser):
        raise BotError(f"{target} has no function {func}(view)")
    return chooser  # type: ignore[no-any-return]


def engine_chooser(name: str, *, seed: int | str = 0, think_s: float = MAX_THINK_S) -> Choose:
    """An engine strategy as a bot; ``expert`` stops thinking after ``think_s`` seconds."""
    strategy = make_strategy(name, seed)
    budget = Budget(seconds=think_s, clock=time.monotonic)

    def choose(view: BotView) -> int:
        return strategy.choose(view, budget)

    choose.__name__ = f"{name}_choose"
    return choose


def cell_index(answer: object) -> int:
    """A chooser's answer as a cell index; ValueError if it is not a cell."""
    if isinstance(answer, bool):
        raise ValueError(f"{answer!r} is not a cell")
    if isinstance(answer, int):
        if 0 <= answer < CELLS:
            return answer
        raise ValueError(f"cell index {answer} is not 0..15")
    if isinstance(answer, str):
        try:
            return parse_cell(answer)
        except EngineError as exc:
            raise ValueError(str(exc)) from None
    raise ValueError(f"{answer!r} is not a cell (an index 0..15 or a name like 'b2')")


# ----------------------------------------------------------------------
# Playing over the network


@dataclass(frozen=True)
class Plan:
    """Where the bot plays: a given room, the server's quick-play queue, or an open room.

    ``queue``: ask the server's quick-play queue for an opponent first; a server
    that does not queue bots (quick play is rated, for people) sends it to open
    rooms instead: join an open public lockstep room, else open one of
    ``seats`` and start it after ``wait_s`` with whoever came.
    """

    room: str | None = None  # a room id or an invite code
    games: int = 1  # series to play, one after another
    seats: int = 2  # open rooms: seats of a room the bot opens
    wait_s: float = 30.0  # open rooms: start with whoever came after this long
    card_clock_ms: int = 30_000
    queue: bool = False
    pace: Pace = Pace.LOCKSTEP  # quick play
    best_of: int = 1  # quick play, and a room the bot opens
    bot_after_s: float | None = None  # quick play: a server bot after this long


@dataclass
class Outcome:
    """One finished match, from the bot's side."""

    room_id: str
    match_id: str
    rank: int
    players: int
    score: int
    starter: str
    boards: list[tuple[str, bool, int, int]]  # (name, bot, rank, score) by rank
    fallbacks: int = 0  # cards the fallback rule placed because the bot failed
    deal: int = 1  # which deal of its series
    best_of: int = 1

    def line(self) -> str:
        others = ", ".join(
            f"{name}{' (bot)' if bot else ''} {score}" for name, bot, _, score in self.boards
        )
        which = f"deal {self.deal} of {self.best_of}: " if self.best_of > 1 else ""
        return (
            f"{which}room {self.room_id}: rank {self.rank} of {self.players} with "
            f"{self.score} points (starter {self.starter}; {others})"
        )


class BotSession(Session):
    """The play client's session, signing in as a bot.

    A bot program's name is registered like a person's (docs/protocol.md,
    *Names*): when its name is taken (by itself on an earlier run, say) it
    registers as ``NAME-2``, ``NAME-3`` … instead, on the same connection.
    """

    async def _hello(self, ws: ClientConnection, hello: Hello) -> Welcome | ErrorMessage:
        labelled = hello.model_copy(update={"bot": True, "client": BOT_CLIENT})
        reply = await super()._hello(ws, labelled)
        base = hello.name
        for n in range(2, MAX_NAME_TRIES + 1):
            if not (isinstance(reply, ErrorMessage) and reply.code == "name_taken" and base):
                break
            suffix = f"-{n}"
            name = base[: MAX_NAME - len(suffix)] + suffix
            reply = await super()._hello(ws, labelled.model_copy(update={"name": name}))
        return reply


MAX_NAME_TRIES = 20


@dataclass
class _Match:
    room_id: str
    cells: list[Card | None] = field(default_factory=lambda: [None] * CELLS)
    order: list[tuple[int, Card]] = field(default_factory=list)  # placements, in turn order
    started: bool = False
    fallbacks: int = 0
    match_id: str = ""  # the deal being played
    opened: bool = False  # a room of our own or found open: started after the wait

    def new_deal(self, match_id: str) -> None:
        self.cells, self.order, self.fallbacks = [None] * CELLS, [], 0
        self.match_id, self.started = match_id, True


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
        self.match: _Match | None = None
        self.session = BotSession(
            url,
            name=name,
            listener=self.inbox.put_nowait,
            resume_room=lambda: self.match.room_id if self.match else None,
            give_up_after=3,
        )
        self.welcome: Welcome | None = None
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
                await self.session.request(LeaveRoom(room_id=self.match.room_id))
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

    async def _ask(self, message: Any) -> ServerMessage:
        try:
            reply = await self.session.request(message)
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
            {"pace": plan.pace, "deals": plan.best_of, "bot_after_ms": bot_after}
        )
        try:
            reply = await self.session.request(ask)
        except SessionError as exc:
            raise BotError(str(exc)) from None
        if isinstance(reply, ErrorMessage):
            if reply.code in NO_QUEUE:
                # Quick play is rated, for people: a bot goes to the open rooms instead.
                self.say(f"quick play refused ({reply.reason}): looking for an open room instead")
                self.use_queue = False
                return None
            raise BotError(f"quickplay refused: {reply.reason} ({reply.code})")
        self.say("waiting in the quick-play queue")
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
            reply = await self.session.request(JoinRoom(room_id=code[:32]))
        except SessionError as exc:
            raise BotError(str(exc)) from None
        if isinstance(reply, ErrorMessage) and reply.code == "room_not_found":
            try:
                reply = await self.session.request(JoinRoom(invite_code=code[:32]))
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
                reply = await self.session.request(JoinRoom(room_id=room.id))
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
                await self._place(match, message.turn, Card.parse(message.card), message.legal)
            elif isinstance(message, Placed):
                cell, card = parse_cell(message.cell), Card.parse(message.card)
                match.cells[cell] = card
                match.order.append((cell, card))
                if self.verbose:
                    auto = " (placed by the server: too late)" if message.auto else ""
                    self.say(f"turn {message.turn}: {message.card} on {message.cell}{auto}")
            elif isinstance(message, RoomState) and message.room.id == match.room_id:
                if message.match_id is not None and message.match_id != match.match_id:
                    match.new_deal(message.match_id)
                self._resync(match, message)
                you = message.you
                if you is not None and you.turn is not None and you.card is not None:
                    await self._place(match, you.turn, Card.parse(you.card), you.legal)
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
            await self.session.request(AnswerChallenge(challenge_id=info.id, accept=False))
            return None
        with contextlib.suppress(SessionError):
            await self.session.request(LeaveRoom(room_id=match.room_id))
        try:
            reply = await self.session.request(AnswerChallenge(challenge_id=info.id, accept=True))
        except SessionError:
            return None
        if not isinstance(reply, ChallengeUpdate) or reply.room_id is None:
            self.say(f"could not accept {info.challenger.name}'s challenge")
            return None
        self.say(f"accepted a challenge from {info.challenger.name}: room {reply.room_id}")
        self.match = _Match(reply.room_id)
        return self.match

    async def _start_if_creator(self, room_id: str) -> None:
        reply = await self.session.request(StartMatch(room_id=room_id))
        if isinstance(reply, ErrorMessage) and reply.code not in ("not_creator", "room_started"):
            self.say(f"could not start the match: {reply.reason}")

    def _resync(self, match: _Match, state: RoomState) -> None:
        if state.you is not None:
            match.cells = [Card.parse(c) if c else None for c in state.you.cells]
            match.order = [(parse_cell(p.cell), Card.parse(p.card)) for p in state.you.placements]
            match.started = True

    async def _place(self, match: _Match, turn: int, card: Card, legal: list[str]) -> None:
        view = BotView(tuple(match.cells), card)
        cell = await asyncio.to_thread(self._decide, view, legal)
        if cell is None:
            match.fallbacks += 1
            grid = Grid.replay(match.order)
            cell = cell_name(fallback_cell(grid, card))
        try:
            reply = await self.session.request(Place(room_id=match.room_id, turn=turn, cell=cell))
            if isinstance(reply, ErrorMessage) and reply.code not in TURN_GONE:
                # Refused (the board here and on the server disagree?): the first legal cell.
                self.say(f"placing {card} on {cell} refused: {reply.reason}; trying {legal[0]}")
                match.fallbacks += 1
                await self.session.request(Place(room_id=match.room_id, turn=turn, cell=legal[0]))
        except SessionError:
            pass  # disconnected: the session signs in again and a room_state resumes the match

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
        )


# ----------------------------------------------------------------------
# The command line, shared by ``cribsquares bot`` and bot scripts


NAME_PATTERN = re.compile(r"[^\w .\-]")


def default_name(spec: str) -> str:
    stem = Path(spec.partition(":")[0]).stem if (":" in spec or spec.endswith(".py")) else spec
    return NAME_PATTERN.sub("-", f"{stem} bot")[:24]


def plan_from(args: argparse.Namespace) -> Plan:
    if args.games < 1:
        raise BotError("--games must be at least 1")
    if args.room is not None and args.games != 1:
        raise BotError("a room hosts one match: use --quickplay for several games")
    if not 1 <= args.seats <= 8:
        raise BotError("--seats must be 1..8")
    if args.bot_after is not None and not 0 <= args.bot_after <= 600:
        raise BotError("--bot-after: 0 to 600 seconds")
    return Plan(
        room=args.room,
        games=args.games,
        seats=args.seats,
        wait_s=max(0.0, args.wait),
        # The queue pairs two players: another number of seats means an open room.
        queue=bool(args.quickplay) and args.seats == 2,
        pace=Pace(args.pace),
        best_of=args.best_of,
        bot_after_s=args.bot_after,
    )


def play(args: argparse.Namespace, choose: Choose, name: str) -> int:
    """Run a bot as the command line asked; print results; the exit code."""
    try:
        url = normalize_url(args.server)
        plan = plan_from(args)
    except SessionError as exc:
        raise BotError(str(exc)) from None
    client = BotClient(
        url, choose, name=name, verbose=args.verbose, say=lambda s: print(s, flush=True)
    )
    outcomes = asyncio.run(client.run(plan))
    if len(outcomes) > 1:
        wins = sum(o.rank == 1 for o in outcomes)
        mean = sum(o.score for o in outcomes) / len(outcomes)
        print(f"{len(outcomes)} games: {wins} won, {mean:.1f} points on average")
    fallbacks = sum(o.fallbacks for o in outcomes)
    if fallbacks:
        print(f"the fallback rule placed {fallbacks} cards the bot failed to place")
    return 0


def main(
    choose: Choose,
    argv: Sequence[str] | None = None,
    *,
    prog: str | None = None,
    name: str | None = None,
) -> int:
    """Run ``choose`` as a bot from a script: ``python my_bot.py --server URL --quickplay``."""
    prog = prog or Path(sys.argv[0]).name
    from client_cli.commands.bot import add_arguments

    parser = argparse.ArgumentParser(prog=prog, description="Play Cribbage Squares as a bot.")
    add_arguments(parser, strategy=False)
    args = parser.parse_args(argv)
    try:
        return play(args, choose, args.name or name or default_name(prog))
    except BotError as exc:
        sys.stderr.write(f"{prog}: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
