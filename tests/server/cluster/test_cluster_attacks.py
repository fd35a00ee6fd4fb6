"""As an attacker: commands for someone else's room through another node, unknown
invite codes, and garbage on the nodes' Redis channels."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from tests.server.cluster.nodes import cluster
from tests.server.cluster.test_cross_node_play import nothing_hidden_leaked, room_across
from tests.server.live import signed_in

pytestmark = pytest.mark.timeout(120)


async def test_a_stranger_on_another_node_and_garbage_on_the_bus(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    with cluster(cluster_db, redis_url, 3, logs=tmp_path) as nodes:
        a, b, c = (n.live for n in nodes)
        alice, bob, room_id = await room_across(a, b)
        mallory = await signed_in(c, "mallory")
        # Every command for a room mallory is not in, sent to a node that does not own it:
        # the owner refuses it, to mallory's connection only.
        for frame in (
            {"type": "place", "room_id": room_id, "turn": 1, "cell": "a1", "ref": "p"},
            {"type": "resync", "room_id": room_id, "ref": "r"},
            {"type": "leave_room", "room_id": room_id, "ref": "l"},
            {"type": "ready", "room_id": room_id, "ref": "y"},
        ):
            await mallory.send(**frame)
            refused = await mallory.until("error")
            assert (refused["code"], refused["ref"]) == ("not_in_room", frame["ref"])
        await mallory.send(type="place", room_id="nosuchroom", turn=1, cell="a1", ref="n")
        assert (await mallory.error("not_in_room"))["ref"] == "n"
        await mallory.send(type="join_room", invite_code="ZZZZZZZZ", ref="i")
        assert (await mallory.error("room_not_found"))["ref"] == "i"
        # Garbage published straight to the owner's channel and to everyone.
        async with aioredis.Redis.from_url(redis_url) as r:
            for channel in ("cs:node:node0", "cs:all"):
                for junk in (
                    "not json",
                    json.dumps([1, 2]),
                    json.dumps({"k": "cmd", "from": "x"}),
                    json.dumps({"k": "cmd", "key": f"room:{room_id}", "sid": "1",
                                "player": {"id": "p-x"}, "msg": "{", "from": "x"}),
                    json.dumps({"k": "out", "items": "nope", "from": "x"}),
                    json.dumps({"k": "nonsense", "from": "x"}),
                ):  # fmt: skip
                    await r.publish(channel, junk)
        await asyncio.sleep(0.3)
        # The match goes on, and mallory saw nothing of it.
        results = await asyncio.gather(alice.play_to_end(room_id), bob.play_to_end(room_id, 2))
        assert results[0] == results[1]
        nothing_hidden_leaked(bob, alice)
        assert not [m for m in mallory.log if m.get("room_id") == room_id and m["type"] != "error"]
        await mallory.still_alive()
