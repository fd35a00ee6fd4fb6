"""An owner paused past its lease (SIGSTOP) is deposed: another node takes the room, and
when the old owner wakes up its fence is stale, so nothing it does is acknowledged
against the new owner's game (no split brain)."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from tests.server.cluster.nodes import cluster
from tests.server.cluster.test_cross_node_play import room_across
from tests.server.cluster.test_failover import finish_from, place_turns
from tests.server.cluster.test_handover import comes_back, state_at

pytestmark = pytest.mark.timeout(120)


async def test_a_paused_owner_cannot_write_after_takeover(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    with cluster(cluster_db, redis_url, 3, logs=tmp_path) as nodes:
        owner, other, spare = nodes
        alice, bob, room_id = await room_across(owner.live, other.live)
        await asyncio.gather(place_turns(alice, room_id, 3), place_turns(bob, room_id, 3))
        card = await alice.until("card")  # turn 4
        owner.process.send_signal(signal.SIGSTOP)
        try:
            # alice's old connection asks the frozen owner for turn 4: it waits in its socket.
            await alice.send(type="place", room_id=room_id, turn=4, cell=card["legal"][0])
            back = await comes_back(alice, spare)
            state = await state_at(back, 4, 15)  # taken over by another node
            assert len(state["you"]["placements"]) == 3
            # alice plays turn 4 elsewhere, on another cell than her frozen request's
            other_cell = next(c for c in state["you"]["legal"] if c != card["legal"][0])
            await back.send(type="place", room_id=room_id, turn=4, cell=other_cell)
            assert (await back.until("placed"))["cell"] == other_cell
        finally:
            owner.process.send_signal(signal.SIGCONT)
        # The old owner wakes and handles the frozen request: whatever it answers on the
        # old connection, the game is the new owner's.
        await asyncio.sleep(1.5)
        old_acks = [m for m in alice.log if m["type"] == "placed" and m["turn"] == 4]
        results = await asyncio.gather(
            back.play_to_end(room_id), finish_from(bob, room_id, await state_at(bob, 4, 5))
        )
        assert results[0] == results[1]
        board = next(b for b in results[0]["boards"] if b["player"]["id"] == alice.id)
        cells = {p["turn"]: p["cell"] for p in board["placements"]}
        assert cells[4] == other_cell
        assert all(ack["cell"] == cells[4] for ack in old_acks)  # no acknowledgment lost
