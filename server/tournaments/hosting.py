"""The lobby's tournament desk: every tournament director, and the rooms they play in.

Synchronous and without I/O, like the lobby it belongs to, and it does not hold
the lobby: it reads the lobby's rooms, who is online and from where, and its
steps return a :class:`~server.requests.DeskResult` with the directors' storage
events and what they ask of rooms, as requests the lobby carries out after the
step (server/requests.py): open a table as a room on the round's table root,
under the round's embargo, and start it; stop the tables a round clock
overtook; make a withdrawn entrant leave its table; lift the embargo in the
rooms of a round that is over. It tells a director when one of its tables has
finished a deal or its series, and when the tables it asked for are open.

After a restart it takes back the tournaments being run (:meth:`TournamentDesk.restore`,
from each director's stored snapshot), claims their tables' rooms before the
lobby rebuilds them, and once every series that could be has been rebuilt,
ends the tables whose room could not be (:meth:`TournamentDesk.resumed`).

On a cluster (:attr:`TournamentDesk.shared`, docs/scaling.md) a director's
tables may be played in other nodes' lobbies, and this lobby may play tables
whose director is elsewhere. The desk then only notes what crosses nodes, for
the node to carry: the tables it opened (to be placed on a node), what a
director asks of tables not in this lobby, and the tables here whose director
is elsewhere that finished a deal or their series (the result is in the stored
series; the director is told to read it, :meth:`TournamentDesk.catch_up`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping
from typing import Any

from protocol.connection import ErrorMessage
from protocol.fields import PlayerInfo, Visibility
from protocol.prepared import Prepared, TournamentText, tournament_update
from protocol.rooms import LeaveRoom
from protocol.tournaments import (
    AddTournamentBot,
    CreateTournament,
    GetTournament,
    JoinTournament,
    LeaveTournament,
    ListTournaments,
    ManageTournament,
    Tournaments,
)
from protocol.wire import ClientMessage
from server import errors, visibility
from server.alarms import Alarms
from server.config import LobbyConfig
from server.events import MatchEnded, SeriesEnded
from server.ids import IdSource
from server.listing import BadCursor, Listing
from server.ratings import RatingBook
from server.recovery import StoredTable
from server.requests import (
    ActOnTable,
    DeskResult,
    Forfeit,
    LiftEmbargo,
    OpenTable,
    Reveal,
    StopTable,
    TableRequest,
    TablesOpened,
    WatchTable,
)
from server.room import BotFactory, Outbound, Room, RoomResult, bot_seats
from server.tournaments import views
from server.tournaments.director import Director
from server.tournaments.formats import settings_for
from server.tournaments.result import DirectorResult

_RoomAction = Callable[[Room], RoomResult]


log = logging.getLogger(__name__)


class TournamentDesk:
    def __init__(
        self,
        config: LobbyConfig,
        ids: IdSource,
        ratings: RatingBook,
        bots: BotFactory | None,
        *,
        rooms: Mapping[str, Room],
        addresses: Mapping[str, str],
    ) -> None:
        self.config = config
        self.ids = ids
        self.ratings = ratings
        self.bots = bots
        self.rooms = rooms  # the lobby's, read only: is a table's room here?
        self.addresses = addresses  # where each signed-in player came from (the lobby's)
        self.directors: dict[str, Director] = {}
        self._invites: dict[str, str] = {}  # invite code -> tournament id
        self._rooms: dict[str, str] = {}  # room id -> tournament id, while the table plays
        self._restored: list[Director] = []  # taken back after a restart, until resumed()
        # The public tournaments, in the order they were made (list_tournaments pages it).
        self.listed: Listing[Director] = Listing()
        # Tournament ids by who holds them (host id, "@" + its address, "*": all),
        # over or not: pruned as they are counted (_holding).
        self._held: dict[str, set[str]] = {}
        # Each tournament's info as last written (get_tournament, a member signing in),
        # until it changes: every change of a director ends in _run, which drops it.
        self._written: dict[str, TournamentText] = {}
        self.alarms = Alarms()  # when each tournament next has something to do
        # A cluster node's desk: tables and directors may be on other nodes. What crosses
        # nodes is noted in the step's result (DeskResult.placed, .elsewhere, .results),
        # for the node to carry.
        self.shared = False
        # Who may watch a table here whose director is elsewhere, as its director said
        # (or the store, after a takeover): room id -> (anyone, the members).
        self._watch: dict[str, tuple[bool, frozenset[str]]] = {}

    # ------------------------------------------------------------------
    # Commands

    def handle(self, player: PlayerInfo, message: ClientMessage, now_ms: int) -> DeskResult:
        match message:
            case ListTournaments():
                return DeskResult([Outbound((player.id,), self.list_tournaments(message, now_ms))])
            case CreateTournament():
                director = self._create(player, message, now_ms)
                stepped = director.opened(now_ms)
                stepped.messages.append(
                    Outbound((player.id,), director.update(now_ms, message.ref))
                )
            case JoinTournament():
                director = self._find(player, message.tournament_id, message.invite_code)
                if message.spectate:
                    stepped = director.spectate(player, now_ms, message.ref)
                else:
                    stepped = director.register(player, message.contribution, now_ms, message.ref)
                return self._run(director, stepped, now_ms).add(self._rewatch(director))
            case LeaveTournament():
                director = self._find(player, message.tournament_id, None)
                stepped = director.leave(player, now_ms, message.ref)
                return self._run(director, stepped, now_ms).add(self._rewatch(director))
            case ManageTournament():
                director = self._find(player, message.tournament_id, None)
                stepped = director.manage(
                    player,
                    message.action,
                    now_ms,
                    player_id=message.player_id,
                    admin=self._admin(player),
                    ref=message.ref,
                )
            case AddTournamentBot():
                director = self._find(player, message.tournament_id, None)
                stepped = director.add_bots(
                    player,
                    message.strategy,
                    message.count,
                    now_ms,
                    admin=self._admin(player),
                    ref=message.ref,
                )
            case GetTournament():
                director = self._find(player, message.tournament_id, None)
                answer = self.answer(director, now_ms, message.ref)
                return DeskResult([Outbound((player.id,), answer)])
            case _:
                raise errors.RoomError(f"{message.type} is not a tournament command",
                                       code="bad_message")  # fmt: skip
        return self._run(director, stepped, now_ms)

    def answer(self, director: Director, now_ms: int, ref: str | None = None) -> Prepared:
        """``director``'s tournament as its members see it (Director.update), written
        once until it changes: a field of 512 is 200 kB, asked for as often as anyone
        likes (the hub charges its size, docs/operations.md)."""
        written = self._written.get(director.id)
        if written is None:
            written = self._written[director.id] = TournamentText.of(director.info(now_ms))
        return tournament_update(written, *views.timers(director, now_ms), ref)

    def _rewatch(self, director: Director) -> DeskResult:
        """Its members changed: its tables on other nodes are told who may watch them."""
        if not self.shared:
            return DeskResult()
        anyone = director.settings.visibility == Visibility.PUBLIC
        members = tuple(director.members())
        return DeskResult(
            elsewhere=[
                WatchTable(room_id, anyone, members)
                for room_id in director.room_ids()
                if room_id not in self.rooms and not anyone
            ]
        )

    def _admin(self, player: PlayerInfo) -> bool:
        """A server admin: a registered person whose id the operator named (never a name)."""
        return not player.guest and not player.bot and player.id in self.config.admins

    def list_tournaments(self, asked: ListTournaments, now_ms: int) -> Tournaments:
        """A page of the public tournaments (held in memory: not over, or over recently)."""
        try:
            directors, after = self.listed.page(asked.after, asked.limit)
        except BadCursor as exc:
            raise errors.RoomError(str(exc), code="bad_message") from None
        return Tournaments(
            tournaments=[d.summary(now_ms) for d in directors],
            next=after,
            total=len(self.listed),
            ref=asked.ref,
        )

    def _holding(self, key: str, registering: bool = False) -> int:
        """How many tournaments ``key`` holds not yet over (or, ``registering``: not
        yet started); forgets those it no longer holds."""
        held = self._held.get(key)
        if not held:
            return 0
        for tid in list(held):
            d = self.directors.get(tid)
            if d is None or d.over or (registering and d.phase != "registering"):
                held.discard(tid)
        if not held:
            del self._held[key]
        return len(held)

    def _create(self, player: PlayerInfo, msg: CreateTournament, now_ms: int) -> Director:
        config = self.config
        most = config.max_registering_tournaments
        if most and self._holding("*", registering=True) >= most:
            raise errors.LimitReached(
                f"the server has {most} tournaments not yet started: join one, or try later"
            )
        mine = self._holding(player.id)
        if mine >= config.max_tournaments_per_host:
            raise errors.LimitReached(f"you already host {mine} tournaments not yet over")
        address = self.addresses.get(player.id)
        if address is not None and config.max_tournaments_per_address:
            theirs = self._holding(f"@{address}")
            if theirs >= config.max_tournaments_per_address:
                raise errors.LimitReached(
                    f"your address already hosts {theirs} tournaments not yet over"
                )
        settings = settings_for(
            msg,
            now_ms,
            between_rounds_ms=config.between_rounds_ms,
            between_deals_ms=config.between_deals_ms,
        )
        ids = self.ids
        tid = ids.room_id()
        while tid in self.directors:
            tid = ids.room_id()
        invite = ids.invite_code() if settings.visibility == Visibility.PRIVATE else None
        director = Director(
            tid,
            settings,
            player,
            now_ms=now_ms,
            root_secret=ids.server_secret(),
            invite_code=invite,
            rating_of=self._rating_of(settings.pace.value),
            known_strategy=self._known_strategy,
            registration_ttl_ms=config.registration_ttl_ms,
        )
        self._add(director, address)
        return director

    def _add(self, director: Director, address: str | None = None) -> None:
        self.directors[director.id] = director
        if director.invite_code is not None:
            self._invites[director.invite_code] = director.id
        if director.settings.visibility == Visibility.PUBLIC:
            self.listed.add(director.id, director)
        holders = [director.host.id, "*"] + ([f"@{address}"] if address else [])
        for key in holders:
            self._held.setdefault(key, set()).add(director.id)
        self._schedule(director)

    def _forget(self, director: Director) -> None:
        del self.directors[director.id]
        self._written.pop(director.id, None)
        self.alarms.discard(director.id)
        if director.invite_code is not None:
            self._invites.pop(director.invite_code, None)
        self.listed.discard(director.id)

    def _rating_of(self, pace: str) -> Callable[[str], float]:
        ratings = self.ratings
        return lambda pid: ratings.get(pid, pace).rating

    def _known_strategy(self, name: str) -> bool:
        return bot_seats.known(self.bots, name)

    def _find(self, player: PlayerInfo, tid: str | None, invite: str | None) -> Director:
        if invite is not None:
            found = self._invites.get(invite)
            if found is not None and tid in (None, found):
                return self.directors[found]
            raise errors.TournamentNotFound("no tournament has that invite code")
        director = self.directors.get(tid or "")
        # A private tournament is invisible to those not in it, as a private room is.
        if director is None or not visibility.tournament_found(
            director.settings.visibility.value,
            director.is_member(player.id) or self._admin(player),
        ):
            raise errors.TournamentNotFound(f"no tournament {tid}")
        return director

    # ------------------------------------------------------------------
    # Carrying out what a director decided

    def _run(self, director: Director, stepped: DirectorResult, now_ms: int) -> DeskResult:
        """A step of ``director`` done (``stepped``): its messages and events, and what
        it asked of rooms as requests for the lobby; then its alarm, for when it next
        has something to do. (What it asks once its tables are open comes when it is
        told they are: :meth:`tables_opened`.)"""
        result = self._requests_of(director, stepped, now_ms)
        self._written.pop(director.id, None)  # it may have changed: written again when asked
        self._schedule(director)
        return result

    def live(self, tournament_id: str) -> dict[str, Any] | None:
        """A query for the HTTP API: what a tournament still being played here says
        that the store does not, its status and its live standings (as of the rounds
        over, server.visibility), as JSON. None: over, or not run here."""
        director = self.directors.get(tournament_id)
        if director is None or director.over:
            return None
        live = director.standings(shown=True)
        return {
            "status": director.status(),
            "length": views.length(director),  # a bracket's rounds, once drawn
            "standings": [s.model_dump(mode="json") for s in live],
        }

    def cut_short(self) -> list[tuple[DeskResult, int]]:
        """What each director noted in a step a bug cut short, as that step's result,
        with the step's time (a director with notes between steps has one only so)."""
        found: list[tuple[DeskResult, int]] = []
        for director in list(self.directors.values()):
            at = director.step_at
            if at is not None:
                found.append((self._run(director, director.conclude([]), at), at))
        return found

    def _schedule(self, director: Director) -> None:
        """The clock looks at ``director`` next at its next deadline, or, once it is
        over, when it is to be forgotten (entries that no longer match are skipped)."""
        if director.over and director.finished_at is not None:
            wake: int | None = director.finished_at + self.config.finished_ttl_ms
        else:
            wake = director.next_deadline()
        self.alarms.set(director.id, wake)

    def _requests_of(self, director: Director, stepped: DirectorResult, now_ms: int) -> DeskResult:
        """The director's messages and events, and what it asked of rooms, in its
        order: the tables to open, then (if any) the word that they are open; each
        other request as :meth:`table_request` makes it."""
        result = DeskResult(stepped.messages, events=stepped.events)
        opened = False
        for request in stepped.requests:
            if isinstance(request, OpenTable):
                opened = True
                result.requests.append(request)
            else:
                result.add(self.table_request(request, now_ms))
        if opened:
            result.requests.append(TablesOpened(director.id))
        return result

    def table_request(self, request: TableRequest, now_ms: int) -> DeskResult:
        """What a director asked of its tables' rooms in this lobby, as requests for the
        lobby; on a cluster, what concerns rooms not here is noted
        (``DeskResult.elsewhere``) for their owners."""
        match request:
            case StopTable():
                return self._in_room(request, lambda r: r.time_up(now_ms))
            case Forfeit(player=who):
                return self._in_room(request, _leave(who, now_ms))
            case Reveal(embargo=embargo, room_ids=room_ids):
                return self._reveal(embargo, room_ids)
            case WatchTable(room_id=room_id, anyone=anyone, members=members):
                if room_id in self.rooms:
                    self.watched_as(room_id, anyone, members)
                elif self.shared:
                    return DeskResult(elsewhere=[request])
                return DeskResult()

    def _reveal(self, embargo: str, room_ids: tuple[str, ...]) -> DeskResult:
        """Lift a round's embargo in its tables' rooms still open (the director stored
        it); those on other nodes are noted for their owners."""
        here = [r for r in room_ids if r in self.rooms]
        away = tuple(r for r in room_ids if r not in self.rooms)
        result = DeskResult(requests=[LiftEmbargo(room_id, embargo) for room_id in here])
        if away and self.shared:
            result.elsewhere.append(Reveal(embargo, away))
        return result

    def _in_room(self, request: StopTable | Forfeit, act: _RoomAction) -> DeskResult:
        if request.room_id not in self.rooms:
            return DeskResult(elsewhere=[request] if self.shared else [])
        return DeskResult(requests=[ActOnTable(request.room_id, act, repr(request))])

    def table_opened(self, req: OpenTable, room: Room) -> DeskResult:
        """The lobby opened the room of a table this desk asked for, its players
        seated: its director and the desk know the room from now on (on a cluster,
        the room is to be placed)."""
        director = self.directors.get(req.tournament_id)
        if director is None:  # withdrawn meanwhile: the room plays on, as a withdrawn one's
            return DeskResult()
        director.table_opened(req.round, req.table, room.id, room.series.id)
        self._rooms[room.id] = director.id
        return DeskResult(placed=[room.id] if self.shared else [])

    def tables_opened(self, tournament_id: str, now_ms: int) -> DeskResult:
        """The tables the director asked for are open: it starts their round's clock,
        and what it asks next is carried out."""
        director = self.directors.get(tournament_id)
        if director is None:
            return DeskResult()
        return self._run(director, director.tables_opened(now_ms), now_ms)

    # ------------------------------------------------------------------
    # After a restart

    def restore(
        self,
        state: Mapping[str, Any],
        saved_ms: int,
        room_activity: Mapping[str, int],
        now_ms: int,
    ) -> Director:
        """Take back a tournament from its stored snapshot (ValueError: cannot) and
        claim its tables' rooms, which the lobby rebuilds next (Lobby.restore)."""
        settings = state.get("settings")
        pace = settings.get("pace") if isinstance(settings, dict) else None
        director = Director.restore(
            state,
            saved_ms=saved_ms,
            now_ms=now_ms,
            room_activity=room_activity,
            rating_of=self._rating_of(str(pace)),
            known_strategy=self._known_strategy,
            registration_ttl_ms=self.config.registration_ttl_ms,
        )
        if director.id in self.directors:
            raise ValueError(f"tournament {director.id} is already running")
        self._add(director)
        for room_id in director.room_ids():
            self._rooms[room_id] = director.id
        self._restored.append(director)
        return director

    def tables_to_check(self) -> list[tuple[str, str, str]]:
        """(tournament id, room id, series id) of every table the tournaments taken
        back think is still playing: their stored series may know more."""
        return [(d.id, room, series) for d in self._restored for room, series in d.playing_tables()]

    def catch_up(
        self, tournament_id: str, room_id: str, table: StoredTable, now_ms: int
    ) -> DeskResult:
        """A table's stored series, read at start (Director.catch_up)."""
        director = self.directors.get(tournament_id)
        if director is None:
            return DeskResult()
        stepped = director.catch_up(room_id, table.deals, table.finished, table.winner_id, now_ms)
        if table.finished:
            self._rooms.pop(room_id, None)
        return self._run(director, stepped, now_ms)

    def watchable(self, room_id: str, player_id: str) -> bool:
        """May ``player_id`` watch ``room_id``, a table of a tournament being run?
        Anyone may watch a public tournament's tables; a private one's, its members."""
        director = self.directors.get(self._rooms.get(room_id, ""))
        if director is None:
            anyone, members = self._watch.get(room_id, (False, frozenset()))
            return anyone or player_id in members
        return director.settings.visibility == Visibility.PUBLIC or director.is_member(player_id)

    def watch_rule(self, room_id: str) -> tuple[bool, list[str]] | None:
        """Who may watch table ``room_id`` of a tournament run here: (anyone, members)."""
        director = self.directors.get(self._rooms.get(room_id, ""))
        if director is None:
            return None
        return director.settings.visibility == Visibility.PUBLIC, director.members()

    def watched_as(self, room_id: str, anyone: bool, members: Collection[str]) -> None:
        """Table ``room_id``, played here, is watched as its director (elsewhere) says."""
        self._watch[room_id] = (anyone, frozenset(members))

    def tournament_of(self, room_id: str) -> str | None:
        """The tournament being run here whose table ``room_id`` is (None: none)."""
        return self._rooms.get(room_id)

    def claims(self, room_id: str) -> bool:
        """Is ``room_id`` a table of a tournament being run?"""
        return room_id in self._rooms

    def resumed(self, now_ms: int, elsewhere: Collection[str] = ()) -> DeskResult:
        """Every series that could be rebuilt has been: the tables whose room was
        not are ended (Director.resumed), and the restored directors carry on.
        ``elsewhere``: the rooms other nodes of a cluster play (not lost)."""
        result = DeskResult()
        restored, self._restored = self._restored, []
        alive = {*self.rooms.keys(), *elsewhere}
        for director in restored:
            for room_id in director.room_ids():
                if room_id not in alive:
                    log.warning("tournament %s: table in room %s was not rebuilt: ended",
                                director.id, room_id)  # fmt: skip
                    self._rooms.pop(room_id, None)
            result.add(self._run(director, director.resumed(alive, now_ms), now_ms))
        return result

    def withdraw(self, tournament_id: str) -> list[Outbound]:
        """The database lost what this tournament decided: it stops here, as if the
        server had stopped, and is taken back from what is stored at the next start
        (its tables play on as rooms; their series are stored and it catches up)."""
        director = self.directors.pop(tournament_id, None)
        self._written.pop(tournament_id, None)
        if director is None:
            return []
        if director.invite_code is not None:
            self._invites.pop(director.invite_code, None)
        for room_id in [r for r, t in self._rooms.items() if t == tournament_id]:
            del self._rooms[room_id]
        log.error("tournament %s stopped: what it decided could not be stored", tournament_id)
        notice = ErrorMessage(
            code=errors.StorageFailed.code,
            reason=f"the server could not store what tournament {director.id} decided: it is"
            " stopped until the server restarts, then goes on from what is stored",
        )
        return [Outbound(tuple(director.members()), notice)]

    # ------------------------------------------------------------------
    # What the lobby tells the desk

    def room_event(self, room: Room, event: MatchEnded | SeriesEnded, now_ms: int) -> DeskResult:
        """A tournament table finished a deal, or its series."""
        tid = self._rooms.get(room.id)
        director = self.directors.get(tid or "")
        if director is None:
            if not self.shared:
                return DeskResult()
            # Its director is on another node (or not back yet): it reads the result.
            over = isinstance(event, SeriesEnded)
            if over:
                self._watch.pop(room.id, None)
            return DeskResult(results=[(room.id, room.series.id, room.series.started, over)])
        if isinstance(event, MatchEnded):
            scores = {o.player_id: o.score for o in event.outcomes}
            stepped = director.deal_ended(room.id, scores, now_ms)
        else:
            del self._rooms[room.id]
            stepped = director.table_ended(room.id, event.winner_id, now_ms)
        return self._run(director, stepped, now_ms)

    def connect(self, player: PlayerInfo, now_ms: int) -> list[Outbound]:
        """A player signed in: a snapshot of every tournament it takes part in."""
        return [
            Outbound((player.id,), self.answer(d, now_ms))
            for d in self.directors.values()
            if not d.over and d.is_member(player.id)
        ]

    def tick(self, now_ms: int) -> DeskResult:
        """Let time pass for the tournaments whose alarm is due; the others are not visited."""
        result = DeskResult()
        ttl = self.config.finished_ttl_ms
        for tid in self.alarms.due(now_ms):
            director = self.directors.get(tid)
            if director is None:
                continue
            if director.over and director.finished_at is not None:
                if now_ms - director.finished_at >= ttl:  # stored; no need to keep it
                    self._forget(director)
                else:
                    self._schedule(director)
                continue
            try:
                stepped = director.tick(now_ms)
            except Exception:  # one broken tournament must not stop the others
                log.exception("tournament %s failed to tick", tid, extra={"tournament": tid})
                stepped = director.conclude([])  # what it decided before it failed is kept
            result.add(self._run(director, stepped, now_ms))
        return result


def _leave(player: PlayerInfo, now_ms: int) -> _RoomAction:
    def act(room: Room) -> RoomResult:
        return room.handle(player, LeaveRoom(room_id=room.id), now_ms)

    return act
