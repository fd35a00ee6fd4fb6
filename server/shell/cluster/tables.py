"""A tournament's tables on a cluster: placed where their players are, asked and heard
across them.

A director runs on the coordinator (COORDINATOR: server/shell/cluster/watching.py);
its desk notes what crosses nodes (server/tournaments/hosting.py, ``shared``)
and this carries it. Each table the coordinator opens is handed to the live
node most of its players are connected to, so that their placements are not
forwarded; a table none of whose players is connected (bots, players away)
goes to the node that holds the fewest leases, and so do ties
(:func:`placements`), counting the tables placed in the same step: it leaves
the coordinator's lobby once everything it decided there is stored, then its
lease moves to that node in one step with a new token
(:meth:`Leases.hand_over`, never free meanwhile), and that node rebuilds it from
the store. What a director asks of a table elsewhere (stop it, make an entrant
leave, lift its round's embargo, who may watch it) goes to the table's owner;
a table's owner tells the coordinator when a deal or its series ended, once
that is stored, and the coordinator reads it from the store: the result never
crosses Redis, so a coordinator that dies loses nothing of it, and the next one
reads it as it resumes the tournament (docs/scaling.md, *A tournament's tables*).

Where a table runs changes nothing of what it is: its secrets and its embargo
are stored with its series, read by whichever node plays it.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from redis.exceptions import RedisError

from protocol.fields import PlayerInfo
from protocol.tournaments import EntrantStatus
from server import errors, visibility
from server.lobby import Lobby
from server.recovery import Resumable, StoredTable
from server.requests import Forfeit, Reveal, StopTable, TableRequest, TableResult, WatchTable
from server.room import Outbound
from server.shell import clock
from server.shell.cluster.bus import Bus
from server.shell.cluster.leases import COORDINATOR, RENEW_S, Leases, room_key
from server.store import Store

if TYPE_CHECKING:
    from collections.abc import Coroutine

    from server.shell.hub import Hub

log = logging.getLogger(__name__)

READ_TRIES = 20  # a table's stored series, read again until it shows what its owner told
READ_RETRY_S = 0.1
WATCHING = (EntrantStatus.ACTIVE.value, EntrantStatus.ELIMINATED.value)  # entrants who watch


class Node(Protocol):
    """What the tables need of their cluster node (server/shell/cluster/node.py)."""

    id: str
    lobby: Lobby
    storage: Store
    leases: Leases
    bus: Bus

    @property
    def hub(self) -> Hub: ...
    @property
    def alive(self) -> Collection[str]: ...
    def owner_heard(self, key: str) -> str | None: ...
    def connected_nodes(self, player_id: str) -> set[str]: ...
    def owner_is(self, key: str, node: str) -> None: ...
    def runs(self, key: str) -> bool: ...
    async def send_to_owner(self, key: str, payload: dict[str, Any]) -> None: ...
    def later(self, coroutine: Coroutine[Any, Any, Any]) -> None: ...
    def publish_later(self, node: str | None, payload: dict[str, Any]) -> None: ...
    def unlist(self, room_id: str) -> None: ...


class Tables:
    def __init__(self, node: Node) -> None:
        self.node = node
        self.handing: set[str] = set()  # tables being handed to another node
        self._placings = itertools.count()  # the tables opened here, placed in turn

    async def carry(
        self,
        placed: list[str],
        elsewhere: list[TableRequest],
        results: list[TableResult],
    ) -> None:
        """What the tournament desk noted in a step, carried between nodes."""
        tables = [self._seated(room_id) for room_id in placed]
        for room_id, target in zip(placed, await self.nodes_for(tables), strict=True):
            if target != self.node.id:
                self.handing.add(room_id)
                self.node.later(self._hand_over(room_id, target))
        for request in elsewhere:
            owner = None
            if isinstance(request, WatchTable):
                owner = self.node.owner_heard(room_key(request.room_id))
            if isinstance(request, WatchTable) and owner not in (None, self.node.id):
                # Published before the step's messages go out: a member it lets in is
                # let in by the time it hears that it may watch.
                try:
                    await self.node.bus.publish(owner, _watch_payload(request))
                    continue
                except RedisError:  # through the retrying path, then
                    pass
            self.node.later(self._table_request(request))
        told: dict[tuple[str, str], tuple[int, bool]] = {}
        for room_id, series_id, deals, over in results:  # a deal and the series: once
            before = told.get((room_id, series_id), (0, False))
            told[room_id, series_id] = (max(deals, before[0]), over or before[1])
        for (room_id, series_id), (deals, over) in told.items():
            self.node.later(self._table_result(room_id, series_id, deals, over))

    def follow_players(self, rooms: list[str]) -> list[tuple[str, str]]:
        """Head-to-head rooms the coordinator opened (quick play, a challenge taken): one
        none of whose players is connected here goes, as a table does, to the node most
        of them are connected to (ties by id from the node after this one); one with as
        many of them here as anywhere stays. Each that goes counts as being handed on
        from now (``handing``: no seats notice names this node for it); the (room, node)
        pairs returned are handed over by :meth:`hand_over`, once their leases are held."""
        order = self._order()
        moves = []
        for room_id in rooms:
            there = self._where(self._seated(room_id))
            most = max(there.values(), default=0)
            if there.get(self.node.id, 0) == most:
                continue
            target = next(n for n in order if there.get(n, 0) == most)
            self.handing.add(room_id)
            moves.append((room_id, target))
        return moves

    def hand_over(self, moves: list[tuple[str, str]]) -> None:
        for room_id, target in moves:
            self.node.later(self._hand_over(room_id, target))

    def _order(self) -> list[str]:
        """The live nodes in the order ties go: the nodes after this one in the order of
        their ids, this one (which runs the directors and the rest of the coordinator's
        work) last."""
        nodes = sorted(self.node.alive)
        after = nodes.index(self.node.id) + 1
        return nodes[after:] + nodes[:after]

    def _seated(self, room_id: str) -> list[str]:
        room = self.node.lobby.rooms.get(room_id)
        return [] if room is None else [seat.player.id for seat in room.seats]

    async def nodes_for(self, tables: Sequence[Collection[str]]) -> list[str]:
        """The nodes the tables opened here (each its players' ids) play on: where most of
        a table's players are connected, then by the leases each live node holds now;
        if Redis cannot say, the players' node or every live node in turn."""
        if not tables:
            return []
        order = self._order()
        wanted = [self._where(players) for players in tables]
        try:
            loads = await self.node.leases.loads(order)
        except RedisError:
            chosen: list[str] = []
            for there in wanted:
                if there:
                    chosen.append(max(there, key=there.__getitem__))
                else:
                    chosen.append(order[next(self._placings) % len(order)])
            return chosen
        # This node leases the tables it opens until it hands them over: not its load.
        mine = loads.get(self.node.id, 0) - len(tables) - len(self.handing)
        loads[self.node.id] = max(0, mine)
        return placements(order, loads, wanted)

    def _where(self, players: Collection[str]) -> dict[str, int]:
        """Live node -> how many of ``players`` are connected to it."""
        there: dict[str, int] = {}
        alive = self.node.alive
        for player_id in players:
            for node in self.node.connected_nodes(player_id):
                if node in alive:
                    there[node] = there.get(node, 0) + 1
        return there

    async def _hand_over(self, room_id: str, target: str) -> None:
        """A room opened here goes to ``target`` as a stop hands a room over: it leaves
        this lobby, everything it decided here is stored (the step that lets it go
        waits for that), then its lease becomes ``target``'s, which takes the room from
        the store. If ``target`` dies first, the lease expires and is taken as any of
        a gone node's."""
        key = room_key(room_id)
        try:
            if room_id not in self.node.lobby.rooms:
                return
            await self.node.hub.apply(functools.partial(self._let_go, room_id))
            self.node.unlist(room_id)  # the node it goes to lists it
            if await self.node.leases.hand_over(key, target) is None:
                # Not ours (any more): whoever may take it does, from the store.
                log.warning("cluster: room %s was no longer ours to hand over", room_id)
                self.node.publish_later(None, {"k": "take", "room": room_id})
                return
            self.node.owner_is(key, target)
            told: dict[str, Any] = {"k": "take", "room": room_id, "handed": True}
            rule = self.node.lobby.tournaments.watch_rule(room_id)
            if rule is not None:
                told["watch"] = {"anyone": rule[0], "members": rule[1]}
            await self.node.bus.publish(target, told)
            log.info("cluster: room %s handed to node %s", room_id, target)
        except Exception:
            log.exception("cluster: handing room %s to node %s failed", room_id, target)
        finally:
            self.handing.discard(room_id)

    async def watch_rule_stored(self, saved: Resumable) -> None:
        """A table taken over here whose director is elsewhere is watched as its
        tournament is stored: anyone, if it is public; else its host and entrants."""
        desk = self.node.lobby.tournaments
        tid = visibility.round_embargo_tournament(saved.embargo)
        if desk.tournament_of(saved.room_id) is not None or tid is None:
            return
        found = await self.node.storage.tournament(tid)
        if found is None:
            return
        members = [found["host"]["id"]] + [
            e["player"]["id"]
            for e in found["entries"]
            if not e["player"]["bot"] and e["status"] in WATCHING
        ]
        desk.watched_as(saved.room_id, found["visibility"] == "public", members)

    def _let_go(self, room_id: str) -> list[Outbound]:
        self.node.lobby.release(room_id)
        return []

    async def _table_request(self, request: TableRequest) -> None:
        """What a director here asked of a table another node holds, sent to its owner
        (a reveal for each room; a room no node holds is closed: nothing to do)."""
        if isinstance(request, Reveal):
            asked: list[tuple[str, dict[str, Any]]] = [
                (r, {"do": "reveal", "embargo": request.embargo}) for r in request.room_ids
            ]
        elif isinstance(request, StopTable):
            asked = [(request.room_id, {"do": "stop"})]
        elif isinstance(request, WatchTable):
            asked = [(request.room_id, _watch_payload(request))]
        else:
            player = request.player.model_dump(mode="json")
            asked = [(request.room_id, {"do": "forfeit", "player": player})]
        for room_id, what in asked:
            key = room_key(room_id)
            if await self.node.leases.owner(key) is None:
                await asyncio.sleep(RENEW_S)  # perhaps changing hands: look once more
                if await self.node.leases.owner(key) is None:
                    continue
            try:
                await self.node.send_to_owner(key, {"k": "table", "key": key, **what})
            except errors.ServerError as exc:
                log.info("cluster: table %s: %s not done (%s)", room_id, what["do"], exc)

    async def run_request(self, payload: dict[str, Any]) -> None:
        """A director's request for a table of ours (sent by the coordinator)."""
        origin = payload.get("from", self.node.id)
        key = str(payload["key"])
        room_id = key.removeprefix("room:")
        ran = self.node.runs(key)
        try:
            if ran:
                request = _table_request_of(room_id, payload)
                await self.node.hub.apply(
                    lambda: self.node.lobby.table_request(request, clock.now_ms())
                )
        except errors.ServerError as exc:
            log.info("cluster: table %s: %s not done (%s)", room_id, payload.get("do"), exc)
        finally:
            if origin != self.node.id:
                self.node.publish_later(
                    origin, {"k": "done", "fid": payload.get("fid"), "ran": ran}
                )

    async def _table_result(self, room_id: str, series_id: str, deals: int, over: bool) -> None:
        """A table of ours whose director is elsewhere finished a deal (``deals`` so
        far) or its series (``over``): once that is stored, the coordinator is told to
        read it (sent again to the next coordinator if this one dies first)."""
        await self.node.storage.persist([])  # resolves once the step that ended it is stored
        payload = {"k": "result", "key": COORDINATOR, "room": room_id, "series": series_id,
                   "deals": deals, "over": over}  # fmt: skip
        try:
            await self.node.send_to_owner(COORDINATOR, payload)
        except errors.ServerError as exc:
            # No coordinator for a while: the next one reads it as it resumes the tournament.
            log.info("cluster: table %s's result not told (%s)", room_id, exc)

    async def _stored_table(self, payload: dict[str, Any]) -> StoredTable | None:
        """The table's stored series, once it shows what its owner told (a read may
        come a moment before another node's commit is visible to it: read again,
        bounded)."""
        deals, over = int(payload["deals"]), bool(payload["over"])
        table = None
        for _ in range(READ_TRIES):
            table = await self.node.storage.table_series(str(payload["series"]))
            if table is not None and len(table.deals) >= deals and (table.finished or not over):
                return table
            await asyncio.sleep(READ_RETRY_S)
        log.warning(
            "cluster: table %s: the store does not show what its owner told", payload["room"]
        )
        return table

    async def run_result(self, payload: dict[str, Any]) -> None:
        """The coordinator: a table played elsewhere has a new result in the store."""
        origin = payload.get("from", self.node.id)
        ran = self.node.runs(COORDINATOR)
        try:
            room_id = str(payload["room"])
            desk = self.node.lobby.tournaments
            tid = desk.tournament_of(room_id)
            if ran and tid is not None:  # not back yet: resuming it reads the store
                table = await self._stored_table(payload)
                if table is not None:
                    now = clock.now_ms()
                    await self.node.hub.apply(
                        functools.partial(
                            self.node.lobby.tournament_catch_up, tid, room_id, table, now
                        )
                    )
        except errors.StorageFailed:
            pass  # the tournament was set back; it catches up from the store when resumed
        finally:
            if origin != self.node.id:
                self.node.publish_later(
                    origin, {"k": "done", "fid": payload.get("fid"), "ran": ran}
                )


def _done(payload: dict[str, Any], ran: bool) -> dict[str, Any]:
    """The answer to what ``payload`` asked of this node (run, or not its to run)."""
    return {"k": "done", "fid": payload.get("fid"), "ran": ran}


def _watch_payload(request: WatchTable) -> dict[str, Any]:
    return {
        "k": "table",
        "key": room_key(request.room_id),
        "do": "watch",
        "anyone": request.anyone,
        "members": list(request.members),
    }


def _table_request_of(room_id: str, payload: dict[str, Any]) -> TableRequest:
    """A director's request for one table, as the coordinator sent it."""
    do = payload["do"]
    if do == "stop":
        return StopTable(room_id)
    if do == "forfeit":
        return Forfeit(room_id, PlayerInfo.model_validate(payload["player"]))
    if do == "reveal":
        return Reveal(str(payload["embargo"]), (room_id,))
    if do == "watch":
        members = tuple(str(m) for m in payload["members"])
        return WatchTable(room_id, bool(payload["anyone"]), members)
    raise ValueError(f"no table request {do!r}")


def placements(
    order: list[str], loads: dict[str, int], wanted: Sequence[Mapping[str, int]]
) -> list[str]:
    """Where new tables go: each in turn (``wanted``: node -> how many of its players are
    connected there) to the node of ``order`` most of its players are connected to,
    then holding the fewest leases (``loads``), the tables already placed counted;
    ties to the earliest in ``order``."""
    held = {node: loads.get(node, 0) for node in order}
    chosen: list[str] = []
    for there in wanted:
        node = min(order, key=lambda n: (-there.get(n, 0), held[n]))  # the first of equals
        held[node] += 1
        chosen.append(node)
    return chosen
