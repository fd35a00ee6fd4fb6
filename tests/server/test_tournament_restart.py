"""Kill the real server process while it runs a tournament, mid-deal (SIGKILL) and
again between rounds (SIGTERM), start it again on the same database each time: the
tournament comes back and plays to its end, with every acknowledged placement and
its committed round secrets."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sqlite3
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import websockets

from tests.server.live import Client, Live, server_process, signed_in
from tests.server.test_tournaments_live import check_round_secrets, play_tournament, play_until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]


def get(live: Live, path: str) -> Any:
    with urllib.request.urlopen(live.http + path, timeout=10) as reply:
        return json.loads(reply.read())


async def place_cards(client: Client, count: int, pick: int) -> tuple[str, dict[int, str]]:
    """Place ``count`` cards at the client's table; return the room and the acknowledged ones."""
    acked: dict[int, str] = {}
    room_id = ""
    for _ in range(count):
        card = await client.until("card", timeout=20)
        room_id = card["room_id"]
        cell = card["legal"][min(pick, len(card["legal"]) - 1)]
        await client.send(type="place", room_id=room_id, turn=card["turn"], cell=cell)
        placed = await client.until("placed")
        acked[placed["turn"]] = placed["cell"]
    return room_id, acked


async def start_swiss(live: Live, name: str) -> tuple[Client, Client, dict[str, Any]]:
    """alice hosts a 2-round lockstep Swiss; alice, bob and two greedy server bots
    enter; it starts. Returns the two people and the tournament as created."""
    alice, bob = await signed_in(live, "alice"), await signed_in(live, "bob")
    await alice.send(type="create_tournament", name=name, format="swiss",
                     rounds=2, pace="lockstep", card_clock_ms=60_000)  # fmt: skip
    created: dict[str, Any] = (await alice.until("tournament"))["tournament"]
    for i, c in enumerate((alice, bob)):
        await c.send(type="join_tournament", tournament_id=created["id"], contribution=f"s{i}",
                     ref="j")  # fmt: skip
        while (await c.until("tournament"))["ref"] != "j":
            pass
    await alice.send(type="add_tournament_bot", tournament_id=created["id"], strategy="greedy",
                     count=2)  # fmt: skip
    await alice.send(type="manage_tournament", tournament_id=created["id"], action="start")
    return alice, bob, created


async def kill(process: subprocess.Popen[str], *clients: Client, sig: int = signal.SIGKILL) -> None:
    process.send_signal(sig)
    assert process.wait(timeout=15) == (0 if sig == signal.SIGTERM else -sig)
    for c in clients:
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await c.recv(timeout=5)


async def back(live: Live, token: str | None) -> tuple[Client, dict[str, Any]]:
    """Sign in again with the token: the tournament's state comes first."""
    assert token is not None
    client = await Client.connect(live)
    await client.send(type="hello", protocol=1, token=token)
    assert (await client.until("welcome"))["type"] == "welcome"
    return client, (await client.until("tournament"))["tournament"]


async def until_round_over(client: Client, number: int, pick: int) -> dict[str, Any]:
    """Play every card dealt until round ``number`` is over; return the tournament then."""

    def over(t: dict[str, Any]) -> bool:
        return len(t["history"]) >= number and t["history"][number - 1]["status"] == "finished"

    return await play_until(client, pick, over)


async def test_a_tournament_survives_sigkill_mid_round_and_sigterm_between_rounds(
    tmp_path: Path,
) -> None:
    db = tmp_path / "cup.db"
    with server_process(db) as (process, live):
        alice, bob, created = await start_swiss(live, "restart cup")
        tid, committed = created["id"], created["commitment"]
        # Round 1, mid-deal: five cards each acknowledged, then the server dies.
        (a_room, a_acked), (b_room, b_acked) = await asyncio.gather(
            place_cards(alice, 5, 0), place_cards(bob, 5, 2)
        )
        tokens, ids = (alice.token, bob.token), (alice.id, bob.id)
        await kill(process, alice, bob)

    with server_process(db) as (process, live):
        (alice, a_t), (bob, b_t) = await back(live, tokens[0]), await back(live, tokens[1])
        for t, room in ((a_t, a_room), (b_t, b_room)):
            assert t["id"] == tid and t["status"] == "playing" and t["round"] == 1
            assert t["commitment"] == committed and t["history"][0]["status"] == "playing"
            assert room in {table["room_id"] for table in t["tables"]}
            # 16 cards at 60 s and a minute: the round clock has hardly run.
            assert 17 * 60_000 - 20_000 < t["round_left_ms"] <= 17 * 60_000
        assert [e["player"]["name"] for e in a_t["entrants"]][:2] == ["alice", "bob"]
        assert sum(e["player"]["bot"] for e in a_t["entrants"]) == 2
        waiting = {}
        for client, room, acked in ((alice, a_room, a_acked), (bob, b_room, b_acked)):
            state = await client.until("room_state")
            assert state["room"]["id"] == room and state["room"]["status"] == "playing"
            mine = {p["turn"]: p["cell"] for p in state["you"]["placements"]}
            assert {turn: mine[turn] for turn in acked} == acked  # none is lost
            waiting[client] = (room, state["you"])
        # Each places the card waiting for it, then the round is played to its end.
        for client, (room, you) in waiting.items():
            if you["turn"] is not None:
                cell = you["legal"][0]
                await client.send(type="place", room_id=room, turn=you["turn"], cell=cell)
        between = await asyncio.gather(until_round_over(alice, 1, 0), until_round_over(bob, 1, 2))
        assert between[0]["status"] == "playing" and between[0]["next_round_ms"] is not None
        killed_at = time.monotonic()
        await kill(process, alice, bob, sig=signal.SIGTERM)  # a clean stop this time

    with server_process(db) as (process, live):
        (alice, a_t), (bob, b_t) = await back(live, tokens[0]), await back(live, tokens[1])
        # Between rounds: the break goes on where it was (the downtime is not charged).
        assert a_t["round"] == 1 and a_t["history"][0]["status"] == "finished"
        assert a_t["history"][0]["server_secret"]  # revealed, and still revealed
        assert a_t["next_round_ms"] > 10_000 - 1_000 * (time.monotonic() - killed_at) - 3_000
        finals = await asyncio.gather(play_tournament(alice, 0), play_tournament(bob, 2))
        assert finals[0]["status"] == "finished" and len(finals[0]["history"]) == 2

        stored = await asyncio.to_thread(get, live, f"/api/tournaments/{tid}")
        assert stored["status"] == "finished" and stored["commitment"] == committed
        check_round_secrets(stored)  # the same chain, from the commitment published at creation
        assert len(stored["rounds"]) == 2
        for r in stored["rounds"]:
            assert len(r["tables"]) == 2
            for table in r["tables"]:
                assert table["status"] == "finished"
                (deal,) = table["deals"]
                assert deal["status"] == "finished" and set(deal["results"]) == set(
                    table["players"]
                )
        pairs = [frozenset(t["players"]) for r in stored["rounds"] for t in r["tables"]]
        assert len(set(pairs)) == 4  # nobody met twice
        table = stored["standings"]
        assert len(table) == 4 and sum(s["score"] for s in table) == 4.0  # a point a game
        assert table == finals[0]["standings"]
        # Every acknowledged placement of round 1 is in the stored boards.
        for room, who, acked in ((a_room, ids[0], a_acked), (b_room, ids[1], b_acked)):
            (played,) = [t for t in stored["rounds"][0]["tables"] if t["room_id"] == room]
            match = await asyncio.to_thread(
                get, live, f"/api/matches/{played['deals'][0]['match_id']}"
            )
            board = next(b for b in match["boards"] if b["player"]["id"] == who)
            cells = {p["turn"]: p["cell"] for p in board["placements"]}
            assert len(cells) == 16 and {turn: cells[turn] for turn in acked} == acked
        for c in (alice, bob):
            await c.close()


def stored_snapshot(db: Path, tid: str) -> tuple[str, int] | None:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        row = conn.execute(
            "SELECT state, saved_ms FROM tournament_snapshots WHERE tournament_id = ?", (tid,)
        ).fetchone()
    return None if row is None else (row[0], row[1])


async def test_results_newer_than_the_stored_snapshot_are_read_from_the_tables(
    tmp_path: Path,
) -> None:
    """While only table results come in, a snapshot waits up to a second: a restart
    counts what came after it from the tables' stored series. Here the snapshot is
    made as stale as can be (the one from the start of round 1, put back after the
    round was played), and round 1 must still count in full."""
    db = tmp_path / "stale.db"
    with server_process(db) as (process, live):
        alice, bob, created = await start_swiss(live, "stale cup")
        tid = created["id"]
        await place_cards(alice, 1, 0)  # round 1's tables are open
        stale = stored_snapshot(db, tid)
        assert stale is not None and '"rounds": [{' in stale[0]
        assert json.loads(stale[0])["rounds"][0]["tables"][0]["status"] == "playing"
        over = await asyncio.gather(until_round_over(alice, 1, 0), until_round_over(bob, 1, 2))
        tokens = (alice.token, bob.token)
        await kill(process, alice, bob)

    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.execute(
            "UPDATE tournament_snapshots SET state = ?, saved_ms = ? WHERE tournament_id = ?",
            (*stale, tid),
        )

    with server_process(db) as (process, live):
        (alice, t), (bob, _) = await back(live, tokens[0]), await back(live, tokens[1])
        assert t["history"][0]["status"] == "finished"
        assert t["standings"] == over[0]["standings"]
        assert t["history"][0] == over[0]["history"][0]  # its secret revealed, as before
        finals = await asyncio.gather(play_tournament(alice, 0), play_tournament(bob, 2))
        assert finals[0]["status"] == "finished" and len(finals[0]["history"]) == 2
        stored = await asyncio.to_thread(get, live, f"/api/tournaments/{tid}")
        assert all(table["status"] == "finished" for r in stored["rounds"] for table in r["tables"])
        for c in (alice, bob):
            await c.close()
