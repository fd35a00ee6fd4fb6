"""Listings paged, room updates batched, slow readers, and state that expires, over
real sockets against the real server."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import websockets

from server.limits import Quota
from server.room import ROOM_UPDATE_INTERVAL_MS
from server.shell.keys import HUB
from tests.server.live import (
    Client,
    Live,
    bury,
    connect_over,
    duel_with_a_non_reader,
    running_server,
    session_of,
    signed_in,
)

pytestmark = pytest.mark.timeout(90)

LOTS = Quota(1_000_000, 1)  # a quota nobody reaches, for the tests about something else


def get_json(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


async def drain(client: Client, quiet: float) -> None:
    """Read everything sent to ``client`` until nothing has come for ``quiet`` seconds."""
    while True:
        try:
            await client.recv(timeout=quiet)
        except TimeoutError:
            return


async def guest(live: Live) -> Client:
    client = await Client.connect(live)
    assert (await client.hello(guest=True))["type"] == "welcome"
    return client


# ----------------------------------------------------------------------
# Listings


async def test_rooms_are_listed_a_page_at_a_time(tmp_path: Path) -> None:
    async with running_server(tmp_path / "l.db") as live:
        hosts = [await guest(live) for _ in range(4)]
        made = []
        for n in range(7):
            host = hosts[n % 4]
            await host.send(type="create_room", name=f"room {n}")
            made.append((await host.until("room_state"))["room"]["id"])
        await hosts[0].send(type="create_room", name="hidden", visibility="private")
        await hosts[0].until("room_state")
        reader = hosts[0]
        seen, after, pages = [], None, 0
        while True:
            await reader.send(type="list_rooms", limit=3, after=after, ref=f"p{pages}")
            page = await reader.until("rooms")
            assert page["ref"] == f"p{pages}" and page["total"] == 7 and len(page["rooms"]) <= 3
            seen += [r["id"] for r in page["rooms"]]
            pages += 1
            after = page["next"]
            if after is None:
                break
        assert seen == made and pages == 3  # oldest first, the private one not listed
        await reader.send(type="list_rooms", after="nonsense", ref="bad")
        assert (await reader.error("bad_message"))["ref"] == "bad"
        await reader.send(type="list_rooms", limit=1000)
        await reader.error("bad_message")
        # The same pages over HTTP.
        status, first = await asyncio.to_thread(get_json, live.http + "/api/rooms?limit=5")
        assert status == 200 and [r["id"] for r in first["rooms"]] == made[:5]
        assert first["total"] == 7 and first["next"]
        url = f"{live.http}/api/rooms?limit=5&after={first['next']}"
        status, second = await asyncio.to_thread(get_json, url)
        assert [r["id"] for r in second["rooms"]] == made[5:] and second["next"] is None
        for bad in ("limit=0", "limit=x", "after=zzz"):
            status, body = await asyncio.to_thread(get_json, f"{live.http}/api/rooms?{bad}")
            assert status == 400 and body["error"]["code"] == "bad_request", bad
        # A room that starts stays listed (playing); one that is left by all is not.
        await hosts[1].send(type="leave_room", room_id=made[1])
        await hosts[1].until("left")
        await reader.send(type="list_rooms")
        listed = await reader.until("rooms")
        assert [r["id"] for r in listed["rooms"]] == [m for m in made if m != made[1]]
        for c in hosts:
            await c.close()


async def test_tournaments_are_listed_a_page_at_a_time(tmp_path: Path) -> None:
    async with running_server(tmp_path / "t.db", max_tournaments_per_address=0) as live:
        hosts = [await guest(live) for _ in range(3)]
        made = []
        for n in range(5):
            host = hosts[n % 3]
            await host.send(type="create_tournament", name=f"cup {n}")
            made.append((await host.until("tournament"))["tournament"]["id"])
            # Each its own millisecond: the database lists by (created_ms, id), and two
            # created in one millisecond would be ordered by their random ids.
            await asyncio.sleep(0.005)
        seen, after = [], None
        while True:
            await hosts[0].send(type="list_tournaments", limit=2, after=after)
            page = await hosts[0].until("tournaments")
            assert page["total"] == 5
            seen += [t["id"] for t in page["tournaments"]]
            after = page["next"]
            if after is None:
                break
        assert seen == made
        # Over HTTP, from the database: newest first.
        await asyncio.sleep(0.2)
        got, cursor = [], None
        while True:
            query = "limit=2" + (f"&after={cursor}" if cursor else "")
            status, page = await asyncio.to_thread(get_json, f"{live.http}/api/tournaments?{query}")
            assert status == 200
            got += [t["id"] for t in page["tournaments"]]
            cursor = page["next"]
            if cursor is None:
                break
        assert got == made[::-1]
        status, _ = await asyncio.to_thread(get_json, f"{live.http}/api/tournaments?after=x")
        assert status == 400
        for c in hosts:
            await c.close()


# ----------------------------------------------------------------------
# Fan-out


async def slow_reader(live: Live) -> tuple[Client, asyncio.Task[int]]:
    """bob, over a socket with a small receive buffer, reading a frame every 50 ms
    (a few KB/s of room updates at most); the task counts what it read."""
    bob = await connect_over(live, rcvbuf=4_096, max_queue=2)
    await bob.hello("bob")

    async def read() -> int:
        count = 0
        try:
            while True:
                await bob.ws.recv()
                count += 1
                await asyncio.sleep(0.05)
        except (asyncio.CancelledError, websockets.ConnectionClosed):
            return count

    return bob, asyncio.create_task(read())


async def toggle(live: Live, room_id: str, seconds: float) -> int:
    """One guest joining as a spectator and leaving, as fast as it can, for ``seconds``."""
    client = await guest(live)
    loop = asyncio.get_running_loop()
    end, frames = loop.time() + seconds, 0
    while loop.time() < end:
        await client.send(type="join_room", room_id=room_id, spectate=True)
        await client.until("room_state")
        await client.send(type="leave_room", room_id=room_id)
        await client.until("left")
        frames += 2
    await client.close()
    return frames


@pytest.mark.slow
async def test_spectators_toggling_do_not_knock_out_a_slow_player(tmp_path: Path) -> None:
    # The attack of the issue at full speed: quotas that would stop it are off.
    config: dict[str, Any] = {
        "joins_per_address": LOTS, "joins_per_account": LOTS, "new_guests_per_address": LOTS,
        "signins_per_address": LOTS, "rate_per_second": 1e6, "rate_burst": 1_000_000,
        "max_unsent_bytes": 65_536,
    }  # fmt: skip
    async with running_server(tmp_path / "f.db", **config) as live:
        alice = await signed_in(live, "alice")
        bob, reading = await slow_reader(live)
        await alice.send(type="create_room", name="watched", seats=2)
        room_id = (await alice.until("room_state"))["room"]["id"]
        await bob.send(type="join_room", room_id=room_id)
        alice.log.clear()
        seconds = 4.0
        frames = await asyncio.gather(*(toggle(live, room_id, seconds) for _ in range(16)))
        assert sum(frames) > 400  # hundreds of joins and leaves a second
        await drain(alice, 1.0)
        updates = [m for m in alice.log if m["type"] == "room"]
        # Batched: at most one every ROOM_UPDATE_INTERVAL_MS (and a few for bob's join).
        assert len(updates) <= seconds * 1000 / ROOM_UPDATE_INTERVAL_MS + 4, len(updates)
        assert updates[-1]["room"]["spectators"] == 0  # the latest state won
        assert not session_of(live, bob).closing  # not knocked out
        reading.cancel()
        await reading
        await bob.send(type="ready", room_id=room_id)
        await alice.send(type="ready", room_id=room_id)
        await bob.until("match_started", timeout=20)
        await bob.until("card", timeout=20)
        for c in (alice, bob):
            await c.close()


@pytest.mark.slow
async def test_a_reader_past_the_bound_drops_at_once_and_its_grace_period_runs(
    tmp_path: Path,
) -> None:
    config: dict[str, Any] = {
        "max_unsent_bytes": 65_536, "rate_per_second": 1e6, "rate_burst": 1_000_000,
        "grace_ms": 1_500,
    }  # fmt: skip
    async with running_server(tmp_path / "d.db", **config) as live:
        alice, bob, room_id = await duel_with_a_non_reader(live)
        card = await alice.until("card")
        loop = asyncio.get_running_loop()
        await bury(live, bob, room_id)
        dropped_at = loop.time()
        # The room sees bob go at once ...
        while True:
            message = await alice.until("progress", "room", timeout=5)
            players = message.get("room", {}).get("players", [])
            seats = message.get("connected") or {p["player"]["id"]: p["connected"] for p in players}
            if seats.get(bob.id) is False:
                break
        assert loop.time() - dropped_at < 1.0
        # ... and its grace period runs: then the server plays bob's cards, so alice's
        # placement completes the turn long before the 30 s card clock.
        await alice.send(type="place", room_id=room_id, turn=1, cell=card["legal"][0])
        nxt = await alice.until("card", timeout=10)
        assert nxt["turn"] == 2
        assert loop.time() - dropped_at < 1.5 + 2.0
        await alice.close()


# ----------------------------------------------------------------------
# Expiry, registered players only


async def test_a_room_waiting_too_long_is_closed(tmp_path: Path) -> None:
    async with running_server(tmp_path / "e.db", waiting_room_ttl_ms=600) as live:
        alice = await guest(live)
        await alice.send(type="create_room", name="nobody comes")
        room_id = (await alice.until("room_state"))["room"]["id"]
        watcher = await guest(live)
        await watcher.send(type="join_room", room_id=room_id, spectate=True)
        await watcher.until("room_state")
        for c in (alice, watcher):
            assert (await c.until("left", timeout=5))["room_id"] == room_id
        await alice.send(type="list_rooms")
        assert (await alice.until("rooms"))["rooms"] == []
        assert room_id not in live.app[HUB].lobby.rooms
        await alice.send(type="create_room", name="again")  # no longer held against her
        assert (await alice.until("room_state", "error"))["type"] == "room_state"
        for c in (alice, watcher):
            await c.close()


async def test_a_tournament_never_started_is_cancelled_and_not_restored(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    async with running_server(db, registration_ttl_ms=600) as live:
        host = await guest(live)
        await host.send(type="create_tournament", name="forgotten")
        tid = (await host.until("tournament"))["tournament"]["id"]
        await host.send(type="create_tournament", name="scheduled", start_in_ms=3_600_000)
        scheduled = (await host.until("tournament"))["tournament"]["id"]
        while True:
            update = (await host.until("tournament", timeout=5))["tournament"]
            if update["id"] == tid and update["status"] == "cancelled":
                break
        await host.close()
    async with running_server(db, registration_ttl_ms=600) as live:
        directors = live.app[HUB].lobby.tournaments.directors
        assert tid not in directors and scheduled in directors  # only the scheduled one


async def test_a_registered_only_tournament_refuses_guests(tmp_path: Path) -> None:
    async with running_server(tmp_path / "o.db") as live:
        host = await signed_in(live, "host")
        await host.send(type="create_tournament", name="members", registered_only=True)
        info = (await host.until("tournament"))["tournament"]
        assert info["registered_only"] is True
        visitor = await guest(live)
        await visitor.send(type="join_tournament", tournament_id=info["id"], ref="g")
        refused = await visitor.error("registered_only")
        assert refused["ref"] == "g"
        member = await signed_in(live, "member")
        await member.send(type="join_tournament", tournament_id=info["id"])
        joined = (await member.until("tournament"))["tournament"]
        assert [e["player"]["name"] for e in joined["entrants"]] == ["member"]
        await visitor.send(type="list_tournaments")
        listed = (await visitor.until("tournaments"))["tournaments"]
        assert listed[0]["registered_only"] is True
        for c in (host, visitor, member):
            await c.close()


@pytest.mark.slow
async def test_rooms_never_played_and_tournaments_never_started_are_forgotten(
    tmp_path: Path,
) -> None:
    import sqlite3

    db = tmp_path / "p.db"
    config: dict[str, Any] = {
        "waiting_room_ttl_ms": 300, "registration_ttl_ms": 300, "prune_after_ms": 600,
        "prune_every_s": 0.2,
    }  # fmt: skip
    async with running_server(db, **config) as live:
        alice = await signed_in(live, "alice")
        await alice.send(type="create_room", name="nobody comes")
        waiting = (await alice.until("room_state"))["room"]["id"]
        await alice.send(type="create_room", name="solo", seats=1)
        played = (await alice.until("room_state"))["room"]["id"]
        await alice.send(type="ready", room_id=played)
        result = await alice.play_to_end(played)
        await alice.send(type="create_tournament", name="never")
        forgotten = (await alice.until("tournament"))["tournament"]["id"]
        await alice.until("left", timeout=5)  # the waiting room closed
        deadline = asyncio.get_running_loop().time() + 10
        while asyncio.get_running_loop().time() < deadline:
            with sqlite3.connect(db) as conn:
                rooms = {r for (r,) in conn.execute("SELECT id FROM rooms")}
                tournaments = {t for (t,) in conn.execute("SELECT id FROM tournaments")}
            if waiting not in rooms and forgotten not in tournaments:
                break
            await asyncio.sleep(0.1)
        assert rooms == {played} and forgotten not in tournaments
        status, match = await asyncio.to_thread(
            get_json, f"{live.http}/api/matches/{result['match_id']}"
        )
        assert status == 200 and len(match["boards"]) == 1  # what was played stays
        await alice.close()
