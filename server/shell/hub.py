"""The hub: sign-in, the one path from a command to storage and then the wire, the
bots' moves computed elsewhere, and what a restart or a lost write rebuilds.

Nothing is sent before what it tells is stored. A write the database lost
(:class:`server.storage.WriteFailed`) sends nothing of its step: the requester
gets ``storage_failed``, and the rooms it concerned are taken out of play at
once and rebuilt from the database, as after a restart (docs/operations.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import importlib.metadata
import logging
import secrets
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from aiohttp import WSCloseCode

from protocol.connection import Hello, Ping, Pong, Welcome
from protocol.fields import PROTOCOLS, PlayerInfo
from protocol.names import bot_like, reserved
from protocol.rooms import RoomOrigin
from protocol.tournaments import (
    GetTournament,
    ListTournaments,
    Tournaments,
)
from protocol.wire import ClientMessage, ProtocolError, addressed_room, parse_client
from server import errors
from server.bots import BotPool
from server.config import ServerConfig
from server.cursors import BadCursor
from server.events import Event
from server.limits import Quotas
from server.lobby import Lobby
from server.records import Fence, NameInUse, StoredPlayer, WriteFailed
from server.recovery import Resumable, Unresumable
from server.room import BotTurn, Outbound, Room
from server.shell import clock
from server.shell.delivery import Delivery
from server.shell.session import Session, in_background
from server.shell.tasks import halt
from server.step import SharedNotes, StepFailed, StepOutput
from server.storage.quarantine import SERIES, TOURNAMENT
from server.store import Store
from server.tournaments.formats import OFFERS
from server.tournaments.views import stored_summary
from server.visibility import round_embargo_tournament

log = logging.getLogger(__name__)


class Cluster(Protocol):
    """What the hub asks of a cluster node (server/shell/cluster/node.py)."""

    def fences(self, events: Sequence[Event]) -> list[Fence]: ...

    async def settle(self, notes: SharedNotes | None) -> None: ...

    async def holds(self, room_id: str) -> bool: ...

    async def let_go(self, room: Room) -> None: ...

    async def route(self, session: Session, player: PlayerInfo, message: ClientMessage) -> bool: ...


SERVER_NAME = "cribsquares/0.1"
try:  # the release that sets a game aside (its record says so)
    RELEASE = importlib.metadata.version("cribsquares")
except importlib.metadata.PackageNotFoundError:  # run from a tree not installed
    RELEASE = "unknown"


# A room lost again this soon after it was rebuilt from the database ends instead.
REBUILD_AGAIN_MS = 10_000


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


# What each command spends of the quotas is declared on it (protocol.fields.Request.quota;
# docs/operations.md, Limits); hello's are spent in Hub._hello, HTTP requests' in http_quota.


def make_quotas(config: ServerConfig) -> Quotas:
    return Quotas(
        {
            "signin": ("sign-ins", config.signins_per_address, config.signins_per_account),
            "guest": ("new guests", config.new_guests_per_address, None),
            "register": ("new players", config.new_players_per_address, None),
            "room": ("rooms created", config.rooms_per_address, config.rooms_per_account),
            "tournament": (
                "tournaments created",
                config.tournaments_per_address,
                config.tournaments_per_account,
            ),
            "join": ("joins and leaves", config.joins_per_address, config.joins_per_account),
            "http": ("HTTP requests", config.http_per_address, None),
            "analysis": (
                "analyses",
                config.analyses_per_address,
                config.analyses_per_account,
            ),
            # Spent by size (Quotas.owed, Quotas.spend): the bytes of big answers.
            "read": ("bytes read", config.read_bytes_per_address, config.read_bytes_per_account),
        },
        config.quota_keys,
    )


class Hub:
    """Connections by player, and the one path from a command to the wire."""

    def __init__(
        self,
        config: ServerConfig,
        storage: Store,
        lobby: Lobby,
        bots: BotPool | None = None,
        *,
        delivery: Delivery | None = None,
        cluster: Cluster | None = None,
    ) -> None:
        self.config = config
        self.storage = storage
        self.lobby = lobby
        self.bots = bots or BotPool(budget_s=config.bot_cpu_per_owner_s)
        self.bots.wanted = lobby.bot_waits  # a move the clock placed first is not computed
        self._thinking: set[asyncio.Task[None]] = set()
        self.sessions: set[Session] = set()
        # Addressed messages to the sessions that receive them (in a cluster: on any node).
        self.delivery = delivery or Delivery()
        self.cluster = cluster  # None: one process, the whole server
        self.by_address: Counter[str] = Counter()  # open WebSockets per remote address
        # token hash -> player, the most recently signed in last (bounded: LRU)
        self._players: OrderedDict[str, StoredPlayer] = OrderedDict()
        self._rebuilding: set[asyncio.Task[None]] = set()
        self._rebuilt_ms: dict[str, int] = {}  # room id -> when it was last rebuilt
        self._unsettled = 0  # steps waiting for their persist to resolve
        storage.on_lost = self._lost
        self.quotas = make_quotas(config)

    async def player_of_token(self, token: str) -> StoredPlayer | None:
        """The player whose token ``token`` is (None: nobody's): an HTTP read made as
        that player (``Authorization: Bearer``), such as its own whole history."""
        digest = token_hash(token)
        return self._cached_player(digest) or await self.storage.player_by_token_hash(digest)

    def _cached_player(self, digest: str) -> StoredPlayer | None:
        stored = self._players.get(digest)
        if stored is not None:
            self._players.move_to_end(digest)
        return stored

    async def token_player(self, token: str) -> StoredPlayer | None:
        """The player a token signs in (an HTTP request's ``Authorization: Bearer``)."""
        digest = token_hash(token)
        return self._cached_player(digest) or await self.storage.player_by_token_hash(digest)

    def _cache_player(self, digest: str, stored: StoredPlayer) -> None:
        self._players[digest] = stored
        self._players.move_to_end(digest)
        while len(self._players) > self.config.player_cache_size:
            self._players.popitem(last=False)

    def _spend(self, kind: str, address: str | None, account: str | None) -> None:
        refused = self.quotas.take(kind, address, account, clock.now_ms())
        if refused is not None:
            raise errors.RateLimited(refused.reason)

    def schedule_flush(self, session: Session) -> None:
        self.delivery.schedule_flush(session)

    async def apply(
        self,
        produce: Callable[[], list[Outbound]],
        deliver: Callable[[list[Outbound]], None] | None = None,
    ) -> None:
        """Run one synchronous lobby step, persist its events, then send its messages
        (through ``deliver`` if given: a cluster node's, with its answer to the node a
        command came from).

        Raises :class:`errors.StorageFailed`, sending none of them, if the
        database lost the events (:meth:`_lost` has set the rooms back).
        """
        try:
            output = self.lobby.run(produce)  # the step's one result (server/step.py)
        except StepFailed as failed:  # a bug cut it short: what it decided is stored
            await self._drain(failed.output, deliver)
            assert failed.__cause__ is not None
            raise failed.__cause__ from None
        await self._drain(output, deliver)

    async def _drain(
        self, output: StepOutput, deliver: Callable[[list[Outbound]], None] | None
    ) -> None:
        """A step's result, in order: its events stored, its notes settled by the
        cluster node, its messages sent, its bots' turns thought about."""
        outs, events = output.messages, output.events
        # A step that stored nothing, with no step before it still waiting for its
        # commit, has nothing to wait for: its messages go out now, and they cannot
        # overtake an earlier step's. Otherwise it queues behind them (persist
        # resolves in submission order, also for an empty list). A cluster node's
        # every step settles its leases and shared lists, in submission order too.
        cluster = self.cluster
        if events or self._unsettled or cluster is not None:
            self._unsettled += 1
            try:
                if cluster is None:
                    await self.storage.persist(events)
                else:
                    stored = self.storage.persist(events, cluster.fences(events))
                    await cluster.settle(output.notes)
                    await stored
            except WriteFailed as exc:
                raise errors.StorageFailed(
                    f"the server could not store that, so it was not done ({exc.reason})"
                ) from None
            finally:
                self._unsettled -= 1
        (deliver or self.deliver)(outs)
        for turn in output.bot_turns:
            task = asyncio.create_task(self._think(turn))
            self._thinking.add(task)
            task.add_done_callback(self._thinking.discard)

    async def resume_series(
        self, take: Callable[[Resumable], Awaitable[bool]] | None = None
    ) -> None:
        """At start: the tournaments and the series being played when the server stopped
        go on. Tournaments first, so that their tables' rooms are claimed as the
        lobby rebuilds them; then the tables that could not be rebuilt are ended.

        ``take`` (a cluster node taking over the tournaments): whether a series is
        this node's to resume (False: another node runs it, it is left alone, and a
        tournament's table there plays on)."""
        unfinished = await self.storage.unfinished()
        activity = {saved.room_id: saved.last_activity_ms for saved in unfinished}
        desk = self.lobby.tournaments
        aside_before = {(g["kind"], g["id"]) for g in await self.storage.set_aside_games()}
        aside: set[str] = set()  # tournaments set aside now: their tables stay as stored too
        for stored in await self.storage.unfinished_tournaments():
            tid = stored.tournament_id
            if tid in desk.directors:
                continue
            try:
                if stored.state is None:
                    raise Unresumable("no snapshot stored")
                desk.restore(stored.state, stored.saved_ms, activity, clock.now_ms())
            except Unresumable as exc:  # a documented refusal (docs/operations.md)
                log.warning("tournament %s cannot be resumed (%s): abandoned", tid, exc,
                            extra={"tournament": tid})  # fmt: skip
                await self.storage.abandon_tournament(tid, clock.now_ms())
            except Exception as exc:  # a bug: never an abandonment
                aside.add(tid)
                await self._set_aside(TOURNAMENT, tid, exc)
            else:
                log.info("resumed tournament %s", tid, extra={"tournament": tid})
                if (TOURNAMENT, tid) in aside_before:
                    await self.storage.resumed_again(TOURNAMENT, tid)
        # Table results newer than a tournament's snapshot are in the tables' series.
        for tid, room_id, series_id in desk.tables_to_check():
            table = await self.storage.table_series(series_id)
            if table is None:
                continue
            await self.apply(
                functools.partial(
                    self.lobby.tournament_catch_up, tid, room_id, table, clock.now_ms()
                )
            )
        elsewhere: set[str] = set()
        for saved in unfinished:
            if saved.room_id in self.lobby.rooms:
                continue
            if take is not None and not await take(saved):
                elsewhere.add(saved.room_id)
                continue
            if saved.origin == RoomOrigin.TOURNAMENT and not desk.claims(saved.room_id):
                if round_embargo_tournament(saved.embargo) in aside:
                    continue  # set aside with its tournament, as stored
                # Its tournament is over or could not be resumed: neither is the table.
                await self.storage.abandon(saved.series_id)
                continue
            try:
                if take is None:
                    await self.apply(functools.partial(self._restore, saved))
                else:  # taken over while its players are online: they get its snapshot
                    await self.apply(functools.partial(self._taken, saved))
            except Unresumable as exc:  # a documented refusal (docs/operations.md)
                log.warning("series %s cannot be resumed (%s): abandoned", saved.series_id, exc,
                            extra={"series": saved.series_id, "room": saved.room_id})  # fmt: skip
                await self.storage.abandon(saved.series_id)
            except Exception as exc:  # a bug: never an abandonment
                half = self.lobby.rooms.get(saved.room_id)
                if half is not None:  # half rebuilt: out of play
                    self.lobby.release(saved.room_id)
                    if self.cluster is not None:
                        await self.cluster.let_go(half)
                await self._set_aside(SERIES, saved.series_id, exc)
            else:
                log.info("resumed series %s in room %s", saved.series_id, saved.room_id,
                         extra={"series": saved.series_id, "room": saved.room_id})  # fmt: skip
                if (SERIES, saved.series_id) in aside_before:
                    await self.storage.resumed_again(SERIES, saved.series_id)
        await self.apply(lambda: self.lobby.tournaments_resumed(clock.now_ms(), elsewhere))

    async def _set_aside(self, kind: str, game_id: str, exc: Exception) -> None:
        """``game_id`` could not be resumed for a reason that is not one of the restore's
        refusals (a bug of this release, most likely): it stays as stored, for a release
        that resumes it, and is recorded as set aside (``cribsquares quarantined``)."""
        reason = (f"{type(exc).__name__}: {exc}".splitlines() or [""])[0][:300]
        log.error("%s %s could not be resumed by this release (%s): set aside as stored,"
                  " not abandoned; `cribsquares quarantined` lists it",
                  kind, game_id, reason, exc_info=exc, extra={kind: game_id})  # fmt: skip
        await self.storage.set_aside(kind, game_id, RELEASE, reason, clock.now_ms())

    def _taken(self, saved: Resumable) -> list[Outbound]:
        return self.lobby.rebuild(saved, {}, clock.now_ms())

    def _restore(self, saved: Resumable) -> list[Outbound]:
        return self.lobby.restore(saved, clock.now_ms())

    def _lost(self, events: Sequence[Event]) -> None:
        """Storage lost these events (called before any other task runs): the rooms
        and tournaments they concern leave play now; the rooms come back from the
        database."""
        rooms, notices = self.lobby.withdraw(events)
        self.deliver(notices)
        for room in rooms:
            task = asyncio.create_task(self._rebuild(room))
            self._rebuilding.add(task)
            task.add_done_callback(self._rebuilding.discard)

    async def _rebuild(self, room: Room) -> None:
        """``room`` again, as stored: its series resumes where its last stored move left it."""
        now = clock.now_ms()
        again = self._rebuilt_ms.get(room.id)
        self._rebuilt_ms[room.id] = now
        try:
            if self.cluster is not None and not await self.cluster.holds(room.id):
                log.warning("room %s: another node holds it now, and has rebuilt it", room.id,
                            extra={"room": room.id})  # fmt: skip
                return
            self.lobby.ratings.load(await self.storage.ratings(), replace=True)
            found = await self.storage.unfinished(room.id)
            if not found or (again is not None and now - again < REBUILD_AGAIN_MS):
                # Nothing stored to go on from (a room still waiting, a series over),
                # or lost again straight after its rebuild: it ends here.
                for saved in found:
                    await self.storage.abandon(saved.series_id)
                await self._gone(room)
                return
            spectators = dict(room.spectators)
            await self.apply(lambda: self.lobby.rebuild(found[-1], spectators, clock.now_ms()))
            log.warning("room %s rebuilt from the database after a lost write", room.id,
                        extra={"room": room.id})  # fmt: skip
        except errors.StorageFailed:
            pass  # lost again: _lost has it in hand
        except Exception:
            log.exception("room %s could not be rebuilt after a lost write", room.id,
                          extra={"room": room.id})  # fmt: skip
            await self._gone(room)

    async def _gone(self, room: Room) -> None:
        """``room``, withdrawn after a lost write, does not come back: its members are
        told, and a cluster node lets it go (its listing, invite code and lease)."""
        self.deliver(self.lobby.gone(room))
        if self.cluster is not None and room.id not in self.lobby.rooms:
            with contextlib.suppress(Exception):
                await self.cluster.let_go(room)

    async def _think(self, turn: BotTurn) -> None:
        """A bot seat's move, computed off the loop, goes back in as its placement."""
        cell = await self.bots.move(turn)
        if cell is None:  # the clock placed it first, or the room is gone
            return
        try:
            await self.apply(
                lambda: self.lobby.bot_move(
                    turn.room_id, turn.player_id, turn.turn, cell, clock.now_ms()
                )
            )
        except (errors.RoomError, errors.StorageFailed) as exc:
            # The clock placed it first, the room is gone, or it could not be stored.
            log.info("bot move for %s turn %d dropped: %s", turn.player_id, turn.turn, exc)
        except Exception:
            log.exception("bot move for %s turn %d failed", turn.player_id, turn.turn)

    async def stop_thinking(self) -> None:
        await halt(*self._thinking, *self._rebuilding)
        await self.bots.close()

    def deliver(self, outs: list[Outbound]) -> None:
        self.delivery.deliver(outs)

    def answering(
        self, session: Session | None, player_id: str, ref: str | None
    ) -> Callable[[list[Outbound]], None] | None:
        """How to deliver the step that ran ``session``'s request ``ref``: its answer,
        ref and all, to that connection alone (None: as any step's)."""
        if ref is None or session is None:
            return None
        return functools.partial(
            self.delivery.answer, session=session, player_id=player_id, ref=ref
        )

    # ------------------------------------------------------------------

    async def receive(self, session: Session, data: str | bytes) -> None:
        now = clock.now_ms()
        if not session.bucket.take(now):
            if session.bucket.should_warn(now):
                session.send_error(
                    errors.RateLimited.code,
                    f"more than {self.config.rate_per_second:g} frames per second:"
                    " frames are being dropped",
                )
            return
        size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "replace"))
        if size > self.config.max_frame_bytes:
            session.send_error(
                errors.FrameTooLarge.code,
                f"frame of {size} bytes; the limit is {self.config.max_frame_bytes}",
            )
            return
        try:
            message = parse_client(data, session.protocol)
        except ProtocolError as exc:
            session.send_error(exc.code, exc.reason, ref=exc.ref)
            return
        try:
            await self._dispatch(session, message)
        except errors.ServerError as exc:
            session.send_error(
                exc.code, exc.reason, room_id=addressed_room(message), ref=message.ref
            )
        except Exception:
            log.exception("internal error handling %s", message.type)
            session.send_error(
                errors.INTERNAL_ERROR, "the server failed to handle that request", ref=message.ref
            )

    async def _dispatch(self, session: Session, message: ClientMessage) -> None:
        if isinstance(message, Hello):
            await self._hello(session, message)
            return
        player = session.player
        if player is None:
            raise errors.HelloRequired("say hello first")
        if isinstance(message, Ping):
            session.send_message(Pong(ref=message.ref))
            return
        self.require_storage()
        kind = message.quota
        if kind is not None:
            self._spend(kind, session.address, player.id)
        if isinstance(message, ListTournaments) and message.status is not None:
            session.send_message(await self._stored_tournaments(message))
            return
        if isinstance(message, GetTournament):
            await self._read_tournament(session, player, message)
            return
        if self.cluster is not None and await self.cluster.route(session, player, message):
            return  # answered from what the nodes share, or run by the room's owner
        await self.apply(
            lambda: self.lobby.handle(player, message, clock.now_ms()),
            self.answering(session, player.id, message.ref),
        )

    async def _read_tournament(
        self, session: Session, player: PlayerInfo, asked: GetTournament
    ) -> None:
        """``get_tournament``: a read, which may be 200 kB (a field of 512). It is
        answered to the connection that asked alone, and paid for by its size from
        the address's and the account's budget of bytes read, in the same step as
        the budget is looked at; while either is overspent, it is refused
        (rate_limited) before anything is written."""
        if self.cluster is not None and await self.cluster.route(session, player, asked):
            return  # the coordinator answers, and is paid (docs/scaling.md)
        await self.apply(
            self.tournament_read(player, asked, session.address), self.here(session, player.id)
        )

    def tournament_read(
        self, player: PlayerInfo, asked: GetTournament, address: str
    ) -> Callable[[], list[Outbound]]:
        """The step of ``get_tournament``, paid for where it is read (here, or on the
        coordinator of a cluster, for a connection on another node)."""

        def read() -> list[Outbound]:
            now = clock.now_ms()
            refused = self.quotas.owed("read", address, player.id, now)
            if refused is not None:
                raise errors.RateLimited(refused.reason)
            outs = self.lobby.handle(player, asked, now)
            for out in outs:
                if out.to == (player.id,):
                    self.quotas.spend("read", address, player.id, len(out.text()), now)
            return outs

        return read

    def here(self, session: Session, player_id: str) -> Callable[[list[Outbound]], None]:
        """Deliver a step's messages, those for ``player_id`` alone to ``session`` alone
        (an answer, or the snapshots of a sign-in: its other connections have them)."""

        def deliver(outs: list[Outbound]) -> None:
            for out in outs:
                if out.to == (player_id,):
                    session.send(out.text())
                else:
                    self.deliver([out])

        return deliver

    async def _stored_tournaments(self, asked: ListTournaments) -> Tournaments:
        """A page of the public tournaments in one status, newest first, read from the
        store (every node's; a finished one with its winners)."""
        try:
            rows, after = await self.storage.tournament_page(asked.limit, asked.after, asked.status)
        except BadCursor as exc:
            raise errors.RoomError(str(exc), code="bad_message") from None
        listed = [line for line in map(stored_summary, rows) if line is not None]
        return Tournaments(tournaments=listed, next=after, ref=asked.ref)

    def require_storage(self) -> None:
        """While the database cannot be written, requests are refused, untouched:
        what they decided could not be acknowledged until it can."""
        failing = self.storage.failing
        if failing is not None:
            raise errors.StorageFailed(
                f"the server cannot store anything right now ({failing}): nothing was done;"
                " send it again in a moment"
            )

    async def _hello(self, session: Session, hello: Hello) -> None:
        if session.player is not None:
            raise errors.AlreadyIdentified("this connection has already said hello")
        if hello.protocol not in PROTOCOLS:
            raise errors.UnsupportedProtocol(
                f"this server speaks protocol {' or '.join(map(str, PROTOCOLS))},"
                f" not {hello.protocol}"
            )
        if hello.token is not None and hello.name is not None:
            raise errors.ServerError(
                "hello: give a token (to sign in again) or a name (to register), not both",
                code="bad_message",
            )
        self.require_storage()
        issued: str | None = None
        self._spend("signin", session.address, None)
        if hello.token is not None:
            digest = token_hash(hello.token)
            stored = self._cached_player(digest) or await self.storage.player_by_token_hash(digest)
            if stored is None:
                raise errors.BadToken("no player has that token")
            self._spend("signin", None, stored.id)
        else:
            self._spend("guest" if hello.guest else "register", session.address, None)
            if hello.guest:
                name = hello.name or f"guest-{secrets.token_hex(2)}"
            elif hello.name is None:
                raise errors.NameRequired("a new player needs a name (or say guest: true)")
            else:
                name = hello.name
            if not hello.guest and reserved(name):
                raise errors.NameTaken(
                    f"the name {name!r} is kept for the server's guests and bots; pick another"
                )
            if not hello.bot and bot_like(name):
                raise errors.NameTaken(
                    f"the name {name!r} reads as a computer player's: it is kept for bot"
                    " programs (hello with bot: true); pick another"
                )
            issued = secrets.token_urlsafe(32)
            digest = token_hash(issued)
            stored = StoredPlayer(f"p-{secrets.token_hex(6)}", name, hello.guest, hello.bot)
            try:
                await self.storage.create_player(stored, digest, clock.now_ms())
            except NameInUse:
                raise errors.NameTaken(
                    f"the name {name!r} is taken, or looks like one that is; pick another"
                ) from None
            except WriteFailed as exc:
                raise errors.StorageFailed(
                    f"the server could not register you ({exc.reason}); try again"
                ) from None
        self._cache_player(digest, stored)
        if session.player is not None:  # a second hello raced the first one
            raise errors.AlreadyIdentified("this connection has already said hello")
        player = PlayerInfo(id=stored.id, name=stored.name, guest=stored.guest, bot=stored.bot)
        session.player = player
        session.protocol = hello.protocol
        session.follow_node = hello.follow_node
        self.delivery.attach(player.id, session)
        session.send_message(
            Welcome(
                protocol=hello.protocol,
                server=SERVER_NAME,
                player=player,
                token=issued,
                formats=OFFERS,
                ref=hello.ref,
            )
        )
        address = session.address
        await self.apply(
            lambda: self.lobby.connect(player, clock.now_ms(), address=address),
            self.here(session, player.id),
        )

    def drop(self, session: Session) -> None:
        """Let go of a connection the server is closing (too slow) at once: its player's
        rooms see it go now, not once its socket has finished closing."""
        in_background(self.closed(session))

    def hello_overdue(self, session: Session) -> None:
        """A connection that has not said hello in time is closed."""
        if session.player is None and not session.ws.closed and not session.closing:
            session.closing = True
            in_background(session.ws.close(code=WSCloseCode.POLICY_VIOLATION, message=b"no hello"))

    async def closed(self, session: Session) -> None:
        if session.gone:
            return
        session.gone = True
        self.sessions.discard(session)
        player = session.player
        if player is None:
            return
        if self.delivery.detach(player.id, session):
            with contextlib.suppress(errors.StorageFailed):  # its rooms were set back
                await self.apply(lambda: self.lobby.disconnect(player.id, clock.now_ms()))

    async def tick_forever(self) -> None:
        interval = self.config.tick_ms / 1000
        while True:
            await asyncio.sleep(interval)
            try:
                await self.apply(lambda: self.lobby.tick(clock.now_ms()))
                self.quotas.sweep(clock.now_ms(), 200)
            except errors.StorageFailed:
                pass  # the storage log says why; the rooms concerned were set back
            except Exception:
                log.exception("clock tick failed")
