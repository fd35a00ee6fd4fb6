"""Limits and security over real sockets: origins, connections per address, rooms per
player, slow readers, host-only commands, stored tokens and hidden information."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import websockets
from websockets.exceptions import InvalidStatus

from server.config import ServerConfig
from server.shell.keys import HUB
from server.shell.origins import client_address, origin_allowed, own_origins
from tests.server.live import (
    Client,
    Live,
    bury,
    duel_with_a_non_reader,
    running_server,
    signed_in,
    two_player_room,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


@pytest.fixture
async def live(tmp_path: Path):  # type: ignore[no-untyped-def]
    async with running_server(tmp_path / "test.db") as server:
        yield server


# ----------------------------------------------------------------------
# Origins


def test_origin_rule() -> None:
    loopback = own_origins(ServerConfig(host="127.0.0.1"), 8765)
    assert origin_allowed(None, loopback)  # not a browser
    for page in ("http://127.0.0.1:8765", "http://LOCALHOST:8765", "http://[::1]:8765"):
        assert origin_allowed(page, loopback), page
    for page in ("http://127.0.0.1:9999", "https://127.0.0.1:8765", "null", "", "http://x:y"):
        assert not origin_allowed(page, loopback), page
    # Whatever name a request arrives by: a rebinding page sends its own Host to match.
    assert not origin_allowed("http://rebind.example:8765", loopback)
    public = own_origins(
        ServerConfig(host="0.0.0.0", public_urls=("https://play.example.org/",),
                     allowed_origins=("https://friends.example",)),
        8765,
    )  # fmt: skip
    for page in ("https://play.example.org", "https://play.example.org:443",
                 "https://friends.example", "http://localhost:8765"):  # fmt: skip
        assert origin_allowed(page, public), page
    for page in (
        "http://play.example.org",
        "https://play.example.org:8443",
        "https://evil.example",
    ):
        assert not origin_allowed(page, public), page
    assert origin_allowed("wss://play.example.org", public)  # ws(s) URLs are read as http(s)


async def test_browser_pages_from_foreign_origins_are_refused(tmp_path: Path) -> None:
    async with running_server(tmp_path / "o.db", allowed_origins=("https://play.example",)) as live:
        with pytest.raises(InvalidStatus) as refused:
            await websockets.connect(live.url, origin="https://evil.example")  # type: ignore[arg-type]
        assert refused.value.response.status_code == 403
        assert b"not allowed" in refused.value.response.body
        # DNS rebinding: a page on the attacker's name, resolved to this server. The
        # browser sends that name as Host and as Origin; the server trusts neither.
        port = live.url.split(":")[2].split("/")[0]
        async with aiohttp.ClientSession() as http:
            for name in ("rebind.example", "127.0.0.1.rebind.example"):
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await http.ws_connect(
                        live.url, origin=f"http://{name}:{port}", headers={"Host": f"{name}:{port}"}
                    )
                assert refused.value.status == 403
        for origin in (None, live.http, "https://play.example"):  # no Origin: not a browser
            client = Client(await websockets.connect(live.url, origin=origin))  # type: ignore[arg-type]
            assert (await client.hello(guest=True))["type"] == "welcome"
            await client.close()


# ----------------------------------------------------------------------
# Connections per address, rooms per player


def test_forwarded_addresses_count_only_through_a_trusted_proxy() -> None:
    header = {"X-Forwarded-For": "6.6.6.6, 203.0.113.9"}  # the client wrote the first
    assert client_address("10.0.0.5", header, ("10.0.0.5",)) == "203.0.113.9"
    assert client_address("198.51.100.7", header, ("10.0.0.5",)) == "198.51.100.7"
    assert client_address("10.0.0.5", {}, ("10.0.0.5",)) == "10.0.0.5"
    assert client_address(None, header, ()) == "?"


async def test_behind_a_trusted_proxy_each_client_address_has_its_own_limit(
    tmp_path: Path,
) -> None:
    async with running_server(
        tmp_path / "p.db", max_connections_per_address=2, trusted_proxies=("127.0.0.1",)
    ) as live:

        async def via(client: str) -> websockets.ClientConnection:
            return await websockets.connect(
                live.url, additional_headers={"X-Forwarded-For": f"6.6.6.6, {client}"}
            )

        opened = [await via("203.0.113.1"), await via("203.0.113.1"), await via("203.0.113.2")]
        with pytest.raises(InvalidStatus) as refused:
            await via("203.0.113.1")
        assert refused.value.response.status_code == 429
        assert dict(live.app[HUB].by_address) == {"203.0.113.1": 2, "203.0.113.2": 1}
        for ws in opened:
            await ws.close()


async def test_connections_per_address_are_limited(tmp_path: Path) -> None:
    async with running_server(tmp_path / "c.db", max_connections_per_address=3) as live:
        clients = [await signed_in(live, f"g{n}", guest=True) for n in range(3)]
        with pytest.raises(InvalidStatus) as refused:
            await websockets.connect(live.url)
        assert refused.value.response.status_code == 429
        assert b"at most 3 connections" in refused.value.response.body
        await clients[0].still_alive()
        await clients.pop().close()
        for _ in range(100):  # the server notices the close a moment later
            if sum(live.app[HUB].by_address.values()) == 2:
                break
            await asyncio.sleep(0.01)
        again = await signed_in(live, "g4", guest=True)
        await again.still_alive()
        for c in [*clients, again]:
            await c.close()


async def test_rooms_open_per_player_are_limited(tmp_path: Path) -> None:
    async with running_server(tmp_path / "r.db", max_open_rooms_per_player=2) as live:
        solo = await signed_in(live, "solo")
        for n in range(2):  # solo rooms start at once: playing, not waiting
            await solo.send(type="create_room", name=f"solo {n}", seats=1)
            room_id = (await solo.until("room_state"))["room"]["id"]
            await solo.send(type="ready", room_id=room_id)
            card = await solo.until("card")
        await solo.send(type="create_room", name="one too many", seats=1, ref="c3")
        error = await solo.error("limit_reached")
        assert error["ref"] == "c3" and "2 rooms" in error["reason"]
        await solo.send(type="place", room_id=room_id, turn=1, cell=card["legal"][0])
        await solo.play_to_end(room_id)  # a finished room no longer counts
        await solo.send(type="create_room", name="again", seats=1)
        assert (await solo.until("room_state", "error"))["type"] == "room_state"


# ----------------------------------------------------------------------
# A client that does not read


async def test_a_client_that_stops_reading_stalls_neither_its_room_nor_the_server(
    live: Live,
) -> None:
    # Over loopback the kernel's buffers take this match's few kilobytes: the
    # next test makes a client pass the unread limit.
    alice, bob, room_id = await two_player_room(live, pace="race")
    # bob places his whole deal blind (reading order is always legal) and never
    # reads another frame.
    for turn, cell in enumerate((f"{c}{r}" for r in "1234" for c in "abcd"), start=1):
        await bob.send(type="place", room_id=room_id, turn=turn, cell=cell)
    loop = asyncio.get_running_loop()
    started = loop.time()
    result = await alice.play_to_end(room_id)
    assert loop.time() - started < 5
    boards = {b["player"]["name"]: b for b in result["boards"]}
    assert [p["cell"] for p in boards["bob"]["placements"]][:4] == ["a1", "b1", "c1", "d1"]
    assert not any(p["auto"] for p in boards["bob"]["placements"])
    newcomer = await signed_in(live, "carol")
    await newcomer.still_alive()


async def test_a_client_too_far_behind_is_disconnected_and_its_room_plays_on(
    tmp_path: Path,
) -> None:
    config = {"max_unsent_bytes": 65_536, "rate_per_second": 1e6, "rate_burst": 1_000_000}
    async with running_server(tmp_path / "s.db", **config) as live:
        alice, bob, room_id = await duel_with_a_non_reader(live, pace="race")
        for turn, cell in enumerate((f"{c}{r}" for r in "1234" for c in "abcd"), start=1):
            await bob.send(type="place", room_id=room_id, turn=turn, cell=cell)
        await bury(live, bob, room_id)

        result = await asyncio.wait_for(alice.play_to_end(room_id), 5)
        bobs = next(b for b in result["boards"] if b["player"]["name"] == "bob")
        assert [p["cell"][1] for p in bobs["placements"]] == list("1111222233334444")
        await alice.still_alive()
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await bob.ws.recv()
        if closed.value.rcvd is not None:  # the close frame may be stuck behind the backlog
            assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (1008, "too slow")


# ----------------------------------------------------------------------
# Tokens, host-only commands


async def test_tokens_are_random_and_only_their_hashes_are_stored(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    async with running_server(db) as live:
        players = [await signed_in(live, name) for name in ("alice", "bob")]
        guest = await Client.connect(live)
        await guest.hello(guest=True)
        players.append(guest)
        tokens = [p.token for p in players]
        assert all(t is not None and len(t) >= 43 for t in tokens)  # 32 random bytes
        assert len(set(tokens)) == 3
    with sqlite3.connect(db) as conn:
        hashes = {h for (h,) in conn.execute("SELECT token_hash FROM players")}
        dump = "\n".join(conn.iterdump())
    assert hashes == {hashlib.sha256(t.encode()).hexdigest() for t in tokens if t}
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("t.db"))
    for token in tokens:
        assert token and token not in dump and token.encode() not in raw


async def test_only_the_creator_may_start_or_add_bots(live: Live) -> None:
    alice = await signed_in(live, "alice")
    bob = await signed_in(live, "bob")
    await alice.send(type="create_room", name="hosted", seats=3)
    room_id = (await alice.until("room_state"))["room"]["id"]
    await bob.send(type="join_room", room_id=room_id)
    await bob.until("room_state")
    await bob.send(type="start", room_id=room_id, ref="s")
    assert (await bob.error("not_creator"))["room_id"] == room_id
    await bob.send(type="add_bot", room_id=room_id, strategy="greedy", ref="b")
    assert (await bob.error("not_creator"))["ref"] == "b"
    await alice.send(type="add_bot", room_id=room_id, strategy="greedy")
    room = (await alice.until("room"))["room"]
    while len(room["players"]) < 3:  # bob's joining came first
        room = (await alice.until("room"))["room"]
    assert room["players"][2]["player"]["bot"] and room["status"] == "waiting"


# ----------------------------------------------------------------------
# Hidden information, as the wire carries it

CARD = re.compile(r"^[A2-9TJQK][SHDC]$")


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


async def test_before_the_starter_nobody_sees_another_board_or_a_future_card(
    live: Live,
) -> None:
    alice = await signed_in(live, "alice")
    bob = await signed_in(live, "bob")
    watcher = await signed_in(live, "wendy")
    await alice.send(type="create_room", name="watched", seats=2)
    room_id = (await alice.until("room_state"))["room"]["id"]
    await bob.send(type="join_room", room_id=room_id)
    await watcher.send(type="join_room", room_id=room_id, spectate=True)
    await watcher.until("room_state")
    await bob.until("room_state")
    for c in (alice, bob):
        await c.send(type="ready", room_id=room_id)
    results = await asyncio.gather(
        alice.play_to_end(room_id, 0), bob.play_to_end(room_id, 2), watcher.until("match_result")
    )
    assert results[0] == results[1] == results[2]
    boards = {b["player"]["name"]: b for b in results[0]["boards"]}

    deal = {p["turn"]: p["card"] for p in boards["alice"]["placements"]}  # the same for all
    for client, name in ((alice, "alice"), (bob, "bob"), (watcher, None)):
        own = {p["turn"]: p for p in boards[name]["placements"]} if name else {}
        dealt: set[str] = set()
        end = next(i for i, m in enumerate(client.log) if m["type"] == "match_result")
        for message in client.log[:end]:
            assert "seed" not in message and "server_secret" not in message, message
            if message["type"] == "card":
                assert message["card"] == own[message["turn"]]["card"]
                dealt.add(message["card"])
            if message["type"] == "placed":
                mine = own[message["turn"]]
                assert (message["cell"], message["card"]) == (mine["cell"], mine["card"])
            progress = message if message["type"] == "progress" else message.get("progress")
            shown = (progress or {}).get("dealt")
            if shown is not None:
                # the card every player holds: lockstep's card of the turn being played
                assert shown == {"turn": progress["turn"], "card": deal[progress["turn"]]}
                if name is None:
                    dealt.add(shown["card"])
            cards = {s for s in strings(message) if CARD.match(s)}
            assert cards <= dealt, (name, message)  # none of another's, none ahead
        # a player saw its own 16 cards; the spectator each card as it was dealt to all
        assert dealt == set(deal.values())
    assert json.dumps(watcher.log[:-1]).count('"cell"') == 0


# ----------------------------------------------------------------------
# Memory: a closed connection is freed at once


async def test_closed_connections_leave_no_reference_cycles(live: Live) -> None:
    """What a connection held on the server is freed by reference counting when it
    closes, not left for a full garbage collection (which pauses every player)."""
    import gc

    watched = {"RequestHandler", "Request", "WebSocketResponse", "WebSocketWriter", "Session"}

    async def visit(name: str) -> None:
        client = await signed_in(live, name)
        await client.send(type="create_room", name=f"{name}'s room", seats=2)
        await client.until("room_state")
        await client.close()

    await visit("warmup")
    await asyncio.sleep(0.2)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for i in range(8):
            await visit(f"visitor{i}")
        await asyncio.sleep(0.3)  # the server notices the closes
        gc.collect()
        left = sorted({type(o).__name__ for o in gc.garbage} & watched)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == []
