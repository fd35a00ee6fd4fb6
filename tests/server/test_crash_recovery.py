"""Kill the real server process in the middle of matches, start it again: they play on."""

from __future__ import annotations

import asyncio
import json
import signal
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import websockets

from tests.server.live import Client, Live, server_process
from tests.server.stores import StoreUnderTest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]


def get(live: Live, path: str) -> Any:
    with urllib.request.urlopen(live.http + path, timeout=10) as reply:
        return json.loads(reply.read())


async def place_some(client: Client, room_id: str, count: int, pick: int) -> dict[int, str]:
    """Place ``count`` cards; return the acknowledged ones, turn -> cell."""
    acked: dict[int, str] = {}
    for _ in range(count):
        card = await client.until("card")
        cell = card["legal"][min(pick, len(card["legal"]) - 1)]
        await client.send(type="place", room_id=room_id, turn=card["turn"], cell=cell)
        placed = await client.until("placed")
        acked[placed["turn"]] = placed["cell"]
    return acked


async def back(live: Live, token: str) -> tuple[Client, dict[str, Any]]:
    client = await Client.connect(live)
    await client.send(type="hello", protocol=1, token=token)
    assert (await client.until("welcome"))["type"] == "welcome"
    return client, await client.until("room_state")


async def finish(client: Client, state: dict[str, Any], room_id: str, pick: int) -> dict[str, Any]:
    """Place the card the snapshot says is waiting, then play to the result."""
    you = state["you"]
    if you["turn"] is not None:
        cell = you["legal"][min(pick, len(you["legal"]) - 1)]
        await client.send(type="place", room_id=room_id, turn=you["turn"], cell=cell)
    return await client.play_to_end(room_id, pick)


async def test_sigkill_mid_match_then_restart_resumes_every_match(
    store: StoreUnderTest,
) -> None:
    """On SQLite and on PostgreSQL: nothing acknowledged is lost."""
    db = store.target
    with server_process(db) as (process, live):
        alice, bob = await Client.connect(live), await Client.connect(live)
        await alice.hello("alice")
        await bob.hello("bob")
        # A lockstep duel, best of 3, and alice's race against a server bot.
        await alice.send(type="create_room", name="duel", seats=2, deals=3, contribution="a")
        duel = (await alice.until("room_state"))["room"]["id"]
        await bob.send(type="join_room", room_id=duel, contribution="b")
        await bob.until("room_state")
        for c in (alice, bob):
            await c.send(type="ready", room_id=duel)
        for c in (alice, bob):
            await c.until("match_started")
        a_acked, b_acked = await asyncio.gather(
            place_some(alice, duel, 5, 0), place_some(bob, duel, 5, 2)
        )
        carol = await Client.connect(live)
        await carol.hello("carol")
        await carol.send(
            type="create_room", name="race", seats=2, pace="race", deal_clock_ms=120_000
        )
        race = (await carol.until("room_state"))["room"]["id"]
        await carol.send(type="add_bot", room_id=race, strategy="greedy")
        await carol.send(type="start", room_id=race)
        await carol.until("match_started")
        c_acked = await place_some(carol, race, 7, 1)
        left_before = (await carol.until("card"))["deadline_ms"]
        tokens = {c: c.token for c in (alice, bob, carol)}
        process.send_signal(signal.SIGKILL)
        process.wait()
    for c in (alice, bob, carol):
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await c.recv(timeout=5)
    await asyncio.sleep(1.0)  # the server is away for a while

    with server_process(db) as (process, live):
        assert tokens[alice] and tokens[bob] and tokens[carol]
        alice2, a_state = await back(live, tokens[alice])
        bob2, b_state = await back(live, tokens[bob])
        carol2, c_state = await back(live, tokens[carol])
        for state, acked in ((a_state, a_acked), (b_state, b_acked), (c_state, c_acked)):
            assert state["room"]["status"] == "playing"
            mine = {p["turn"]: p["cell"] for p in state["you"]["placements"]}
            assert {t: mine[t] for t in acked} == acked  # no acknowledged placement is lost
        assert a_state["you"]["turn"] == 6 and a_state["you"]["card"]
        # The race clock did not run while the server was down.
        assert c_state["you"]["deadline_ms"] >= left_before - 500
        a_result, b_result, c_result = await asyncio.gather(
            finish(alice2, a_state, duel, 0),
            finish(bob2, b_state, duel, 2),
            finish(carol2, c_state, race, 1),
        )
        assert a_result["match_id"] == b_result["match_id"] == a_state["match_id"]
        assert a_result["series"]["deal"] == 1 and not a_result["series"]["finished"]
        for result, who, acked in ((a_result, "alice", a_acked), (c_result, "carol", c_acked)):
            board = next(b for b in result["boards"] if b["player"]["name"] == who)
            cells = {p["turn"]: p["cell"] for p in board["placements"]}
            assert {t: cells[t] for t in acked} == acked
        stored = get(live, f"/api/matches/{c_result['match_id']}")
        assert stored["status"] == "finished"
        # The series goes on to its second deal, on the same committed chain.
        started = await alice2.until("match_started", timeout=20)
        assert started["deal"] == 2
        assert started["server_commitment"] == a_result["server_secret"]
        for c in (alice2, bob2, carol2):
            await c.close()


async def test_sigterm_closes_with_going_away_and_the_match_resumes(tmp_path: Path) -> None:
    db = tmp_path / "term.db"
    with server_process(db) as (process, live):
        dave = await Client.connect(live)
        await dave.hello("dave")
        await dave.send(type="create_room", name="solo", seats=1)
        room = (await dave.until("room_state"))["room"]["id"]
        await dave.send(type="ready", room_id=room)
        acked = await place_some(dave, room, 4, 3)
        token = dave.token
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await dave.recv(timeout=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
    with server_process(db) as (process, live):
        assert token is not None
        dave2, state = await back(live, token)
        assert {p["turn"]: p["cell"] for p in state["you"]["placements"]} == acked
        result = await finish(dave2, state, room, 3)
        assert len(result["boards"][0]["placements"]) == 16
        history = get(live, "/api/players/dave/matches")
        assert [m["status"] for m in history["matches"]] == ["finished"]
        await dave2.close()
