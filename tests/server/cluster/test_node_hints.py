"""``node_hint``: a player seated in a room run by another node than its connection's is
told which, if its hello said ``follow_node``; ``?node=ID`` through nginx reaches that
node. Real nodes, real nginx, real sockets (docs/protocol.md, *node_hint*)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import redis.asyncio as aioredis
import websockets
from yarl import URL

from engine.cards import Card
from engine.deal import verify
from tests.server.cluster.nodes import Node, cluster
from tests.server.live import Client, Live, running_server
from tests.services.nginx import MISSING as NGINX_MISSING
from tests.services.nginx import nginx

pytestmark = pytest.mark.timeout(120)

# Queries (as sent, encoded) whose node is not a node id, or is given twice.
BAD_QUERIES = ["node=", "node=a%20b", "node=" + "x" * 33, "node=n%C3%A9", "node=..%2Fetc",
               "node=n0%3Bdrop", "node=%00", "node=n0&node=n1"]  # fmt: skip


def at(url: str, node: str | None = None) -> Live:
    """The WebSocket URL ``url`` (a node's or the public address's), ``?node=`` set."""
    base = url.replace("http://", "ws://").removesuffix("/ws") + "/ws"
    return Live(url=base + (f"?node={node}" if node else ""), http="", app=None)  # type: ignore[arg-type]


async def hello(live: Live, name: str | None = None, **extra: Any) -> Client:
    client = await Client.connect(live)
    welcome = await client.hello(name, **extra)
    assert welcome["type"] == "welcome", welcome
    return client


async def settled(*clients: Client) -> None:
    """Whatever the servers had to say to these clients meanwhile is read (a ping each,
    a moment for the other node's messages, a ping each again)."""
    for client in clients:
        await client.still_alive()
    await asyncio.sleep(0.6)
    for client in clients:
        await client.still_alive()


def hints(client: Client) -> list[dict[str, Any]]:
    return [m for m in client.log if m["type"] == "node_hint"]


async def connected_at(
    redis_url: str, player_id: str | None, nodes: list[Node], expected: set[str]
) -> set[str]:
    """The nodes whose presence hash holds ``player_id`` (where it is connected), once
    they are ``expected`` (a node writes it a moment after the sign-in) or 5 s passed."""
    async with aioredis.Redis.from_url(redis_url, decode_responses=True) as r:
        for _ in range(50):
            found = {n.id for n in nodes if await r.hexists(f"cs:presence:{n.id}", player_id)}
            if found == expected:
                break
            await asyncio.sleep(0.1)
    return found


async def room_of(alice: Client, seats: int = 2) -> str:
    await alice.send(type="create_room", name="hinted", seats=seats, contribution="a-share")
    return str((await alice.until("room_state"))["room"]["id"])


async def join(client: Client, room_id: str, **extra: Any) -> None:
    await client.send(type="join_room", room_id=room_id, **extra)
    await client.until("room_state")


async def owner_of(redis_url: str, room_id: str) -> str | None:
    async with aioredis.Redis.from_url(redis_url, decode_responses=True) as r:
        held = await r.get(f"cs:lease:room:{room_id}")
    return held.split()[0] if held else None


@pytest.mark.skipif(bool(NGINX_MISSING), reason=NGINX_MISSING or "")
async def test_a_hinted_player_reconnects_through_nginx_to_the_room_s_node_and_plays(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    with contextlib.ExitStack() as stack:
        nodes = stack.enter_context(cluster(cluster_db, redis_url, 2, logs=tmp_path))
        a, b = nodes
        address = stack.enter_context(nginx([n.port for n in nodes], [n.id for n in nodes]))
        alice = await hello(at(address, a.id), "alice", follow_node=True)
        bob = await hello(at(address, b.id), "bob", follow_node=True)
        assert await connected_at(redis_url, alice.id, nodes, {a.id}) == {a.id}
        assert await connected_at(redis_url, bob.id, nodes, {b.id}) == {b.id}
        room_id = await room_of(alice)
        assert await owner_of(redis_url, room_id) == a.id
        await join(bob, room_id, contribution="b-share")
        hint = await bob.until("node_hint")
        # The node and the room, nothing else (no ref: it answers nothing).
        assert hint == {"type": "node_hint", "node": a.id, "room_id": room_id}
        await settled(alice, bob)
        assert hints(alice) == [] and len(hints(bob)) == 1

        # bob follows it: closes, reconnects to the address with ?node=A, says hello.
        await bob.ws.close(1000)
        token = bob.token
        bob = Client(await websockets.connect(at(address, a.id).url))
        welcome = await bob.hello(None, token=token, follow_node=True)
        assert welcome["type"] == "welcome"
        snapshot = await bob.until("room_state")
        assert snapshot["room"]["id"] == room_id
        # On A only, once B has seen its old connection close.
        assert await connected_at(redis_url, bob.id, nodes, {a.id}) == {a.id}
        healthz = f"http://127.0.0.1:{b.port}/healthz"
        async with aiohttp.ClientSession() as http, http.get(healthz) as response:
            assert (await response.json())["connections"] == 0  # nobody is left on B

        for c in (alice, bob):
            await c.send(type="ready", room_id=room_id)
        mine, theirs = await asyncio.gather(alice.play_to_end(room_id, 0),
                                            bob.play_to_end(room_id, 3))  # fmt: skip
        assert mine == theirs
        assert {board["player"]["name"] for board in mine["boards"]} == {"alice", "bob"}
        # The deal is the one committed to, as on one server.
        started = next(m for m in alice.log if m["type"] == "match_started")
        cards = [Card.parse(m["card"]) for m in alice.log if m["type"] == "card"]
        assert verify(mine["seed"], started["seed_commitment"],
                      [*cards, Card.parse(mine["starter"])])  # fmt: skip
        for c in (alice, bob):
            assert sum(m["type"] == "placed" for m in c.log) == 16
            assert not [m for m in c.log if m["type"] == "error"], c.log
        assert hints(bob) == []  # on the room's node: nothing to hint

        # A node asked for while it is down: its upstream's backup, the other node.
        a.process.kill()
        await a.exited(10)
        for c in (alice, bob):
            await c.close()
        survivor = await hello(at(address, a.id), "survivor", follow_node=True)
        assert await connected_at(redis_url, survivor.id, nodes, {b.id}) == {b.id}
        # An unknown node id (well formed) goes to every node's pool, and works.
        stranger = await hello(at(address, "nosuchnode"), "stranger")
        await stranger.still_alive()
        # A bad one is refused before the upgrade, through nginx as straight.
        async with aiohttp.ClientSession() as http:
            for base in (address, f"http://127.0.0.1:{b.port}"):
                async with http.get(f"{base}/ws?node=a%20b") as response:
                    assert response.status == 400
                    assert (await response.json())["error"]["code"] == "bad_node"


async def test_who_is_hinted_and_how_often(tmp_path: Path, redis_url: str, cluster_db: str) -> None:
    with cluster(cluster_db, redis_url, 2, logs=tmp_path) as nodes:
        a, b = (at(n.live.url) for n in nodes)
        owner = nodes[0].id
        alice = await hello(a, "alice", follow_node=True)
        room_id = await room_of(alice, seats=4)
        # carol did not ask for hints; dave's URL named the owner and still reached B;
        # erin asked, and her URL names nothing; frank only watches.
        carol = await hello(b, "carol")
        dave = await hello(at(nodes[1].live.url, owner), "dave", follow_node=True)
        erin = await hello(b, "erin", follow_node=True)
        frank = await hello(b, "frank", follow_node=True)
        for c in (carol, dave, erin):
            await join(c, room_id)
        await join(frank, room_id, spectate=True)
        await erin.until("node_hint")
        # A flood of joins and resyncs does not make more.
        for _ in range(5):
            await join(erin, room_id)
            await erin.send(type="resync", room_id=room_id)
            await erin.until("room_state")
        await settled(alice, carol, dave, erin, frank)
        assert [len(hints(c)) for c in (alice, carol, dave, erin, frank)] == [0, 0, 0, 1, 0]

        # erin signs in again on B, on a second connection: that one is told too (once),
        # the first one not again.
        again = await hello(b, None, token=erin.token, follow_node=True)
        assert await again.until("node_hint") == {
            "type": "node_hint", "node": owner, "room_id": room_id,
        }  # fmt: skip
        await settled(erin, again)
        assert len(hints(erin)) == 1 and len(hints(again)) == 1
        # On the owner's node a player is never hinted of its own node's room.
        there = await hello(a, None, token=erin.token, follow_node=True)
        await settled(there)
        assert hints(there) == []


async def test_after_a_failover_a_player_elsewhere_is_hinted_to_the_new_owner(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    with cluster(cluster_db, redis_url, 3, logs=tmp_path) as nodes:
        lives = [at(n.live.url) for n in nodes]
        alice = await hello(lives[0], "alice", follow_node=True)
        bob = await hello(lives[1], "bob", follow_node=True)
        carol = await hello(lives[2], "carol", follow_node=True)
        room_id = await room_of(alice, seats=3)
        for c in (bob, carol):
            await join(c, room_id)
            assert (await c.until("node_hint"))["node"] == nodes[0].id
        for c in (alice, bob, carol):  # a match begun is stored: it survives its node
            await c.send(type="ready", room_id=room_id)
        for c in (alice, bob, carol):
            await c.until("match_started")
        nodes[0].process.kill()
        new = None
        for _ in range(200):
            new = await owner_of(redis_url, room_id)
            if new not in (None, nodes[0].id):
                break
            await asyncio.sleep(0.1)
        assert new in (nodes[1].id, nodes[2].id), new
        elsewhere, on_it = (carol, bob) if new == nodes[1].id else (bob, carol)
        hint = await elsewhere.until("node_hint", timeout=20)
        assert hint == {"type": "node_hint", "node": new, "room_id": room_id}
        await on_it.until("room_state", timeout=20)  # the new owner's snapshot
        await settled(elsewhere, on_it)
        assert len(hints(elsewhere)) == 2 and len(hints(on_it)) == 1


async def test_one_server_never_hints_and_refuses_a_bad_node_parameter(tmp_path: Path) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        alice = await hello(live, "alice", follow_node=True)
        room_id = await room_of(alice)
        bob = await hello(at(live.url, "elsewhere"), "bob", follow_node=True)
        await join(bob, room_id)
        await settled(alice, bob)
        assert hints(alice) == hints(bob) == []
        http = live.url.replace("ws://", "http://")
        async with aiohttp.ClientSession() as session:
            for query in BAD_QUERIES:
                async with session.get(URL(f"{http}?{query}", encoded=True)) as response:
                    assert response.status == 400, query
                    body = await response.json()
                    assert body["error"]["code"] == "bad_node", body
                    assert set(body["error"]) == {"code", "reason"}
        with pytest.raises(websockets.InvalidStatus) as refused:
            await websockets.connect(live.url + "?node=..%2Fetc")
        assert refused.value.response.status_code == 400
        assert json.loads(refused.value.response.body)["error"]["code"] == "bad_node"
        await alice.still_alive()


async def test_a_quick_play_pair_split_over_two_nodes_is_hinted_to_where_its_room_went(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    with cluster(cluster_db, redis_url, 3, logs=tmp_path) as nodes:
        async with aioredis.Redis.from_url(redis_url, decode_responses=True) as r:
            for _ in range(100):
                held = await r.get("cs:lease:coordinator")
                if held:
                    break
                await asyncio.sleep(0.1)
        coordinator = held.split()[0]
        x, y = (n for n in nodes if n.id != coordinator)
        alice = await hello(at(x.live.url), "alice", follow_node=True)
        bob = await hello(at(y.live.url), "bob", follow_node=True)
        for c in (alice, bob):
            await c.send(type="quickplay")
        matched = [await c.until("room_state") for c in (alice, bob)]
        room_id = matched[0]["room"]["id"]
        assert matched[1]["room"]["id"] == room_id
        owner = None
        for _ in range(100):  # handed by the coordinator to one of the players' nodes
            owner = await owner_of(redis_url, room_id)
            if owner in (x.id, y.id):
                break
            await asyncio.sleep(0.1)
        assert owner in (x.id, y.id), owner
        hinted, not_hinted = (bob, alice) if owner == x.id else (alice, bob)
        assert await hinted.until("node_hint") == {
            "type": "node_hint", "node": owner, "room_id": room_id,
        }  # fmt: skip
        await settled(alice, bob)
        # Never of the coordinator, which only opened the room and handed it on.
        assert len(hints(hinted)) == 1 and hints(not_hinted) == []


async def test_a_player_following_a_hint_after_its_match_finds_its_finished_room(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    """The cluster run of the third hostile round: a few ``resync``s for a player's own
    room got ``not_in_room``. A player who follows its hint late, once the match is
    over and the others have left, is connected to no node for a moment; the finished
    room was forgotten the moment its last connected member went. It waits out the
    seat's grace now: the player finds its room, result and all, on the room's node."""
    with cluster(cluster_db, redis_url, 2, logs=tmp_path) as nodes:
        a, b = nodes
        alice = await hello(at(a.live.url), "alice", follow_node=True)
        bob = await hello(at(b.live.url), "bob", follow_node=True)
        room_id = await room_of(alice)
        await join(bob, room_id)
        while not hints(bob):  # it may have come before the room_state join() read to
            await bob.recv()
        (hint,) = hints(bob)
        for c in (alice, bob):
            await c.send(type="ready", room_id=room_id)
        result, _ = await asyncio.gather(alice.play_to_end(room_id), bob.play_to_end(room_id))
        await alice.send(type="leave_room", room_id=room_id)
        await alice.until("left")
        # bob follows the hint now: closes on B, then signs in on the room's node, A
        await bob.ws.close(1000)
        assert await connected_at(redis_url, bob.id, nodes, set()) == set()
        moved = await hello(at(a.live.url, hint["node"]), None, token=bob.token,
                            follow_node=True)  # fmt: skip
        state = await moved.until("room_state")
        assert state["room"]["id"] == room_id and state["result"] == result
        await moved.send(type="resync", room_id=room_id, ref="again")
        again = await moved.until("room_state", "error")
        assert again["type"] == "room_state" and again["ref"] == "again", again
        for c in (alice, moved):
            await c.close()
