"""SIGTERM on a node hands its rooms over at once (no lease has to expire), and a
rolling restart of every node during a match loses nothing."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from tests.server.cluster.nodes import Node, cluster_node
from tests.server.cluster.test_cross_node_play import room_across
from tests.server.cluster.test_failover import finish_from, place_turns
from tests.server.live import Client

pytestmark = pytest.mark.timeout(180)

HANDOVER_S = 3.0  # under the lease's 4 s: the room moved because it was handed over


async def comes_back(client: Client, node: Node) -> Client:
    """``client``'s player, signed in again through ``node``."""
    back = await Client.connect(node.live)
    back.token = client.token
    welcome = await back.hello(token=client.token)
    assert welcome["type"] == "welcome", welcome
    return back


async def state_at(client: Client, turn: int, timeout: float) -> dict[str, Any]:
    state = await client.until("room_state", timeout=timeout)
    while not state.get("you") or state["you"]["turn"] != turn:
        state = await client.until("room_state", timeout=timeout)
    return state


async def play_on(
    client: Client, room_id: str, turns: int, snapshot: dict[str, Any] | None
) -> None:
    """``turns`` placements, the first from ``snapshot`` if the client just came back."""
    if snapshot is not None:
        you = snapshot["you"]
        await client.send(type="place", room_id=room_id, turn=you["turn"], cell=you["legal"][0])
        await client.until("placed")
        turns -= 1
    await place_turns(client, room_id, turns)


async def test_sigterm_hands_the_room_over_without_a_gap(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    db = cluster_db
    with contextlib.ExitStack() as stack:
        nodes = [
            stack.enter_context(cluster_node(db, redis_url, f"node{i}", logs=tmp_path))
            for i in range(3)
        ]
        owner, other, spare = nodes
        alice, bob, room_id = await room_across(owner.live, other.live)
        await asyncio.gather(place_turns(alice, room_id, 3), place_turns(bob, room_id, 3))
        owner.process.send_signal(signal.SIGTERM)
        stopped = time.monotonic()
        closed = await asyncio.wait_for(alice.ws.wait_closed(), 10)
        assert closed is None and alice.ws.close_code == 1001  # going away
        assert await owner.exited(10) == 0
        state = await state_at(bob, 4, 10)  # the new owner's snapshot
        assert time.monotonic() - stopped < HANDOVER_S
        assert len(state["you"]["placements"]) == 3
        back = await comes_back(alice, spare)
        mine = await state_at(back, 4, 10)
        results = await asyncio.gather(
            finish_from(back, room_id, mine), finish_from(bob, room_id, state)
        )
        assert results[0] == results[1]


async def test_a_rolling_restart_of_every_node_during_a_match(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    db = cluster_db
    with contextlib.ExitStack() as stack:
        running: dict[str, tuple[contextlib.ExitStack, Node]] = {}

        def start(node_id: str, port: int = 0) -> Node:
            inner = contextlib.ExitStack()
            node = inner.enter_context(cluster_node(db, redis_url, node_id, port, logs=tmp_path))
            running[node_id] = (inner, node)
            return node

        stack.callback(lambda: [inner.close() for inner, _ in running.values()])
        for i in range(3):
            start(f"node{i}")
        alice, bob, room_id = await room_across(running["node0"][1].live, running["node1"][1].live)
        players = {"alice": alice, "bob": bob}
        where = {"alice": "node0", "bob": "node1"}
        turn = 1
        snapshots: dict[str, dict[str, Any]] = {}  # of a player back through another node
        for restarting in ("node0", "node1", "node2"):
            await asyncio.gather(
                *(play_on(c, room_id, 2, snapshots.pop(name, None)) for name, c in players.items())
            )
            turn += 2
            inner, node = running.pop(restarting)
            node.process.send_signal(signal.SIGTERM)
            assert await node.exited(15) == 0
            inner.close()
            start(restarting, node.port)  # the same address again
            for name, client in players.items():
                if where[name] == restarting:
                    elsewhere = next(n for n in running if n != restarting)
                    players[name] = await comes_back(client, running[elsewhere][1])
                    where[name] = elsewhere
                    snapshots[name] = await state_at(players[name], turn, 15)
                    # nothing acknowledged lost
                    assert len(snapshots[name]["you"]["placements"]) == turn - 1
        results = await asyncio.gather(
            *(
                finish_from(c, room_id, snapshots[name])
                if name in snapshots
                else c.play_to_end(room_id)
                for name, c in players.items()
            )
        )
        assert results[0] == results[1]
        assert [len(b["placements"]) for b in results[0]["boards"]] == [16, 16]
