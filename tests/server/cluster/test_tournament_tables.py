"""A tournament's tables spread over a cluster's nodes, its director on the coordinator.

Three real nodes on one database and one Redis. Four people play a two-round
lockstep Swiss, connected to two nodes; the coordinator opens each table and
hands it to the node most of its players are connected to, then to the live
node holding the fewest leases (ties by id, from the one after it), so round 1's
two tables are owned by the two nodes the players are on, which the rooms'
leases in Redis show.
Then a node is SIGKILLed in the middle of round 1: the owner of a table (node1,
whose players reconnect to another node, as through the public address), or
the coordinator; a table its node held is taken over by another node, the
director's results come from wherever a table finished, and the tournament
finishes with the standings its stored deals give, every acknowledged placement
in the stored boards. A table on another node than its director's is watched
as on one server: anyone for a public tournament, its members for a private one,
nothing of a deal before its round is over.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import redis
import redis.asyncio

from tests.server.cluster.nodes import Node, cluster
from tests.server.cluster.test_tournament_failover import play_on, stored
from tests.server.live import Client, Live, signed_in
from tests.server.test_tournament_restart import place_cards
from tests.server.test_tournament_watch import members_only, watch_to_the_result
from tests.waiting import bounded

pytestmark = pytest.mark.timeout(240)

NAMES = ("alice", "bob", "carol", "dave")


async def start_swiss(host_at: Live, *others_at: Live) -> tuple[list[Client], dict[str, Any]]:
    """alice (on ``host_at``) hosts a two-round lockstep Swiss of four people (bob,
    carol and dave on ``others_at``, in turn); everyone enters; it starts."""
    places = (host_at, *others_at)
    clients = [await signed_in(places[i % len(places)], name) for i, name in enumerate(NAMES)]
    alice = clients[0]
    await alice.send(type="create_tournament", name="spread cup", format="swiss",
                     rounds=2, pace="lockstep", card_clock_ms=60_000)  # fmt: skip
    created: dict[str, Any] = (await alice.until("tournament"))["tournament"]
    for i, c in enumerate(clients):
        await c.send(type="join_tournament", tournament_id=created["id"], contribution=f"c{i}",
                     ref="j")  # fmt: skip
        while (await c.until("tournament"))["ref"] != "j":
            pass
    await alice.send(type="manage_tournament", tournament_id=created["id"], action="start")
    return clients, created


def owners(redis_url: str, rooms: set[str]) -> dict[str, str]:
    """Room id -> the node holding its lease now."""
    with redis.Redis.from_url(redis_url, decode_responses=True) as r:
        found = {room: r.get(f"cs:lease:room:{room}") for room in rooms}
    return {room: str(value).split(" ")[0] for room, value in found.items() if value}


async def owners_settled(redis_url: str, rooms: set[str]) -> dict[str, str]:
    """The tables' owners once every table has been handed to its node (bounded)."""
    deadline = time.monotonic() + 10
    while True:
        found = await asyncio.to_thread(owners, redis_url, rooms)
        if (len(found) == len(rooms) and len(set(found.values())) > 1) or (
            time.monotonic() > deadline
        ):
            return found
        await asyncio.sleep(0.1)


class LeaseWatch:
    """Every node seen holding each room's lease, sampled every 50 ms while it runs.

    It is stopped by a flag, not by cancelling its task: a cancellation that lands
    inside the Redis client can be swallowed there, and the sampler then ran on for
    its 500 s while the test waited for it to end, hiding the failure that ended
    the test's body behind pytest-timeout."""

    def __init__(self, redis_url: str) -> None:
        self.redis = redis.asyncio.Redis.from_url(redis_url, decode_responses=True)
        self.seen: dict[str, set[str]] = {}
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> LeaseWatch:
        self._task = asyncio.create_task(self._sample())
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self._task is not None
        self._stop.set()
        done, _ = await asyncio.wait({self._task}, timeout=10)  # not cancelled if late
        if not done:
            pytest.fail("waited 10 s for the lease sampler to stop", pytrace=False)
        self._task.result()
        await self.redis.aclose()

    async def _sample(self) -> None:
        for _ in range(10_000):  # bounded: 500 s
            if self._stop.is_set():
                return
            keys = [k async for k in self.redis.scan_iter("cs:lease:room:*")]
            values = await self.redis.mget(keys) if keys else []
            for key, value in zip(keys, values, strict=True):
                if value:
                    room = key.removeprefix("cs:lease:room:")
                    self.seen.setdefault(room, set()).add(value.split(" ")[0])
            await asyncio.sleep(0.05)

    def last_round_on(self, record: dict[str, Any]) -> set[str]:
        """The nodes that held the last round's tables (besides the coordinator opening them)."""
        rooms = [t["room_id"] for t in record["rounds"][-1]["tables"]]
        return set().union(*(self.seen.get(room, set()) for room in rooms))


def check_standings(record: dict[str, Any]) -> None:
    """The stored standings are the ones the stored deals give: a point for the higher
    score at a table (one deal each), half a point each for the same score."""
    expected = dict.fromkeys((e["player"]["id"] for e in record["entries"]), 0.0)
    for r in record["rounds"]:
        for t in r["tables"]:
            assert t["status"] == "finished", t
            (deal,) = t["deals"]
            a, b = t["players"]
            sa, sb = deal["results"][a]["score"], deal["results"][b]["score"]
            winner = a if sa > sb else b if sb > sa else None
            assert t["winner_id"] == winner, t
            expected[a] += 1.0 if winner == a else 0.5 if winner is None else 0.0
            expected[b] += 1.0 if winner == b else 0.5 if winner is None else 0.0
    got = {s["player"]["id"]: s["score"] for s in record["standings"]}
    assert got == expected
    pairs = [frozenset(t["players"]) for r in record["rounds"] for t in r["tables"]]
    assert len(set(pairs)) == 4  # nobody met twice


def check_acked(live: Live, record: dict[str, Any], room: str, who: str, acked: dict) -> None:
    """Every placement ``who`` had acknowledged at ``room`` is in its stored board."""
    (played,) = [t for t in record["rounds"][0]["tables"] if t["room_id"] == room]
    match_id = played["deals"][0]["match_id"]
    with urllib.request.urlopen(f"{live.http}/api/matches/{match_id}", timeout=10) as reply:
        match = json.loads(reply.read())
    board = next(b for b in match["boards"] if b["player"]["id"] == who)
    cells = {p["turn"]: p["cell"] for p in board["placements"]}
    assert len(cells) == 16 and {t: cells[t] for t in acked} == acked


async def round_one(clients: list[Client]) -> list[tuple[str, dict[int, str]]]:
    """Five cards placed by everyone at their round-1 table: (room, acknowledged)."""
    return list(await asyncio.gather(*(place_cards(c, 5, i % 3) for i, c in enumerate(clients))))


async def rejoined(client: Client, live: Live) -> Client:
    """``client``'s player again, on ``live`` (its node died: it says who it is with
    its token, as the terminal client does on a new connection; bounded)."""
    deadline = time.monotonic() + 20
    while True:
        try:
            again = await Client.connect(live)
            welcome = await again.hello(token=client.token)
            assert welcome["type"] == "welcome" and again.id == client.id, welcome
            return again
        except OSError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


async def kill_mid_round(
    redis_url: str,
    clients: list[Client],
    victim: Node,
    owners_expected: list[Node],
    rejoin: tuple[list[int], Live] | None = None,
    survivors: tuple[Node, ...] = (),
) -> tuple[LeaseWatch, list[tuple[str, dict[int, str]]], dict[str, str]]:
    """Round 1 played five cards in, its tables' owners checked, ``victim`` SIGKILLed,
    then everyone plays on to the end of the tournament (bounded); the clients of
    ``rejoin`` (their indexes: connected to ``victim``) first connect to its other
    node. The leases seen, round 1's (room, acknowledged placements) by client, and
    round 1's owners."""
    async with LeaseWatch(redis_url) as watch:
        # Each step bounded, saying which it was (a fresh-clone run beside a CPU hog hung
        # in here until pytest-timeout, the event loop idle, nothing saying on what).
        played = await bounded("round 1's first five cards placed by everyone",
                               round_one(clients), within=60)  # fmt: skip
        rooms = {room for room, _ in played}
        assert len(rooms) == 2
        held = await owners_settled(redis_url, rooms)
        assert sorted(held.values()) == [n.id for n in owners_expected], held
        victim.process.kill()
        killed = time.monotonic()
        if rejoin is not None:
            indexes, live = rejoin
            for i in indexes:
                clients[i] = await bounded(f"player {clients[i].id} to sign in again",
                                           rejoined(clients[i], live), within=30)  # fmt: skip
        watching = [n.watched() for n in survivors]
        finals = await bounded(
            "everyone to play the tournament to its end after the kill",
            asyncio.gather(*(play_on(c, i % 3, watching=watching) for i, c in enumerate(clients))),
            within=150,
        )
        assert time.monotonic() - killed < 150
    assert all(f["status"] == "finished" and len(f["history"]) == 2 for f in finals)
    return watch, played, held


def log_of(folder: Path, node: Node) -> str:
    return (folder / f"{node.id}.log").read_text()


async def test_tables_land_on_several_nodes_and_survive_their_owner_killed(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    with cluster(cluster_db, redis_url, 3, logs=tmp_path) as nodes:
        coordinator, victim, keeper = nodes
        # alice and carol on the node that is killed, bob and dave on the keeper: round
        # 1's tables on the two (their players' nodes; a tie by id, from the node after
        # the coordinator). The table dies with its node and is taken over; alice and
        # carol reconnect to the keeper.
        starting = start_swiss(victim.live, keeper.live)
        clients, created = await bounded("the Swiss created, entered and started", starting,
                                         within=60)  # fmt: skip
        watch, played, held = await kill_mid_round(
            redis_url,
            clients,
            victim,
            [victim, keeper],
            rejoin=([0, 2], keeper.live),
            survivors=(coordinator, keeper),
        )
        (moved,) = [room for room, node in held.items() if node == victim.id]
        after = await asyncio.to_thread(owners, redis_url, {moved})
        assert after.get(moved) in (None, coordinator.id, keeper.id)  # closed, or taken
        assert f"took room {moved} over" in log_of(tmp_path, coordinator) + log_of(tmp_path, keeper)
        record = await asyncio.to_thread(stored, keeper.live, created["id"])
        assert record["status"] == "finished" and record["commitment"] == created["commitment"]
        check_standings(record)
        # Round 2, opened by the same coordinator: its tables on the nodes left, the
        # one that holds no other lease first (the coordinator holds its own).
        last = watch.last_round_on(record)
        assert keeper.id in last and last <= {coordinator.id, keeper.id}
        for client, (room, acked) in zip(clients, played, strict=True):
            await asyncio.to_thread(check_acked, keeper.live, record, room, client.id, acked)


async def test_the_coordinator_killed_while_tables_play_on_other_nodes(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    with cluster(cluster_db, redis_url, 3, logs=tmp_path) as nodes:
        coordinator, one, two = nodes
        clients, created = await bounded(
            "the Swiss created, entered and started", start_swiss(one.live, two.live), within=60
        )
        # Both tables of round 1 on the other nodes, none on the coordinator.
        watch, played, _ = await kill_mid_round(
            redis_url, clients, coordinator, [one, two], survivors=(one, two)
        )
        logs = log_of(tmp_path, one) + log_of(tmp_path, two)
        assert "coordinates the lobby" in logs
        record = await asyncio.to_thread(stored, one.live, created["id"])
        assert record["status"] == "finished" and record["commitment"] == created["commitment"]
        check_standings(record)
        # Round 2's tables, opened by the new coordinator, on the nodes left: the other
        # one first (the coordinator holds its own lease, and goes last on ties).
        with redis.Redis.from_url(redis_url, decode_responses=True) as r:
            now_coordinating = str(r.get("cs:lease:coordinator")).split(" ")[0]
        (other,) = {one.id, two.id} - {now_coordinating}
        last = watch.last_round_on(record)
        assert other in last and last <= {one.id, two.id}
        for client, (room, acked) in zip(clients, played, strict=True):
            await asyncio.to_thread(check_acked, one.live, record, room, client.id, acked)


async def answer(client: Client, ref: str) -> dict[str, Any]:
    """The tournament update answering the command sent with ``ref``."""
    while (message := await client.until("tournament"))["ref"] != ref:
        pass
    return message


async def solo_table(host: Client, player: Client, visibility: str, bots: int) -> tuple[Any, Any]:
    """``host`` makes a one-deal duplicate field; ``player`` and ``bots`` server bots
    enter; it starts. The tournament, and the player's table (a room of its own)."""
    await host.send(type="create_tournament", name=f"watch {visibility}", rounds=1,
                    visibility=visibility, ref="made")  # fmt: skip
    info = (await answer(host, "made"))["tournament"]
    where = {"invite_code": info["invite_code"]} if visibility == "private" else {
        "tournament_id": info["id"]}  # fmt: skip
    await player.send(type="join_tournament", contribution="p", ref="in", **where)
    await answer(player, "in")
    await host.send(type="add_tournament_bot", tournament_id=info["id"], count=bots, ref="bots")
    await answer(host, "bots")
    await host.send(type="manage_tournament", tournament_id=info["id"], action="start")
    room = (await player.until("room_state"))["room"]
    return info, room


async def handed(redis_url: str, room: str, coordinator: Node) -> str:
    """The node the table ``room`` was handed to (bounded wait)."""
    for _ in range(100):
        owner = (await asyncio.to_thread(owners, redis_url, {room})).get(room)
        if owner not in (None, coordinator.id):
            return str(owner)
        await asyncio.sleep(0.05)
    raise AssertionError(f"table {room} was not handed to another node")


async def test_a_table_on_another_node_is_watched_as_on_one_server(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    with cluster(cluster_db, redis_url, 3, logs=tmp_path) as nodes:
        coordinator, _one, two = nodes
        host = await signed_in(coordinator.live, "host")
        pat = await signed_in(two.live, "pat")
        _info, room = await solo_table(host, pat, "public", 2)
        assert room["visibility"] == "private" and room["origin"] == "tournament"
        await handed(redis_url, room["id"], coordinator)
        fan = await signed_in(coordinator.live, "fan")
        await fan.send(type="join_room", room_id=room["id"])  # a seat: no
        await fan.error("room_not_found")
        await fan.send(type="join_room", room_id=room["id"], spectate=True, ref="w")
        state = await fan.until("room_state")
        assert state["ref"] == "w" and state["you"] is None and state["result"] is None
        result = await pat.play_to_end(room["id"])
        await watch_to_the_result(fan, result)  # the deal shown once the round is over

        sam = await signed_in(two.live, "sam")
        info, room = await solo_table(host, sam, "private", 1)
        await handed(redis_url, room["id"], coordinator)
        stranger = await signed_in(two.live, "stranger")
        await members_only(host, stranger, info, room)
        for c in (host, pat, fan, sam, stranger):
            await c.close()
