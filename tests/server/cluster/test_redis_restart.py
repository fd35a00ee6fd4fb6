"""Redis killed mid-match and started again empty: the leases, the fencing counter, the
subscriptions and who is connected where are all gone. The nodes notice, take their
rooms back from the database under tokens newer than any stored, and the match goes
on and finishes with nothing acknowledged lost."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import redis as redis_client

from server.shell.cluster.leases import FENCE
from tests.server.cluster.nodes import cluster
from tests.server.cluster.test_cross_node_play import room_across
from tests.server.cluster.test_failover import place_turns
from tests.server.live import Client, signed_in
from tests.services.redis import MISSING, redis_process

pytestmark = [pytest.mark.timeout(150), pytest.mark.skipif(bool(MISSING), reason=str(MISSING))]

DOWN_S = 2.0  # how long Redis stays down
BACK_S = 20.0  # from Redis back to the room playing again


async def test_a_redis_restart_mid_match(tmp_path: Path, cluster_db: str) -> None:
    with redis_process() as redis, cluster(cluster_db, redis.url, 3, logs=tmp_path) as nodes:
        owner, other, spare = nodes
        # A cluster that has run a while: its tokens are well past what a new counter
        # would hand out first, and the database holds them as the rooms' fences.
        with redis_client.Redis.from_url(redis.url) as r:
            r.incrby(FENCE, 1_000)
        alice, bob, room_id = await room_across(owner.live, other.live)
        await asyncio.gather(place_turns(alice, room_id, 4), place_turns(bob, room_id, 4))
        redis.kill()
        await asyncio.sleep(DOWN_S)
        redis.start()  # empty
        # Both play on; a placement sent while the nodes cannot reach each other gets
        # room_unavailable (nothing done) and is sent again, as docs/protocol.md says.
        results = await asyncio.wait_for(
            asyncio.gather(play_on(alice, room_id), play_on(bob, room_id)), BACK_S + 60
        )
        assert results[0] == results[1]
        assert [len(b["placements"]) for b in results[0]["boards"]] == [16, 16]
        # and the cluster still works for something new: a room across two other nodes
        carol, dave = await signed_in(other.live, "carol"), await signed_in(spare.live, "dave")
        await carol.send(type="create_room", name="after", seats=2)
        second = (await carol.until("room_state"))["room"]["id"]
        await dave.send(type="join_room", room_id=second)
        await dave.until("room_state")
        for c in (carol, dave):
            await c.send(type="ready", room_id=second)
        await asyncio.gather(place_turns(carol, second, 2), place_turns(dave, second, 2))
        for client in (alice, bob, carol, dave):
            await client.close()


async def play_on(client: Client, room_id: str) -> dict:  # type: ignore[type-arg]
    """Place every card dealt from here on (the first one again after a room_unavailable, or
    from the snapshot a takeover sends) until the result."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BACK_S + 60
    while loop.time() < deadline:
        m = await client.until("card", "room_state", "match_result", "error", timeout=BACK_S)
        if m["type"] == "match_result":
            return m  # type: ignore[no-any-return]
        if m["type"] == "card":
            turn, legal = m["turn"], m["legal"]
        elif m["type"] == "room_state":
            you = m.get("you") or {}
            if not (you.get("card") and you.get("legal")):
                continue
            turn, legal = you["turn"], you["legal"]
        else:
            assert m["code"] in (
                "room_unavailable",
                "past_turn",
                "future_turn",
                "already_placed",
            ), m
            if m["code"] != "room_unavailable":
                continue
            await asyncio.sleep(0.3)
        await client.send(type="place", room_id=room_id, turn=turn, cell=legal[0])
    raise AssertionError("the match did not finish")
