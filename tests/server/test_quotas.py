"""Quotas over real sockets: what one remote address or one account may do how
often, and hold open; refusals are `rate_limited` / `limit_reached` on the
WebSocket and 429 over HTTP, each with a reason. Other addresses (127.0.0.x)
have quotas of their own."""

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
from server.shell.keys import HUB
from tests.server.live import Client, Live, connect_over, read_until_refused, running_server

pytestmark = pytest.mark.timeout(60)


async def connect_from(live: Live, source: str = "127.0.0.1") -> Client:
    """A connection whose remote address, as the server sees it, is ``source``."""
    return await connect_over(live, source=source)


async def guest_from(live: Live, source: str = "127.0.0.1") -> tuple[Client, dict[str, Any]]:
    client = await connect_from(live, source)
    return client, await client.hello(guest=True)


async def test_new_guests_per_address_are_limited(tmp_path: Path) -> None:
    async with running_server(tmp_path / "g.db", new_guests_per_address=Quota(3, 3600)) as live:
        clients = []
        for _ in range(3):
            client, welcome = await guest_from(live)
            assert welcome["type"] == "welcome"
            clients.append(client)
        client, refused = await guest_from(live)
        assert refused["type"] == "error" and refused["code"] == "rate_limited", refused
        assert "too many new guests from your address: at most 3/h" in refused["reason"]
        # The connection goes on, and a guest comes back on it with its token (a
        # sign-in, not a new guest) ...
        assert (await client.hello(token=clients[0].token))["type"] == "welcome"
        back = client
        # ... and another address has its own quota.
        other, welcome = await guest_from(live, "127.0.0.2")
        assert welcome["type"] == "welcome"
        for c in (*clients, client, back, other):
            await c.close()


async def test_sign_ins_per_account_are_limited(tmp_path: Path) -> None:
    async with running_server(tmp_path / "s.db", signins_per_account=Quota(1, 60)) as live:
        first, _ = await guest_from(live)
        again = [await connect_from(live) for _ in range(2)]
        assert (await again[0].hello(token=first.token))["type"] == "welcome"
        refused = await again[1].hello(token=first.token)
        assert refused["code"] == "rate_limited" and "from you" in refused["reason"]
        for c in (first, *again):
            await c.close()


async def test_rooms_created_per_account_and_held_per_address_are_limited(tmp_path: Path) -> None:
    config: dict[str, Any] = {
        "rooms_per_account": Quota(3, 3600),
        "max_waiting_rooms_per_address": 4,
    }
    async with running_server(tmp_path / "r.db", **config) as live:
        alice, _ = await guest_from(live)
        for n in range(3):  # made and left again: created, not held
            await alice.send(type="create_room", name=f"r{n}")
            room_id = (await alice.until("room_state"))["room"]["id"]
            await alice.send(type="leave_room", room_id=room_id)
            await alice.until("left")
        await alice.send(type="create_room", name="one more", ref="c")
        refused = await alice.error("rate_limited")
        assert refused["ref"] == "c" and "too many rooms created from you" in refused["reason"]
        # Four other guests of the same address hold four waiting rooms: the address's limit.
        guests = [(await guest_from(live))[0] for _ in range(5)]
        for guest in guests[:4]:
            await guest.send(type="create_room", name="held")
            await guest.until("room_state")
        await guests[4].send(type="create_room", name="fifth")
        refused = await guests[4].error("limit_reached")
        assert "your address already has 4 rooms waiting" in refused["reason"]
        elsewhere, _ = await guest_from(live, "127.0.0.3")
        await elsewhere.send(type="create_room", name="elsewhere")
        assert (await elsewhere.until("room_state", "error"))["type"] == "room_state"
        for c in (alice, *guests, elsewhere):
            await c.close()


async def test_the_server_holds_a_bounded_number_of_waiting_rooms(tmp_path: Path) -> None:
    async with running_server(tmp_path / "w.db", max_waiting_rooms=2) as live:
        hosts = [(await guest_from(live, f"127.0.0.{n}"))[0] for n in (4, 5, 6)]
        for host in hosts[:2]:
            await host.send(type="create_room", name="waiting")
            await host.until("room_state")
        await hosts[2].send(type="create_room", name="third")
        assert "the server has 2 rooms waiting" in (await hosts[2].error("limit_reached"))["reason"]
        for c in hosts:
            await c.close()


async def test_joins_and_leaves_are_limited_and_the_room_goes_on(tmp_path: Path) -> None:
    async with running_server(tmp_path / "j.db", joins_per_account=Quota(6, 60)) as live:
        host, _ = await guest_from(live)
        await host.send(type="create_room", name="watched")
        room_id = (await host.until("room_state"))["room"]["id"]
        watcher, _ = await guest_from(live)
        for _ in range(3):
            await watcher.send(type="join_room", room_id=room_id, spectate=True)
            await watcher.until("room_state")
            await watcher.send(type="leave_room", room_id=room_id)
            await watcher.until("left")
        await watcher.send(type="join_room", room_id=room_id, spectate=True, ref="7th")
        refused = await watcher.error("rate_limited")
        assert refused["ref"] == "7th" and "joins and leaves" in refused["reason"]
        await host.still_alive()
        for c in (host, watcher):
            await c.close()


async def test_tournaments_created_per_address_are_limited(tmp_path: Path) -> None:
    async with running_server(tmp_path / "t.db", tournaments_per_address=Quota(2, 3600)) as live:
        hosts = [(await guest_from(live))[0] for _ in range(3)]
        for host in hosts[:2]:
            await host.send(type="create_tournament", name="cup")
            await host.until("tournament")
        await hosts[2].send(type="create_tournament", name="cup")
        assert "tournaments created" in (await hosts[2].error("rate_limited"))["reason"]
        for c in hosts:
            await c.close()


def fetch(url: str) -> tuple[int, dict[str, Any], dict[str, str]]:
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return reply.status, json.loads(reply.read()), dict(reply.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), dict(exc.headers)


async def test_http_requests_per_address_are_limited(tmp_path: Path) -> None:
    async with running_server(tmp_path / "h.db", http_per_address=Quota(5, 60)) as live:
        for _ in range(5):
            status, _, _ = await asyncio.to_thread(fetch, live.http + "/api/rooms")
            assert status == 200
        status, body, headers = await asyncio.to_thread(fetch, live.http + "/healthz")
        assert status == 429 and body["error"]["code"] == "rate_limited"
        assert "HTTP requests" in body["error"]["reason"] and int(headers["Retry-After"]) >= 1
        with pytest.raises(websockets.InvalidStatus) as refused:  # the upgrade is a request
            await websockets.connect(live.url)
        assert refused.value.response.status_code == 429


@pytest.mark.slow
async def test_a_connection_that_never_says_hello_is_closed(tmp_path: Path) -> None:
    async with running_server(tmp_path / "n.db", hello_timeout_s=0.5) as live:
        silent = await connect_from(live)
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(silent.ws.recv(), 5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        talker, _ = await guest_from(live)
        await asyncio.sleep(0.8)
        await talker.still_alive()  # who said hello stays
        await talker.close()


async def test_caches_and_quota_books_are_bounded(tmp_path: Path) -> None:
    async with running_server(tmp_path / "c.db", player_cache_size=3, quota_keys=4) as live:
        hub = live.app[HUB]
        clients = [(await guest_from(live, f"127.0.0.{10 + n}"))[0] for n in range(8)]
        assert len(hub._players) <= 3
        assert hub.quotas.keys() <= 4 * 7  # at most quota_keys per book
        back = await connect_from(live)
        # The first guest fell out of the cache long ago: its token still works.
        assert (await back.hello(token=clients[0].token))["type"] == "welcome"
        for c in (*clients, back):
            await c.close()


async def test_get_tournament_answers_the_asker_alone_and_is_paid_for_by_size(
    tmp_path: Path,
) -> None:
    budget = Quota(4_000, 60)  # bytes a minute: a few answers of a small tournament
    async with running_server(tmp_path / "r.db", read_bytes_per_address=budget,
                              read_bytes_per_account=budget) as live:  # fmt: skip
        host, _ = await guest_from(live)
        await host.send(type="create_tournament", name="cup", ref="made")
        tid = (await host.until("tournament"))["tournament"]["id"]
        other = await connect_from(live)  # the same account on a second connection
        assert (await other.hello(token=host.token))["type"] == "welcome"
        # Its sign-in's snapshot goes to it alone (the first connection has the state).
        assert (await other.until("tournament"))["tournament"]["id"] == tid
        await host.still_alive()
        assert [m["ref"] for m in host.log if m["type"] == "tournament"] == ["made"]
        answers, reply = await read_until_refused(host, tid)
        assert "too many bytes read from your address: at most 4000/min" in reply["reason"]
        assert answers >= 1
        # The other connection was sent none of them (a ping's pong comes first) ...
        await other.still_alive()
        assert not [m for m in other.log if (m.get("ref") or "").startswith("g")], other.log
        # ... and another address and account have a budget of their own.
        elsewhere, _ = await guest_from(live, "127.0.0.2")
        await elsewhere.send(type="get_tournament", tournament_id=tid, ref="e")
        assert (await elsewhere.until("tournament", "error"))["type"] == "tournament"
        for c in (host, other, elsewhere):
            await c.close()
