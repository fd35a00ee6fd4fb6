"""One room: a synchronous state machine with no I/O.

Commands (:meth:`Room.handle`), connection changes (:meth:`Room.set_connected`)
and clock ticks (:meth:`Room.tick`) go in, each with the current time in
milliseconds; one :class:`~server.room.result.RoomResult` comes out: the
:class:`Outbound` messages, each addressed to player ids, the domain events for
storage and the bot seats' turns to think about. A refused command raises
:class:`server.errors.RoomError`, leaves the room exactly as it was and has
noted nothing: every command validates first and only then changes anything.

This module is the room's door: the players' commands (joining, leaving,
readiness, the creator's start and bots, rematches, a placement checked), the
seats the lobby fills itself, connections coming and going, and time passing
(grace periods, the card and deal clocks). What they set off is done by the
parts :class:`Room` is composed of: the deal being played (:mod:`server.room.dealing`),
the end of a deal and a series (:mod:`server.room.results`) and the one place
messages are addressed (:mod:`server.room.addressing`), all acting on the room's
state and queries (:mod:`server.room.base`, :class:`Room`'s one base). Hidden
information is filtered in that one place, :meth:`Addresser.address`; snapshots
come only from :meth:`Room.view_for`,
which puts in the recipient's own board and nothing of anyone else's.

This module must never await, read a clock, or touch sockets or the database.
"""

from __future__ import annotations

from typing import Any

from engine.errors import EngineError
from engine.grid import cell_name, parse_cell
from protocol.deals import Place
from protocol.fields import Pace, PlayerInfo
from protocol.rooms import AddBot, JoinRoom, LeaveRoom, Left, Ready, Rematch, Resync, StartMatch
from protocol.wire import ClientMessage
from server import errors
from server.events import Abandonment
from server.room import bot_seats, phases, views
from server.room.addressing import Addresser
from server.room.base import RoomBase
from server.room.dealing import Dealer
from server.room.outbound import Outbound
from server.room.phases import Phase
from server.room.result import RoomResult
from server.room.results import Results
from server.room.state import TURNS, Seat
from server.stepping import step

CELL_NAMES = frozenset(cell_name(c) for c in range(16))


class Room(RoomBase):
    """A room: seats, spectators and at most one match, driven by commands and time.

    Its state and queries are :class:`RoomBase`'s; it is composed of three parts,
    each with one job: the addresser, the one place its messages are addressed
    (``out``: :class:`~server.room.addressing.Addresser`); the end of a deal and of
    a series (``results``: :class:`~server.room.results.Results`); the deal in
    play (``dealer``: :class:`~server.room.dealing.Dealer`). The parts act on the
    room's state and on the parts given to them; this class holds the entry points.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.out = Addresser(self)
        self.results = Results(self, self.out)
        self.dealer = Dealer(self, self.out, self.results)

    # ------------------------------------------------------------------
    # Commands

    @step(RoomResult)
    def handle(self, player: PlayerInfo, message: ClientMessage, now_ms: int) -> list[Outbound]:
        """Apply one command from ``player``; raise RoomError and change nothing if refused."""
        match message:
            case JoinRoom():
                return self._join(player, message, now_ms)
            case LeaveRoom():
                return self._leave(player, message, now_ms)
            case Ready():
                return self._ready(player, message, now_ms)
            case StartMatch():
                return self._start(player, message, now_ms)
            case AddBot():
                return self._add_bot(player, message, now_ms)
            case Place():
                return self._place(player, message, now_ms)
            case Rematch():
                return self._rematch(player, message, now_ms)
            case Resync():
                self._require_member(player)
                return [self.out.send_state(player.id, now_ms, message.ref)]
        raise errors.RoomError(f"{message.type} is not a room command", code="bad_message")

    def _require_member(self, player: PlayerInfo) -> None:
        if not self.is_member(player.id):
            raise errors.NotInRoom(f"you are not in room {self.id}")

    def _join(self, player: PlayerInfo, msg: JoinRoom, now_ms: int) -> list[Outbound]:
        if self.is_member(player.id):
            return [self.out.send_state(player.id, now_ms, msg.ref)]
        seat = self.seat_of(player.id)
        if seat is not None:  # back in a seat left during the match
            seat.present, seat.connected, seat.away_since = True, True, None
            return [self.out.send_state(player.id, now_ms, msg.ref), *self._changed(now_ms)]
        if msg.spectate:
            self.spectators[player.id] = player
            return [self.out.send_state(player.id, now_ms, msg.ref), *self.out.room_update(now_ms)]
        phases.allowed_in(self.phase, phases.SEAT)
        if len(self.seats) >= self.settings.seats:
            raise errors.RoomFull(f"all {self.settings.seats} seats are taken")
        if self.settings.rated and (player.guest or player.bot):
            raise errors.NotRateable("a rated room is for registered players; guests play casual")
        self.seats.append(Seat(player, msg.contribution))
        return [self.out.send_state(player.id, now_ms, msg.ref), *self.out.room_update(now_ms)]

    def _leave(self, player: PlayerInfo, msg: LeaveRoom, now_ms: int) -> list[Outbound]:
        self._require_member(player)
        left = self.out.address([player.id], Left(room_id=self.id, ref=msg.ref))
        if player.id in self.spectators:
            del self.spectators[player.id]
            return [left, *self.out.room_update(now_ms)]
        seat = self.seat_of(player.id)
        assert seat is not None
        if self.phase == Phase.WAITING:
            self._remove_seat(seat)
            return [left, *self.out.room_update(now_ms)]
        seat.present = False
        seat.rematch = False
        if self.phase == Phase.FINISHED:
            return [left, *self.out.room_update(now_ms)]
        # Leaving a series being played (resigning) loses it at once, and the deal
        # in play too: the leaver is ranked last in it. With one player left the
        # deal ends now (nothing left to play for); two or more play on, the
        # server placing the leaver's cards.
        seat.connected, seat.away_since = False, now_ms
        series = self.series
        series.forfeit(player.id)
        series.gone.add(player.id)
        self.abandoned(player.id, Abandonment.LEFT, now_ms)
        outs: list[Outbound] = []
        staying = [s for s in self.seats if s.player.id not in series.forfeited]
        if self.phase == Phase.PLAYING and len(self.seats) > 1 and len(staying) <= 1:
            # Cut short, the stayer cannot be the side that never played the first
            # deal (No free rating): only the leaver may have been.
            if series.started == 1:
                series.moved.update(s.player.id for s in staying)
            outs += self.dealer.end_deal_now(now_ms, "others_left")
        elif self.phase == Phase.PLAYING:
            outs += self.dealer.bots_play(now_ms) + self.dealer.advance(now_ms)
        elif series.decided():
            outs += self.results.end_series(now_ms)
        if self.phase == Phase.PLAYING:
            outs += self._changed(now_ms)
        # The leaver is told first, with the series its leaving decided (or forfeited).
        shown = views.series_info(self, now_ms, views.sees_result(self, player.id))
        told = Left(room_id=self.id, ref=msg.ref, series=shown)
        return [self.out.address([player.id], told), *outs]

    def _remove_seat(self, seat: Seat) -> None:
        self.seats.remove(seat)
        if seat.player.id == self.creator.id:
            humans = [s for s in self.seats if s.bot is None]
            if humans:
                self.creator = humans[0].player

    def _ready(self, player: PlayerInfo, msg: Ready, now_ms: int) -> list[Outbound]:
        seat = self._playing_seat(player)
        phases.require(self.phase, Ready)
        seat.ready = msg.ready
        full = len(self.seats) == self.settings.seats
        if full and all(s.ready for s in self.seats):
            return self.dealer.deal_next(now_ms, ref=msg.ref, actor=player.id)
        return self.out.room_update(now_ms, ref=msg.ref, actor=player.id)

    def _start(self, player: PlayerInfo, msg: StartMatch, now_ms: int) -> list[Outbound]:
        self._require_member(player)
        if player.id != self.creator.id:
            raise errors.NotCreator("only the room's creator may start the match")
        phases.require(self.phase, StartMatch)
        if not self.seats:  # the creator left its seat to watch, and nobody sat down
            raise errors.NotSeated("nobody is seated: take a seat to start the match")
        return self.dealer.deal_next(now_ms, ref=msg.ref, actor=player.id)

    def _add_bot(self, player: PlayerInfo, msg: AddBot, now_ms: int) -> list[Outbound]:
        self._require_member(player)
        if player.id != self.creator.id:
            raise errors.NotCreator("only the room's creator may add a bot")
        phases.require(self.phase, AddBot)
        if len(self.seats) >= self.settings.seats:
            raise errors.RoomFull(f"all {self.settings.seats} seats are taken")
        if self.settings.rated:
            raise errors.NotRateable("bots do not play rated rooms")
        self.seat_bot(msg.strategy)
        return self.out.room_update(now_ms, ref=msg.ref, actor=player.id)

    def _rematch(self, player: PlayerInfo, msg: Rematch, now_ms: int) -> list[Outbound]:
        seat = self._playing_seat(player)
        phases.require(self.phase, Rematch)
        if self.next_series is None:  # a room that commits to no rematch (no ids)
            raise errors.SeriesNotOver("a rematch can be offered once the match is over")
        gone = [s.player.name for s in self.seats if s.bot is None and not s.present]
        if gone and msg.want:
            raise errors.PlayerNotFound(f"{', '.join(gone)} left the room: no rematch")
        seat.rematch = msg.want
        if msg.want and msg.contribution:
            seat.contribution = msg.contribution
        if not all(s.rematch or s.bot is not None for s in self.seats):
            return self.out.room_update(now_ms, ref=msg.ref, actor=player.id)
        # Everyone wants it: the series committed to when the last one ended begins.
        self.series, self.next_series = self.next_series, None
        for s in self.seats:
            s.rematch = False
        self.finished_at = None
        return self.dealer.deal_next(now_ms, ref=msg.ref, actor=player.id)

    def seat_bot(self, strategy: str) -> PlayerInfo:
        """Fill the next seat with a server-side bot; UnknownStrategy changes nothing."""
        n = 1 + sum(1 for s in self.seats if s.player.id.startswith(f"bot-{strategy}-"))
        bot = PlayerInfo(id=f"bot-{strategy}-{n}", name=f"{strategy} bot {n}", bot=True)
        seed = bot_seats.seat_seed(self.id, bot.id)
        chooser = bot_seats.chooser(self.bot_factory, strategy, seed)
        self.seats.append(Seat(bot, "", ready=True, bot=chooser, strategy=strategy, bot_seed=seed))
        return bot

    def play_as_bot(self, player_id: str, strategy: str) -> None:
        """Hand a seat the lobby filled to a server-side bot (a tournament's bot entrant,
        whose id stays its own); UnknownStrategy changes nothing."""
        seat = self.seat_of(player_id)
        assert seat is not None and self.phase == Phase.WAITING
        seed = bot_seats.seat_seed(self.id, player_id)
        chooser = bot_seats.chooser(self.bot_factory, strategy, seed)
        seat.bot, seat.strategy, seat.bot_seed, seat.ready = chooser, strategy, seed, True

    @step(RoomResult)
    def close_waiting(self, now_ms: int) -> list[Outbound]:
        """The lobby closes a room that waited too long without starting: every
        member is told it has left, and the room is left to the bots (closable)."""
        assert self.phase == Phase.WAITING
        outs = [self.out.address([pid], Left(room_id=self.id)) for pid in self.members()]
        self.seats = [s for s in self.seats if s.bot is not None]
        self.spectators.clear()
        self.room_due = None
        return outs

    def seat_player(self, player: PlayerInfo, contribution: str) -> None:
        """Seat a player the lobby paired into this room (quick play, challenges)."""
        assert self.phase == Phase.WAITING and len(self.seats) < self.settings.seats
        self.seats.append(Seat(player, contribution, ready=True))

    @step(RoomResult)
    def start(self, now_ms: int) -> list[Outbound]:
        """Begin the match of a room the lobby filled itself."""
        return self.dealer.deal_next(now_ms)

    def _playing_seat(self, player: PlayerInfo) -> Seat:
        self._require_member(player)
        seat = self.seat_of(player.id)
        if seat is None:
            raise errors.NotSeated("spectators do not play")
        return seat

    def _place(self, player: PlayerInfo, msg: Place, now_ms: int) -> list[Outbound]:
        self._playing_seat(player)
        phases.require(self.phase, Place)
        m = self.match
        assert m is not None
        board = m.boards[player.id]
        if msg.turn <= board.placed:
            # Over: at lockstep every seat has placed it (the next card is out); in a
            # race any turn before one's latest. Otherwise one has just placed it.
            lockstep = self.settings.pace == Pace.LOCKSTEP
            if msg.turn < (m.turn if lockstep else board.placed):
                raise errors.PastTurn(f"turn {msg.turn} is over")
            raise errors.AlreadyPlaced(f"you have already placed the card of turn {msg.turn}")
        waiting = views.waiting_turn(self, player.id)
        if waiting is None or msg.turn > waiting:
            raise errors.FutureTurn(f"the card of turn {msg.turn} has not been dealt yet")
        if msg.cell not in CELL_NAMES:  # the one spelling: the engine's parse also takes "B3"
            raise errors.RuleError(
                f"unknown cell {msg.cell!r}: cells are a1 to d4, in lower case", code="bad_cell"
            )
        try:
            cell = parse_cell(msg.cell)
        except EngineError as exc:
            raise errors.RuleError.from_engine(exc) from None
        problem = board.grid.why_illegal(cell)
        if problem is not None:
            raise errors.RuleError.from_engine(problem)
        # Accepted: from here on the room changes.
        outs = self.dealer.put_card(player.id, cell, now_ms, auto=False, ref=msg.ref)
        return outs + self.dealer.advance(now_ms, placed_by=player.id)

    def _changed(self, now_ms: int) -> list[Outbound]:
        """Seats changed (connection, presence): tell the members."""
        outs = self.out.room_update(now_ms)
        if self.match is not None and self.phase == Phase.PLAYING:
            outs += self.out.progress_now(now_ms)
        return outs

    # ------------------------------------------------------------------
    # What the deal being played and the lobby set off

    @step(RoomResult)
    def resume(self, now_ms: int) -> list[Outbound]:
        """After :func:`server.room.restore.restore`: deal on, ask the bots, finish a
        deal already complete."""
        if self.phase != Phase.PLAYING:
            return []
        return self.dealer.bots_play(now_ms) + self.dealer.advance(now_ms)

    @step(RoomResult)
    def time_up(self, now_ms: int) -> list[Outbound]:
        """A clock above the room's ran out (a tournament's round clock): every card
        still unplaced is placed automatically, as when a race's deal clock runs
        out, and the series ends with this deal."""
        self.last_deal = True
        if self.phase == Phase.BETWEEN:
            return self.results.end_series(now_ms)
        return self.dealer.end_deal_now(now_ms, "round_clock")

    def bot_waits(self, player_id: str, turn: int) -> bool:
        """Whether the bot seat ``player_id`` still has ``turn`` to place (the clock did
        not place it first, and the deal is not over)."""
        return self.match is not None and views.waiting_turn(self, player_id) == turn

    @step(RoomResult)
    def bot_move(self, player_id: str, turn: int, cell: int, now_ms: int) -> list[Outbound]:
        """The move a bot seat's strategy chose for ``turn`` (trusted: from the server itself).

        Refused, changing nothing, when the turn is no longer waiting (the clock
        placed the card first, or the match is over) or the cell is not legal.
        """
        seat = self.seat_of(player_id)
        if seat is None or seat.bot is None:
            raise errors.NotSeated(f"{player_id} is not a bot seat of room {self.id}")
        phases.require(self.phase, Place)
        m = self.match
        assert m is not None
        if views.waiting_turn(self, player_id) != turn:
            raise errors.PastTurn(f"turn {turn} is not waiting for {player_id}")
        problem = m.boards[player_id].grid.why_illegal(cell)
        if problem is not None:
            raise errors.RuleError.from_engine(problem)
        outs = self.dealer.put_card(player_id, cell, now_ms, auto=False)
        return outs + self.dealer.advance(now_ms, placed_by=player_id)

    @step(RoomResult)
    def lift_embargo(self, embargo: str, now_ms: int) -> list[Outbound]:
        """Every table of this room's tournament round has finished: the deals of its
        series may be shown to everyone, and the spectators get the result they
        were not shown (a snapshot with it)."""
        series = self.series
        if series.embargo != embargo or series.embargo_lifted:
            return []
        series.embargo_lifted = True
        m = self.match
        if m is None or m.result is None:
            return []
        return [self.out.send_state(pid, now_ms) for pid in self.spectators]

    def send_state(self, player_id: str, now_ms: int, ref: str | None = None) -> Outbound:
        """``player_id``'s snapshot (:meth:`view_for`), for the lobby to send (a
        sign-in, a resync, a spectator let in): the card it shows now counts as
        dealt to that player (:meth:`Addresser.send_state`)."""
        return self.out.send_state(player_id, now_ms, ref)

    # ------------------------------------------------------------------
    # Connections and time

    @step(RoomResult)
    def set_connected(self, player_id: str, connected: bool, now_ms: int) -> list[Outbound]:
        """A member's first connection opened (send it a snapshot) or its last one closed."""
        if player_id in self.spectators:
            if connected:
                return [self.out.send_state(player_id, now_ms)]
            del self.spectators[player_id]
            return self.out.room_update(now_ms)
        seat = self.seat_of(player_id)
        if seat is None or not seat.receives:
            return []
        if connected:
            was = seat.connected
            seat.connected, seat.away_since, seat.timed_out = True, None, False
            outs = [self.out.send_state(player_id, now_ms)]
            return outs + (self._changed(now_ms) if not was else [])
        if not seat.connected:
            return []
        seat.connected, seat.away_since = False, now_ms
        return self._changed(now_ms)

    @step(RoomResult)
    def tick(self, now_ms: int) -> list[Outbound]:
        """Let time pass: grace periods end, clocks run out and cards are auto-placed,
        and a room update that was held back goes out."""
        outs = self._tick(now_ms)
        due = self.room_due
        if due is not None and now_ms >= due:
            outs += self.out.room_update(now_ms, at_once=True)
        return outs

    def _tick(self, now_ms: int) -> list[Outbound]:
        outs: list[Outbound] = []
        if self.phase == Phase.BETWEEN:
            due_at = self.series.next_at
            if due_at is not None and now_ms >= due_at:
                return self.dealer.deal_next(now_ms)
            return outs
        if self.phase == Phase.WAITING:
            gone = [
                s
                for s in self.seats
                if s.away_since is not None and now_ms - s.away_since >= self.grace_ms
            ]
            for seat in gone:
                self._remove_seat(seat)
            if gone:
                outs += self.out.room_update(now_ms)
            return outs
        m = self.match
        if self.phase != Phase.PLAYING or m is None:
            return outs
        lost = [
            s
            for s in self.seats
            if s.away_since is not None
            and s.present
            and not s.timed_out
            and now_ms - s.away_since >= self.grace_ms
        ]
        for seat in lost:  # away too long: the server plays the rest of the deal for it
            seat.timed_out = True
            self.series.gone.add(seat.player.id)
            self.abandoned(seat.player.id, Abandonment.TIMEOUT, now_ms)
        if lost:
            outs += self.dealer.bots_play(now_ms) + self.dealer.advance(now_ms)
            if self.phase != Phase.PLAYING:
                return outs
        if self.settings.pace == Pace.LOCKSTEP:
            if now_ms >= m.turn_started + self.settings.card_clock_ms:
                for seat in self.seats:
                    if m.boards[seat.player.id].placed < m.turn:
                        outs += self.dealer.auto_place(seat.player.id, now_ms, "card_clock")
                outs += self.dealer.advance(now_ms)
        elif now_ms >= m.started_at + self.settings.deal_clock_ms:
            for seat in self.seats:
                while m.boards[seat.player.id].placed < TURNS:
                    outs += self.dealer.auto_place(seat.player.id, now_ms, "deal_clock")
            outs += self.dealer.advance(now_ms)
        due = self.progress_due
        if self.phase == Phase.PLAYING and due is not None and now_ms >= due:
            outs += self.out.progress_now(now_ms)
        return outs
