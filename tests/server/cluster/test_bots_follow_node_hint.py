"""The bot kit's client meets node_hint on a real cluster through real nginx: a bot
hosts a room, a second one joins it through the address with ``?node=`` naming the
OTHER node, is hinted, reconnects to the room's node and both finish the match there;
from the move on, none of its commands is forwarded between the nodes."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

import aiohttp
import pytest
import redis.asyncio as aioredis

from client_cli.botkit import BotClient, Plan
from client_cli.model.views import Connection
from client_cli.nodes import node_of
from server.shell.cluster.bus import channel
from tests.server.cluster.nodes import cluster
from tests.server.cluster.test_nginx import first_room, quiet, slow
from tests.server.cluster.test_node_hints import connected_at, owner_of
from tests.services.nginx import MISSING, nginx

pytestmark = [pytest.mark.timeout(120), pytest.mark.skipif(bool(MISSING), reason=MISSING or "")]


async def forwarded_to(
    redis_url: str, node: str, seen: list[tuple[float, str]], listening: asyncio.Event
) -> None:
    """Every command forwarded to ``node`` (its type, when heard) into ``seen``;
    ``listening`` set once subscribed."""
    async with aioredis.Redis.from_url(redis_url, decode_responses=True) as r:
        pubsub = r.pubsub()
        await pubsub.subscribe(channel(node))
        await pubsub.get_message(timeout=5)  # the subscription's confirmation
        listening.set()
        try:
            async for message in pubsub.listen():
                if message["type"] != "message":
                    continue
                payload = json.loads(message["data"])
                if payload.get("k") == "cmd":
                    kind = json.loads(payload["msg"])["type"]
                    seen.append((asyncio.get_running_loop().time(), kind))
        finally:
            await pubsub.aclose()  # type: ignore[no-untyped-call]


async def test_a_bot_sent_to_the_wrong_node_follows_the_hint_and_plays_on_the_owner(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    with contextlib.ExitStack() as stack:
        nodes = stack.enter_context(cluster(cluster_db, redis_url, 2, logs=tmp_path))
        address = stack.enter_context(nginx([n.port for n in nodes], [n.id for n in nodes]))
        url = address.replace("http://", "ws://") + "/ws"
        host_moves: list[int] = []
        host = BotClient(url, slow("host", host_moves), name="host bot", say=quiet)
        hosting = asyncio.create_task(host.run(Plan(seats=2, wait_s=30)))
        room_id = await first_room(address)
        owner = await owner_of(redis_url, room_id)
        other = next(n for n in nodes if n.id != owner)
        assert owner in {n.id for n in nodes} and other.id != owner

        seen: list[tuple[float, str]] = []
        subscribed = asyncio.Event()
        listening = asyncio.create_task(forwarded_to(redis_url, owner, seen, subscribed))
        await asyncio.wait_for(subscribed.wait(), 5)  # before the guest says anything
        notes: list[tuple[float, str]] = []
        guest_moves: list[int] = []
        guest = BotClient(f"{url}?node={other.id}", slow("guest", guest_moves), name="guest bot",
                          say=quiet)  # fmt: skip

        def told(state: Connection, note: str) -> None:
            if state == Connection.ONLINE and note:
                notes.append((asyncio.get_running_loop().time(), note))

        guest.session.status = told  # what the play client shows in its status line
        guesting = asyncio.create_task(guest.run(Plan(room=room_id)))
        try:
            for _ in range(300):  # the join on OTHER, the hint, the move, well into the match
                if len(guest_moves) >= 4 and len(host_moves) >= 4:
                    break
                await asyncio.sleep(0.05)
            moved = [(at, note) for at, note in notes if note.startswith("moved")]
            assert [note for _, note in moved] == [f"moved to the room's server node {owner}"]
            assert node_of(guest.session.ws_url) == owner
            assert guest.welcome is not None
            guest_id = guest.welcome.player.id
            # Connected to the owner only, nobody left on the other node.
            assert await connected_at(redis_url, guest_id, nodes, {owner}) == {owner}
            async with aiohttp.ClientSession() as http:
                healthz = f"http://127.0.0.1:{other.port}/healthz"
                async with http.get(healthz) as response:
                    assert (await response.json())["connections"] == 0

            [mine], [theirs] = await asyncio.wait_for(asyncio.gather(hosting, guesting), 60)
        finally:
            listening.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listening
        assert mine.room_id == theirs.room_id == room_id
        assert mine.match_id == theirs.match_id and mine.boards == theirs.boards
        assert {name for name, *_ in mine.boards} == {"host bot", "guest bot"}
        assert mine.fallbacks == theirs.fallbacks == 0

        # The join went through the other node (forwarded to the owner); from the move
        # on, nothing: every placement ran where it was sent.
        kinds = [kind for _, kind in seen]
        assert "join_room" in kinds, kinds
        after = [kind for at, kind in seen if at > moved[0][0]]
        assert after == [], after
        assert "place" not in kinds, kinds

        # Stored, and the same for everyone, through the address.
        match_url = f"{address}/api/matches/{mine.match_id}"
        async with aiohttp.ClientSession() as http, http.get(match_url) as response:
            assert response.status == 200
            stored = await response.json()
        boards = {(b["player"]["name"], b["rank"], b["score"]) for b in stored["boards"]}
        assert boards == {(name, rank, score) for name, _, rank, score in mine.boards}
