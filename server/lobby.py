"""The lobby: every room in memory, who is in which, and the commands that span rooms.

Like a room, the lobby is synchronous and does no I/O: it creates rooms, lists
the public ones, finds a room by id or invite code, routes room commands to
their room after checking membership, and forwards connection changes and clock
ticks. It collects the rooms' domain events in :attr:`Lobby.events` for storage.

It also pairs players: the quick-play queue, the arena and challenges
(:mod:`server.head_to_head`) ask for head-to-head rooms, which the lobby opens
with both players seated once the desk's step is done (:mod:`server.requests`),
and when a rated series ends it moves the two players' ratings
(:class:`server.ratings.RatingBook`), people against people, bot programs in
the arena's pool only (:func:`server.head_to_head.rating_pool`).
"""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter, deque
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from engine.ranking import game_score
from protocol.connection import ErrorMessage, ListOnline, Online
from protocol.daily import DailyRequest
from protocol.deals import Place
from protocol.fields import Pace, PlayerInfo, Visibility
from protocol.head_to_head import (
    AnswerChallenge,
    BotLevel,
    Bots,
    CancelQuickPlay,
    Challenge,
    GetLeaderboard,
    Leaderboard,
    LeaderboardEntry,
    ListBots,
    QuickPlay,
    RatingChange,
    RatingsChanged,
)
from protocol.names import name_key
from protocol.rooms import (
    CreateRoom,
    InRoomRequest,
    JoinRoom,
    Left,
    ListRooms,
    Rematch,
    RoomOrigin,
    Rooms,
)
from protocol.tournaments import TournamentRequest
from protocol.wire import ClientMessage
from server import errors, visibility
from server.alarms import Alarms
from server.config import LobbyConfig
from server.daily.desk import Calendar, DailyDesk
from server.events import Event, MatchEnded, RatingChanged, SeriesEnded, TournamentEvent
from server.head_to_head import HeadToHead, OpenChallenge, Waiting, rating_pool
from server.ids import IdSource
from server.listing import BadCursor
from server.ratings import PROVISIONAL_DEVIATION, Entry, Rating, RatingBook
from server.recovery import Resumable, StoredTable
from server.registry import RoomRegistry
from server.requests import (
    ActOnTable,
    DeskResult,
    LiftEmbargo,
    OpenDailyAttempt,
    OpenHeadToHead,
    OpenTable,
    Request,
    TableRequest,
    TablesOpened,
)
from server.room import BotFactory, BotTurn, Outbound, Phase, Room, RoomResult, RoomSettings
from server.room.restore import restore as restore_room
from server.series import SecretScheme
from server.step import SharedNotes, StepFailed, StepOutput
from server.tournaments.hosting import TournamentDesk

log = logging.getLogger(__name__)


class Lobby:
    def __init__(
        self,
        config: LobbyConfig | None = None,
        *,
        ids: IdSource | None = None,
        bots: BotFactory | None = None,
        think_elsewhere: bool = False,
        levels: Sequence[BotLevel] = (),
        daily_calendar: Calendar | None = None,
        registry: RoomRegistry | None = None,
    ) -> None:
        self.config = config or LobbyConfig()
        self.ids = ids or IdSource()
        self.bots = bots
        self.levels = list(levels)  # the server bots' ladder, for list_bots
        # True: rooms do not run their bots' strategies but ask (bot_turns) and are
        # answered through bot_move; the server thinks in other processes.
        self.think_elsewhere = think_elsewhere
        self.registry = registry or RoomRegistry()
        self.rooms = self.registry.rooms  # by id
        self._events: list[Event] = []
        self._bot_turns: list[BotTurn] = []
        self.alarms = Alarms()  # when each room next has something to do
        self.online: dict[str, PlayerInfo] = {}  # signed-in players by id
        # Names find players by key (protocol.names.name_key): the online ones holding
        # their name's key, by key. Guests hold none, nor do the ``shadowed``: players
        # whose name's key an earlier player holds (server.identity, kept from before keys).
        self._named: dict[str, str] = {}
        self.shadowed: set[str] = set()
        self.ratings = RatingBook()
        # Quick play, the arena and challenges: its pairings come back as requests.
        self.head_to_head = HeadToHead(self.config, self.ids, self.ratings, bots)
        # A cluster's node's lobby: what the step being run changed that the other nodes
        # hear of (it leaves with the step's output: run).
        self._shared: SharedNotes | None = None
        self._carrying: deque[Request] | None = None  # the requests being carried out
        # Rooms done while requests are carried out: forgotten once the queue is empty,
        # since a request made before they were done may still be for them.
        self._closing: dict[str, Room] = {}
        # The address each signed-in player came from (set by the server at sign-in):
        # what rooms and tournaments an address holds open is counted by it.
        self.addresses: dict[str, str] = {}
        self.listed = self.registry.listed  # the public rooms waiting or playing
        # Rooms opened with create_room: who holds them (creator id, its address, and
        # "*" for the whole server) and in which state ("waiting" or "open").
        self._holder: dict[str, tuple[str, ...]] = {}
        self._held_state: dict[str, str] = {}
        self._held: Counter[tuple[str, str]] = Counter()
        self.tournaments = TournamentDesk(
            self.config, self.ids, self.ratings, bots, rooms=self.rooms, addresses=self.addresses
        )
        self.daily = DailyDesk(self.rooms, daily_calendar)  # the daily deal

    def share(self) -> None:
        """This lobby is a cluster's node's: each step's output also carries what the
        other nodes hear of (:class:`~server.step.SharedNotes`)."""
        self._shared = SharedNotes()
        self.tournaments.shared = True  # tables and their directors on any node
        self.head_to_head.shared = True  # its changes copied while the node coordinates

    def run(self, step: Callable[[], list[Outbound]]) -> StepOutput:
        """One step: ``step`` (one of the lobby's commands, ticks or connection changes,
        returning its messages) and everything it decided, in one value (server/step.py).
        Raises what ``step`` raises: a refused command has changed nothing and noted
        nothing. A step a bug cuts short after it decided something raises
        :class:`~server.step.StepFailed` from the bug, with what it decided (the
        rooms' and the directors' notes included): nothing is left for the next step."""
        try:
            messages = step()
        except Exception as exc:
            self._cut_short()
            output = self._output()
            if output.decided():
                raise StepFailed(output) from exc
            raise
        output = self._output()
        output.messages = messages
        return output

    def _cut_short(self) -> None:
        """A step failed: what its rooms and directors noted before the bug joins the
        lobby's notes, as a tick cut short does (their steps did not conclude)."""
        for room in list(self.rooms.values()) + list(self._closing.values()):
            at = room.step_at  # set while a step runs, with its notes: this one's
            if at is not None:
                try:
                    self.settle(room, room.conclude([]), at)
                except Exception:  # a second bug: what it noted stays out
                    log.exception("room %s: what a failed step noted could not be settled",
                                  room.id, extra={"room": room.id})  # fmt: skip
        try:
            cut = self.tournaments.cut_short()
        except Exception:  # a second bug: what they noted stays out
            log.exception("what a failed step's tournaments noted could not be concluded")
            cut = []
        for result, at in cut:
            try:
                self.carry_out(result, at)
            except Exception:  # a second bug: what it noted stays out
                log.exception("what a failed step's tournament asked could not be carried out")

    def _output(self) -> StepOutput:
        """Everything the step just run decided besides its messages, in one piece."""
        output = StepOutput(self._events, self._bot_turns, self._shared)
        self._events, self._bot_turns = [], []
        if self._shared is not None:
            self._shared = SharedNotes()
        return output

    def bot_owner(self, room: Room) -> str:
        """Whose bots play in ``room``, for the share of bot workers each owner gets
        (server.bot_queue): a tournament table's are its host's (a table whose
        director runs on another node: its tournament's), any other room's its
        creator's."""
        tid = visibility.round_embargo_tournament(room.series.embargo)
        if tid is None:
            return room.creator.id
        director = self.tournaments.directors.get(tid)
        return director.host.id if director is not None else f"tournament:{tid}"

    def bot_waits(self, turn: BotTurn) -> bool:
        """Whether a bot's move asked for is still waited for (server.bots.BotPool.wanted)."""
        room = self.rooms.get(turn.room_id)
        return room is not None and room.bot_waits(turn.player_id, turn.turn)

    def rooms_of(self, player_id: str) -> list[Room]:
        return self.registry.rooms_of(player_id)

    def snapshots(self, player_ids: Collection[str], now_ms: int) -> list[Outbound]:
        """To each of ``player_ids``, the snapshot of each room it is in here (a cluster
        node's messages to them may have been lost on the way)."""
        return [room.send_state(pid, now_ms) for pid in player_ids for room in self.rooms_of(pid)]

    # ------------------------------------------------------------------

    def handle(self, player: PlayerInfo, message: ClientMessage, now_ms: int) -> list[Outbound]:
        """Apply one lobby or room command; raise RoomError and change nothing if refused."""
        if type(message) is Place:  # by far the most frequent: straight to its room
            room = self.rooms.get(message.room_id)
            if room is None or not room.is_member(player.id):
                raise errors.NotInRoom(f"you are not in room {message.room_id}")
            return self.settle(room, room.handle(player, message, now_ms), now_ms)
        match message:
            case ListRooms():
                return [Outbound((player.id,), self.list_rooms(message))]
            case ListOnline():
                return [Outbound((player.id,), self.online_page(message))]
            case CreateRoom():
                return self._create(player, message, now_ms)
            case QuickPlay():
                return self.carry_out(self.head_to_head.quickplay(player, message, now_ms), now_ms)
            case CancelQuickPlay():
                return self.carry_out(self.head_to_head.cancel_quickplay(player, message), now_ms)
            case Challenge():
                opponent = self.find_online(message.opponent)
                challenged = self.head_to_head.challenge(player, opponent, message, now_ms)
                return self.carry_out(challenged, now_ms)
            case AnswerChallenge():
                return self.carry_out(self.head_to_head.answer(player, message), now_ms)
            case GetLeaderboard():
                return [Outbound((player.id,), self.leaderboard(player, message))]
            case ListBots():
                bots = Bots(
                    levels=self.levels, quickplay_bot=self.config.quickplay_bot, ref=message.ref
                )
                return [Outbound((player.id,), bots)]
            case _ if isinstance(message, TournamentRequest):  # routed by area
                return self.carry_out(self.tournaments.handle(player, message, now_ms), now_ms)
            case _ if isinstance(message, DailyRequest):
                return self.carry_out(self.daily.handle(player, message, now_ms), now_ms)
            case JoinRoom():
                room = self._find(player, message)
            case _ if isinstance(message, InRoomRequest):
                found = self.rooms.get(message.room_id)
                if found is None or not found.is_member(player.id):
                    raise errors.NotInRoom(f"you are not in room {message.room_id}")
                room = found
            case _:
                raise errors.RoomError(f"{message.type} is not a lobby command", code="bad_message")
        if room.settings.origin == RoomOrigin.DAILY:
            self.daily.screen(room, message)
        elif room.settings.origin == RoomOrigin.TOURNAMENT and isinstance(message, Rematch):
            raise errors.TournamentState(
                "a tournament's table has no rematch: its director pairs the next round"
            )
        return self.settle(room, room.handle(player, message, now_ms), now_ms)

    def list_rooms(self, asked: ListRooms) -> Rooms:
        """A page of the public rooms waiting or playing (BadCursor: not one of ours)."""
        try:
            rooms, after = self.listed.page(asked.after, asked.limit)
        except BadCursor as exc:
            raise errors.RoomError(str(exc), code="bad_message") from None
        summaries = [room.summary() for room in rooms]
        return Rooms(rooms=summaries, next=after, total=len(self.listed), ref=asked.ref)

    def held(self, key: str, state: str) -> int:
        """How many create_room rooms ``key`` (a player id, "@" + an address, or "*")
        holds in ``state`` ("waiting", or "open": started and not finished)."""
        return self._held[(key, state)]

    def _check_holdings(self, player: PlayerInfo) -> None:
        """LimitReached if ``player``, its address or the server holds enough rooms."""
        config = self.config
        if config.max_waiting_rooms and self.held("*", "waiting") >= config.max_waiting_rooms:
            raise errors.LimitReached(
                f"the server has {config.max_waiting_rooms} rooms waiting already:"
                " join one, or try again later"
            )
        address = self.addresses.get(player.id)
        checks = [
            (
                player.id,
                "you already have",
                config.max_waiting_rooms_per_player,
                config.max_open_rooms_per_player,
            )
        ]
        if address is not None:
            checks.append((f"@{address}", "your address already has",
                           config.max_waiting_rooms_per_address,
                           config.max_open_rooms_per_address))  # fmt: skip
        for key, who, most_waiting, most_open in checks:
            waiting = self.held(key, "waiting")
            if most_waiting and waiting >= most_waiting:
                raise errors.LimitReached(
                    f"{who} {waiting} rooms waiting; start or leave one first"
                )
            # Solo rooms start at once: without this one could keep any number playing.
            open_ = waiting + self.held(key, "open")
            if most_open and open_ >= most_open:
                raise errors.LimitReached(
                    f"{who} {open_} rooms waiting or playing; finish one first"
                )

    def _hold(self, room: Room, closing: bool) -> None:
        """Count ``room`` (if opened with create_room) in the state it is in now."""
        holder = self._holder.get(room.id)
        if holder is None:
            return
        if closing:
            state = ""
        elif room.phase == Phase.WAITING:
            state = "waiting"
        elif room.phase == Phase.FINISHED:
            state = "done"
        else:
            state = "open"
        before = self._held_state.get(room.id, "")
        if state == before:
            return
        for key in holder:
            if before:
                self._held[(key, before)] -= 1
                if self._held[(key, before)] <= 0:
                    del self._held[(key, before)]
            if state:
                self._held[(key, state)] += 1
        if state:
            self._held_state[room.id] = state
        else:
            del self._held_state[room.id], self._holder[room.id]

    def _find(self, player: PlayerInfo, message: JoinRoom) -> Room:
        if message.invite_code is not None:
            found = self.registry.by_invite(message.invite_code)
            if found is not None and (message.room_id in (None, found.id)):
                return found
            raise errors.RoomNotFound("no room has that invite code")
        if message.room_id is None:
            raise errors.RoomError("give a room_id or an invite_code", code="bad_message")
        room = self.rooms.get(message.room_id)
        # A private room is invisible to non-members without its code; a
        # tournament's table may be watched by whoever may watch the tournament.
        if room is None or (
            room.settings.visibility == Visibility.PRIVATE
            and room.seat_of(player.id) is None
            and not room.is_member(player.id)
            and not (message.spectate and self.tournaments.watchable(room.id, player.id))
        ):
            raise errors.RoomNotFound(f"no room {message.room_id}")
        return room

    def _create(self, player: PlayerInfo, msg: CreateRoom, now_ms: int) -> list[Outbound]:
        if msg.rated and (msg.seats != 2 or player.guest or player.bot):
            raise errors.NotRateable("a rated room has two seats, for registered players")
        self._check_holdings(player)
        settings = RoomSettings(
            name=msg.name,
            visibility=msg.visibility,
            seats=msg.seats,
            pace=msg.pace,
            card_clock_ms=msg.card_clock_ms,
            deal_clock_ms=msg.deal_clock_ms,
            best_of=msg.deals,
            rated=msg.rated,
        )
        room = self.open_room(settings, player, msg.contribution, now_ms)
        address = self.addresses.get(player.id)
        self._holder[room.id] = (player.id, "*") + ((f"@{address}",) if address else ())
        return self.settle(room, RoomResult([room.send_state(player.id, now_ms, msg.ref)]), now_ms)

    def open_room(
        self,
        settings: RoomSettings,
        creator: PlayerInfo,
        contribution: str,
        now_ms: int,
        *,
        # A tournament table: the round's table root, its deal secrets taken from it
        # on their own (SecretScheme.TABLE), and the round's embargo group.
        server_secret: str | None = None,
        secret_scheme: SecretScheme = SecretScheme.CHAIN,
        embargo: str | None = None,
    ) -> Room:
        room_id = self.ids.room_id()
        while room_id in self.rooms:
            room_id = self.ids.room_id()
        invite = self.ids.invite_code() if settings.visibility == Visibility.PRIVATE else None
        room = Room(
            room_id,
            settings,
            creator,
            now_ms=now_ms,
            server_secret=server_secret or self.ids.server_secret(),
            match_id=self.ids.match_id(),
            invite_code=invite,
            contribution=contribution,
            grace_ms=self.config.grace_ms,
            bots=self.bots,
            think_elsewhere=self.think_elsewhere,
            ids=self.ids,
            between_deals_ms=self.config.between_deals_ms,
            secret_scheme=secret_scheme,
            embargo=embargo,
        )
        self._add(room)
        self._events.append(room.opened())
        return room

    def _add(self, room: Room) -> None:
        self.registry.add(room)
        if self._shared is not None:
            self._shared.rooms.opened.append(room)

    def carry_out(self, result: DeskResult, now_ms: int) -> list[Outbound]:
        """A desk's step done: its messages and events, then each of its requests
        carried out in the order it made them, with their messages and events after
        (server.requests). First in, first out, whatever the nesting: a request made
        while another is carried out waits for every request made before it."""
        outs = result.outs
        self._events += result.events
        shared = self._shared
        if shared is not None:
            shared.placed += result.placed
            shared.elsewhere += result.elsewhere
            shared.results += result.results
            shared.waiting |= result.waiting
            shared.challenges |= result.challenges
        if self._carrying is not None:
            # Asked while another request is carried out (a table's deal ended as it was
            # acted on, and its director asks more): after everything asked before it,
            # by the outermost call, so that the order never depends on the nesting.
            self._carrying.extend(result.requests)
            return outs
        pending = self._carrying = deque(result.requests)
        try:
            while pending:
                request = pending.popleft()
                try:
                    outs += self._carry_out_one(request, now_ms)
                except errors.RoomError as exc:
                    if not isinstance(request, (OpenTable, ActOnTable)):
                        raise
                    log.info("%r not done: %s", request, exc)  # the table had moved on
        finally:
            self._carrying = None
            closing, self._closing = self._closing, {}
            for room in closing.values():
                self._forget(room)
        return outs

    def _carry_out_one(self, request: Request, now_ms: int) -> list[Outbound]:
        match request:
            case OpenHeadToHead():
                return self._open_head_to_head(request, now_ms)
            case OpenDailyAttempt():
                return self._open_daily_attempt(request, now_ms)
            case OpenTable():
                return self._open_table(request, now_ms)
            case TablesOpened(tournament_id=tid):
                # What the director asks next joins the queue, after what was asked
                # before it (carry_out, called while carrying: see there).
                return self.carry_out(self.tournaments.tables_opened(tid, now_ms), now_ms)
            case LiftEmbargo(room_id=room_id, group=group):
                room = self.rooms.get(room_id)
                if room is None:
                    return []
                return self.settle(room, room.lift_embargo(group, now_ms), now_ms)
            case ActOnTable(room_id=room_id, act=act):
                room = self.rooms.get(room_id)
                return [] if room is None else self.settle(room, act(room), now_ms)

    def _open_table(self, table: OpenTable, now_ms: int) -> list[Outbound]:
        """Open a tournament's table, seat its players (bots as it says), tell the desk,
        send each person the room, start it (a player not online starts its grace
        period; then the server plays for it) and settle it."""
        room = self.open_room(
            table.settings,
            table.players[0],
            table.contribution,
            now_ms,
            server_secret=table.root,
            secret_scheme=SecretScheme.TABLE,
            embargo=table.embargo,
        )
        for p in table.players[1:]:
            room.seat_player(p, table.contribution)
        for p, strategy in zip(table.players, table.strategies, strict=True):
            if strategy:
                room.play_as_bot(p.id, strategy)
        self.carry_out(self.tournaments.table_opened(table, room), now_ms)  # nothing to say
        people = [s.player.id for s in room.seats if s.bot is None]
        result = RoomResult([room.send_state(pid, now_ms) for pid in people])
        result += room.start(now_ms)
        for pid in people:
            if pid not in self.online:
                result += room.set_connected(pid, False, now_ms)
        return self.settle(room, result, now_ms)

    def tournament_catch_up(
        self, tournament_id: str, room_id: str, table: StoredTable, now_ms: int
    ) -> list[Outbound]:
        """A tournament table's stored series, read at start or from another node
        (server.tournaments.hosting.TournamentDesk.catch_up)."""
        return self.carry_out(
            self.tournaments.catch_up(tournament_id, room_id, table, now_ms), now_ms
        )

    def tournaments_resumed(self, now_ms: int, elsewhere: Collection[str] = ()) -> list[Outbound]:
        """Every series that could be rebuilt has been: the tournaments carry on
        (server.tournaments.hosting.TournamentDesk.resumed)."""
        return self.carry_out(self.tournaments.resumed(now_ms, elsewhere), now_ms)

    def table_request(self, request: TableRequest, now_ms: int) -> list[Outbound]:
        """What a director on another node asked of a table here (a cluster's)."""
        return self.carry_out(self.tournaments.table_request(request, now_ms), now_ms)

    def _open_daily_attempt(self, asked: OpenDailyAttempt, now_ms: int) -> list[Outbound]:
        """Open an attempt's room, send it, start it and settle it; then the desk keeps
        the attempt, and its beginning is stored after the room's first events."""
        player = asked.player
        room = self.open_room(
            asked.settings, player, asked.contribution, now_ms,
            server_secret=asked.secret, embargo=asked.embargo,
        )  # fmt: skip
        result = RoomResult([room.send_state(player.id, now_ms, asked.ref)])
        result += room.start(now_ms)
        outs = self.settle(room, result, now_ms)
        self._events.append(self.daily.opened(asked, room, now_ms))
        return outs

    def daily_resumed(self, now_ms: int) -> list[Outbound]:
        """After a restart or a takeover, the series rebuilt: the daily desk looks at
        the days again (server.daily.desk.DailyDesk.resumed)."""
        return self.carry_out(self.daily.resumed(now_ms), now_ms)

    def _open_head_to_head(self, asked: OpenHeadToHead, now_ms: int) -> list[Outbound]:
        """Open the room of a pairing, seat both, tell each person and start it."""
        first, second = asked.first, asked.second
        room = self.open_room(asked.settings, first[0], first[1], now_ms)
        if isinstance(second, str):
            room.seat_bot(second)
        else:
            room.seat_player(second[0], second[1])
        result = RoomResult()
        for seat in room.seats:
            if seat.bot is None:
                pid = seat.player.id
                result.messages.append(Outbound((pid,), asked.notice(pid, room.id)))
                result.messages.append(room.send_state(pid, now_ms))
        result += room.start(now_ms)
        if self._shared is not None:
            self._shared.paired.append(room.id)
        return self.settle(room, result, now_ms)

    def restore_waiting(
        self,
        waiting: Iterable[Waiting],
        challenges: Iterable[OpenChallenge],
        present: Collection[str],
        now_ms: int,
    ) -> list[Outbound]:
        """Take back the queue and the challenges a cluster's previous coordinator had
        (server.head_to_head.HeadToHead.restore), pairing whoever can be paired now."""
        restored = self.head_to_head.restore(waiting, challenges, present, now_ms)
        return self.carry_out(restored, now_ms)

    def copy_waiting_again(self, now_ms: int) -> list[Outbound]:
        """A cluster's coordinator whose store lost the queue and the challenges: every
        wait and every challenge counts as changed, to be copied again in full."""
        return self.carry_out(self.head_to_head.touch_all(), now_ms)

    def _holds_name(self, player: PlayerInfo) -> bool:
        return not player.guest and player.id not in self.shadowed

    def find_online(self, name: str) -> PlayerInfo | None:
        """The online player whose id is ``name`` (so an account whose name is shadowed by
        an older holder of its key stays reachable), else the one holding the key of
        ``name``: a registered person or a bot program, never a guest."""
        by_id = self.online.get(name)
        if by_id is not None and not by_id.guest:
            return by_id
        pid = self._named.get(name_key(name))
        return self.online.get(pid) if pid is not None else None

    # ------------------------------------------------------------------
    # Ratings

    def online_page(self, asked: ListOnline) -> Online:
        """Who is signed in now (``list_online``), by name, a page at a time."""
        everyone = sorted(self.online.values(), key=lambda p: (p.name.casefold(), p.id))
        page = everyone[asked.offset : asked.offset + asked.limit]
        return Online(players=page, offset=asked.offset, total=len(everyone), ref=asked.ref)

    def leaderboard(self, player: PlayerInfo, msg: GetLeaderboard) -> Leaderboard:
        pace = rating_pool(msg.pace.value, msg.arena)
        # Ranked players first, by rating; then the provisional ones, unranked.
        board = self.ratings.board(pace)
        board.sort(key=lambda e: e.rating.deviation > PROVISIONAL_DEVIATION)
        entries: list[LeaderboardEntry] = []
        for e in board:
            ranked = e.rating.deviation <= PROVISIONAL_DEVIATION
            entries.append(_entry(len(entries) + 1 if ranked else 0, e))
        around: list[LeaderboardEntry] = []
        wanted = name_key(msg.around) if msg.around is not None else None
        for i, e in enumerate(board):
            if wanted is None:
                found = e.player_id == player.id
            else:  # by id (a shadowed account too), or by the name's holder
                found = e.player_id == msg.around or (
                    name_key(e.name) == wanted and e.player_id not in self.shadowed
                )
            if found:
                around = entries[max(0, i - 5) : i + 6]
                break
        else:
            if msg.around is not None:
                raise errors.PlayerNotFound(f"{msg.around} has no {pace} rating")
        return Leaderboard(
            pace=msg.pace,
            top=entries[: msg.top],
            around=around,
            players=sum(1 for e in entries if e.rank),
            arena=msg.arena,
            ref=msg.ref,
        )

    def _rate(self, room: Room, ended: SeriesEnded) -> list[Outbound]:
        """A rated series ended: move both players' ratings, tell the room."""
        if not ended.rated or ended.aborted or len(room.seats) != 2:
            return []
        a, b = (s.player for s in room.seats)
        arena = room.settings.origin == RoomOrigin.ARENA
        if arena != (a.bot and b.bot) or any(s.bot is not None for s in room.seats):
            # People are rated against people only, bot programs in the arena only,
            # and the server's own bots never.
            log.error("series %s: not rated (players of different pools)", ended.series_id)
            return []
        pool = rating_pool(ended.pace, arena)
        score_a = game_score(ended.winner_id, a.id)
        changes = self.ratings.rate(pool, (a.id, a.name), (b.id, b.name), score_a, ended.at_ms)
        out: list[RatingChange] = []
        for change, who in zip(changes, (a, b), strict=True):
            self._events.append(
                RatingChanged(
                    player_id=change.player_id,
                    pool=pool,
                    series_id=ended.series_id,
                    room_id=room.id,
                    opponent_id=change.opponent_id,
                    score=change.score,
                    before=_triple(change.before),
                    after=_triple(change.after),
                    games=change.games,
                    at_ms=ended.at_ms,
                )
            )
            out.append(
                RatingChange(
                    player=who,
                    before=round(change.before.rating),
                    after=round(change.after.rating),
                    deviation_before=round(change.before.deviation),
                    deviation_after=round(change.after.deviation),
                    provisional=change.after.provisional,
                )
            )
        message = RatingsChanged(room_id=room.id, pace=Pace(ended.pace), changes=out, arena=arena)
        members = room.members()
        return [Outbound(tuple(members), message)] if members else []

    def settle(self, room: Room, result: RoomResult, now_ms: int) -> list[Outbound]:
        """After a command or tick of ``room`` (its ``result``): store its events and act
        on them, take its bots' turns, count and index it again, forget it if it is
        done, and set its alarm. Returns the room's messages, then what the lobby
        itself has to say of them (rating changes, what a desk says)."""
        outs = result.messages + self._act_on(room, result.events, now_ms)
        turns = result.bot_turns
        if turns:
            owner = self.bot_owner(room)
            self._bot_turns.extend(dataclasses.replace(t, owner=owner) for t in turns)
        closing = room.closable(now_ms, self.config.finished_ttl_ms)
        self._hold(room, closing)
        if closing:
            if self._carrying is not None:  # a request in the queue may be for it
                self._closing[room.id] = room
                self.alarms.discard(room.id)
            else:
                self._forget(room)
            return outs
        self._closing.pop(room.id, None)
        joined = self.registry.reindex(room)
        shared = self._shared
        if shared is not None:
            if room.settings.visibility == Visibility.PUBLIC:
                shared.rooms.touched[room.id] = room
            # A seat taken (or taken back) is told where the room runs; a spectator not.
            shared.rooms.seated += [
                (room.id, pid) for pid in sorted(joined) if room.seat_of(pid) is not None
            ]
        self.alarms.set(room.id, self._next_wake(room, now_ms))
        return outs

    def _act_on(self, room: Room, events: list[Event], now_ms: int) -> list[Outbound]:
        """The room's storage events join the lobby's; a rated series that ended moves
        ratings, and a tournament table's deal or series that ended tells its director."""
        outs: list[Outbound] = []
        for event in events:
            self._events.append(event)
            if isinstance(event, SeriesEnded):
                outs += self._rate(room, event)
            tournament = room.settings.origin == RoomOrigin.TOURNAMENT
            if tournament and isinstance(event, (MatchEnded, SeriesEnded)):
                outs += self.carry_out(self.tournaments.room_event(room, event, now_ms), now_ms)
            if room.settings.origin == RoomOrigin.DAILY:
                self.daily.room_event(room, event)
        return outs

    def _forget(self, room: Room) -> None:
        """``room`` leaves memory: nobody is a member of it any more (once: a room
        settled again on the way out of a step may already be forgotten)."""
        if self._drop(room) and self._shared is not None:
            self._shared.rooms.closed.append(room)
            self._shared.rooms.touched.pop(room.id, None)

    def _drop(self, room: Room) -> bool:
        """``room`` leaves memory, nothing noted (whether it was still here)."""
        self.alarms.discard(room.id)
        if self.rooms.get(room.id) is room:
            self.registry.forget(room)
            return True
        return False

    def _next_wake(self, room: Room, now_ms: int) -> int | None:
        """When the clock must next look at ``room``: a deadline, or its time to be
        forgotten (finished), or to be closed (waiting too long)."""
        due = room.next_deadline(now_ms)
        if room.phase == Phase.FINISHED and room.finished_at is not None:
            forget = room.finished_at + self.config.finished_ttl_ms
            return forget if due is None else min(due, forget)
        ttl = self.config.waiting_room_ttl_ms
        if room.phase == Phase.WAITING and ttl:
            expires = room.created_at + ttl
            return expires if due is None else min(due, expires)
        return due

    # ------------------------------------------------------------------

    def restore(self, saved: Resumable, now_ms: int) -> list[Outbound]:
        """Take back a series the server was playing when it stopped (ValueError: cannot)."""
        room = restore_room(
            saved,
            now_ms,
            grace_ms=self.config.grace_ms,
            bots=self.bots,
            think_elsewhere=self.think_elsewhere,
            ids=self.ids,
            between_deals_ms=self.config.between_deals_ms,
        )
        resumed = room.resume(now_ms)  # before the room joins the lobby: a bug leaves none
        self._add(room)
        return self.settle(room, resumed, now_ms)

    # ------------------------------------------------------------------
    # When the database lost what was decided (docs/operations.md)

    def withdraw(self, events: Sequence[Event]) -> tuple[list[Room], list[Outbound]]:
        """The database could not store ``events``: take every room they concern out
        of play now, before it builds on them, and stop the tournaments they concern.

        Returns the rooms taken out (for :meth:`rebuild`) and a ``storage_failed``
        notice to everyone who was in them.
        """
        by_match = {r.match.id: r for r in self.rooms.values() if r.match is not None}
        by_series = {r.series.id: r for r in self.rooms.values()}
        rooms: dict[str, Room] = {}
        tournaments: dict[str, None] = {}
        for event in events:
            if isinstance(event, TournamentEvent):
                tid = getattr(event, "tournament_id", None)  # a lifted embargo names none
                if tid is not None:
                    tournaments[tid] = None
                continue
            found = (
                self.rooms.get(getattr(event, "room_id", ""))
                or by_match.get(getattr(event, "match_id", ""))
                or by_series.get(getattr(event, "series_id", ""))
            )
            if found is not None:
                rooms[found.id] = found
        outs: list[Outbound] = []
        for room in rooms.values():
            members = tuple(room.members())
            self._drop(room)  # nothing noted: the shell rebuilds it or lets it go
            if members:
                notice = ErrorMessage(
                    code=errors.StorageFailed.code,
                    reason="the server could not store this room's last moves: the room goes"
                    " back to what is stored",
                    room_id=room.id,
                )
                outs.append(Outbound(members, notice))
        for tid in tournaments:
            outs += self.tournaments.withdraw(tid)
        return list(rooms.values()), outs

    def rebuild(
        self, saved: Resumable, spectators: Mapping[str, PlayerInfo], now_ms: int
    ) -> list[Outbound]:
        """A room :meth:`withdraw` took out, back as the database has it (as after a
        restart); its members online get its snapshot (ValueError: cannot)."""
        outs = self.restore(saved, now_ms)
        room = self.rooms[saved.room_id]
        result = RoomResult()
        for seat in room.seats:
            if seat.player.id in self.online:
                result += room.set_connected(seat.player.id, True, now_ms)
        for pid, player in spectators.items():
            if pid in self.online and room.seat_of(pid) is None:
                room.spectators[pid] = player
                result.messages.append(room.send_state(pid, now_ms))
        return outs + self.settle(room, result, now_ms)

    def release(self, room_id: str) -> None:
        """Another node runs ``room_id`` from now on (a cluster, docs/scaling.md): it
        leaves this lobby as it is, nothing said, nothing stored (everything it
        decided is stored already) and nothing noted: its listing, invite code and
        lease are the node's to settle, which lets it go outside any step."""
        room = self.rooms.get(room_id)
        if room is not None:
            self._hold(room, True)
            self._drop(room)

    @staticmethod
    def gone(room: Room) -> list[Outbound]:
        """A room :meth:`withdraw` took out that cannot come back: its members are out."""
        members = tuple(room.members())
        return [Outbound(members, Left(room_id=room.id))] if members else []

    def bot_move(
        self, room_id: str, player_id: str, turn: int, cell: int, now_ms: int
    ) -> list[Outbound]:
        """A bot seat's chosen move (see :meth:`Room.bot_move`); RoomError if it came too late."""
        room = self.rooms.get(room_id)
        if room is None:
            raise errors.NotInRoom(f"room {room_id} is gone")
        return self.settle(room, room.bot_move(player_id, turn, cell, now_ms), now_ms)

    def connect(
        self, player: PlayerInfo, now_ms: int, *, address: str | None = None
    ) -> list[Outbound]:
        """A connection of ``player`` signed in (from ``address``, if known): snapshots
        of every room it is in."""
        self.online[player.id] = player
        if self._holds_name(player):
            self._named[name_key(player.name)] = player.id
        if address is not None:
            self.addresses[player.id] = address
        outs: list[Outbound] = self.tournaments.connect(player, now_ms)
        for room in self.rooms_of(player.id):
            outs += self.settle(room, room.set_connected(player.id, True, now_ms), now_ms)
        return outs

    def disconnect(self, player_id: str, now_ms: int) -> list[Outbound]:
        """The last connection of ``player_id`` closed: its seats start their grace
        period, it leaves the quick-play queue, its challenges are withdrawn."""
        gone = self.online.pop(player_id, None)
        if gone is not None and self._named.get(name_key(gone.name)) == player_id:
            del self._named[name_key(gone.name)]
        self.addresses.pop(player_id, None)
        outs = self.carry_out(self.head_to_head.disconnect(player_id), now_ms)
        for room in self.rooms_of(player_id):
            outs += self.settle(room, room.set_connected(player_id, False, now_ms), now_ms)
        return outs

    def tick(self, now_ms: int) -> list[Outbound]:
        """Let time pass for the rooms that have something due; the others are not visited."""
        due = [self.rooms[room_id] for room_id in self.alarms.due(now_ms)]
        outs: list[Outbound] = []
        ttl = self.config.waiting_room_ttl_ms
        for room in due:
            try:
                if ttl and room.phase == Phase.WAITING and now_ms >= room.created_at + ttl:
                    result = room.close_waiting(now_ms)
                else:
                    result = room.tick(now_ms)
            except Exception:  # one broken room must not stop every other room's clock
                log.exception("room %s failed to tick", room.id, extra={"room": room.id})
                result = room.conclude([])  # what it decided before it failed is kept
            outs += self.settle(room, result, now_ms)
        outs += self.carry_out(self.head_to_head.tick(now_ms), now_ms)
        if self.tournaments.directors:
            outs += self.carry_out(self.tournaments.tick(now_ms), now_ms)
        outs += self.carry_out(self.daily.tick(now_ms), now_ms)
        return outs


def _triple(rating: Rating) -> tuple[float, float, float]:
    return (rating.rating, rating.deviation, rating.volatility)


def _entry(rank: int, e: Entry) -> LeaderboardEntry:
    return LeaderboardEntry(
        rank=rank,
        player=PlayerInfo(id=e.player_id, name=e.name),
        rating=round(e.rating.rating),
        deviation=round(e.rating.deviation),
        games=e.games,
        provisional=e.rating.deviation > PROVISIONAL_DEVIATION,
    )
