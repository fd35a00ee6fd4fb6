"""SIGKILL of the node that owns a room mid-match: another node takes it over from the
store within 10 s, the players reconnect elsewhere and finish, nothing acknowledged lost."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from tests.server.cluster.nodes import cluster
from tests.server.cluster.test_cross_node_play import room_across
from tests.server.live import Client

pytestmark = pytest.mark.timeout(120)

TAKEOVER_S = 10.0


async def place_turns(client: Client, room_id: str, turns: int) -> None:
    for _ in range(turns):
        card = await client.until("card")
        await client.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])
        await client.until("placed")


async def finish_from(client: Client, room_id: str, state: dict[str, Any]) -> dict[str, Any]:
    """From a snapshot: place its card (if this turn's is not placed yet), then play on."""
    you = state["you"]
    if you.get("card") and you.get("legal"):
        await client.send(type="place", room_id=room_id, turn=you["turn"], cell=you["legal"][0])
    return await client.play_to_end(room_id)


async def test_sigkill_of_the_owner_mid_match(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    with cluster(cluster_db, redis_url, 3, logs=tmp_path) as nodes:
        owner, other, spare = nodes
        alice, bob, room_id = await room_across(owner.live, other.live)
        await asyncio.gather(place_turns(alice, room_id, 5), place_turns(bob, room_id, 5))
        acknowledged = sum(m["type"] == "placed" for m in alice.log)
        assert acknowledged == 5
        bob_card = await bob.until("card")  # turn 6, dealt before the kill
        owner.process.kill()
        killed = time.monotonic()
        # bob (on a node still alive) places at once: his node holds it for the new owner.
        await bob.send(type="place", room_id=room_id, turn=6, cell=bob_card["legal"][0])
        # alice's connection died with its node; she comes back through another.
        back = await Client.connect(spare.live)
        welcome = await back.hello(token=alice.token)
        assert welcome["player"]["id"] == alice.id
        state = await back.until("room_state", timeout=TAKEOVER_S + 5)
        while not state.get("you") or state["you"]["turn"] != 6:
            state = await back.until("room_state", timeout=TAKEOVER_S + 5)
        took = time.monotonic() - killed
        assert took < TAKEOVER_S, took
        assert len(state["you"]["placements"]) == acknowledged  # nothing acknowledged lost
        try:
            placed = await bob.until("placed", timeout=TAKEOVER_S + 5)
        except TimeoutError:
            print(
                "BOBLOG", [m["type"] for m in bob.log], [m for m in bob.log if m["type"] == "error"]
            )
            raise
        assert placed["turn"] == 6
        results = await asyncio.gather(finish_from(back, room_id, state), bob.play_to_end(room_id))
        assert results[0] == results[1]
        assert [len(b["placements"]) for b in results[0]["boards"]] == [16, 16]
