"""The third hostile-load round's attacks, tried again over real sockets on loopback:
cursors the server never gave, the API's headers, a private tournament over HTTP, and
names that look like another's or like a server bot's. Each is answered as the docs say.

(The flood of one account's bots is tests/server/test_bot_queue.py and
``python -m benchmarks.bench_bot_fairness``; the analysis worker held by one address is
tests/server/test_analysis_fairness.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
import pytest

from server.limits import Quota
from tests.server.live import Client, Live, running_server, signed_in

pytestmark = pytest.mark.timeout(120)

FORGED = ["99999999999999999999999999", "-1", "0", "1", "1.000000000000", "1.", ".", " 1", "١"]


async def get(http: aiohttp.ClientSession, live: Live, path: str) -> tuple[int, Any]:
    async with http.get(live.http + path) as reply:
        return reply.status, await reply.json()


async def test_cursors_the_server_never_gave_are_refused(tmp_path: Path) -> None:
    async with running_server(tmp_path / "db.sqlite") as live, aiohttp.ClientSession() as http:
        alice = await signed_in(live, "alice")
        for n in range(3):
            await alice.send(type="create_room", name=f"open {n}", seats=2)
            await alice.until("room_state")
            await alice.send(type="create_tournament", name=f"cup {n}", ref=f"t{n}")
            await alice.until("tournament")
        # the cursors it gives page on, over the socket and over HTTP alike
        await alice.send(type="list_rooms", limit=1, ref="p1")
        first = await alice.until("rooms")
        await alice.send(type="list_rooms", limit=1, after=first["next"], ref="p2")
        second = await alice.until("rooms")
        assert second["rooms"][0]["id"] != first["rooms"][0]["id"]
        status, page = await get(http, live, f"/api/rooms?limit=1&after={first['next']}")
        assert status == 200 and page["rooms"] == second["rooms"]
        status, tournaments = await get(http, live, "/api/tournaments?limit=1")
        assert status == 200
        status, _ = await get(http, live, f"/api/tournaments?limit=1&after={tournaments['next']}")
        assert status == 200
        # and the ones it never gave are refused, each with its reason
        mark = first["next"].split(".", 1)[1]
        for forged in [*FORGED, f"{int(first['next'].split('.')[0]) + 1}.{mark}"]:
            await alice.send(type="list_rooms", after=forged, ref="bad")
            refused = await alice.until("error")
            assert refused["code"] == "bad_message" and "not a cursor" in refused["reason"]
            await alice.send(type="list_tournaments", after=forged, ref="bad")
            assert (await alice.until("error"))["code"] == "bad_message"
            for path in ("/api/rooms", "/api/tournaments"):
                async with http.get(live.http + path, params={"after": forged}) as reply:
                    assert reply.status == 400, (path, forged)
                    assert "not a cursor" in (await reply.json())["error"]["reason"]
        await alice.close()


async def test_the_api_is_never_sniffed_nor_cached_and_the_assets_keep_their_headers(
    tmp_path: Path,
) -> None:
    async with (
        # the requests below and a few over them
        running_server(tmp_path / "db.sqlite", http_per_address=Quota(14, 60)) as live,
        aiohttp.ClientSession() as http,
    ):
        alice = await signed_in(live, "alice")
        paths = ["/healthz", "/api/rooms", "/api/leaderboard/lockstep", "/api/daily",
                 "/api/players/alice/matches", "/api/players/nobody/matches",
                 "/api/tournaments", "/api/tournaments/nope", "/api/rooms?limit=0",
                 "/no/such/path"]  # fmt: skip
        for path in paths:
            async with http.get(live.http + path) as reply:
                assert reply.headers["X-Content-Type-Options"] == "nosniff", path
                assert reply.headers["Cache-Control"] == "no-store", path
        async with http.get(live.http + "/") as page:
            assert page.headers["Cache-Control"] == "no-cache"
            html = await page.text()
        asset = html.split('src="', 1)[1].split('"', 1)[0]
        async with http.get(live.http + asset) as reply:
            assert reply.headers["Cache-Control"].endswith("immutable")
            assert reply.headers["X-Content-Type-Options"] == "nosniff"
        for _ in range(3):  # over the HTTP quota: 429, not cached either
            async with http.get(live.http + "/healthz") as reply:
                last = reply.status, reply.headers.get("Cache-Control")
        assert last == (429, "no-store")
        await alice.close()


async def test_a_private_tournament_is_not_found_over_http_as_over_the_socket(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path / "db.sqlite") as live, aiohttp.ClientSession() as http:
        alice = await signed_in(live, "alice")
        eve = await signed_in(live, "eve")
        await alice.send(type="create_tournament", name="friends", visibility="private")
        tid = (await alice.until("tournament"))["tournament"]["id"]
        await eve.send(type="get_tournament", tournament_id=tid)
        on_socket = await eve.until("error")
        for path in (f"/api/tournaments/{tid}", f"/api/tournaments/{tid}/export?format=csv"):
            status, answer = await get(http, live, path)
            assert (status, answer["error"]["code"]) == (404, on_socket["code"])
        status, answer = await get(http, live, "/api/tournaments/never-was")
        assert (status, answer["error"]["code"]) == (404, "tournament_not_found")
        await alice.close()
        await eve.close()


async def test_look_alike_names_by_separators_and_server_bot_names_do_not_register(
    tmp_path: Path,
) -> None:
    async with running_server(
        tmp_path / "db.sqlite", new_players_per_address=Quota(100, 60)
    ) as live:
        holders = [await signed_in(live, name) for name in ("John Smith", "Alice")]
        for name in ("John-Smith", "John_Smith", "John.Smith", "JohnSmith", "John Smith.",
                     "alice.", "Al ice", "A-l-i-c-e"):  # fmt: skip
            for extra in ({}, {"bot": True}, {"guest": True}):
                client = await Client.connect(live)
                reply = await client.hello(name, **extra)
                assert reply.get("code") == "name_taken", (name, extra, reply)
                await client.close()
        for name in ("level-3-bot-1", "greedy_bot_1", "greedy.bot.1", "expert bot",
                     "bot-level-3-1",
                     # the fourth round's: digits for letters, words run together
                     "level-3-b0t-1", "b0t-level-3-1", "Level-8-B0T-1", "expertbot1", "EXPERTBOT",
                     "greedybot1", "greedyb0t", "botexpert1", "masterbot"):  # fmt: skip
            client = await Client.connect(live)  # a person: none of them
            reply = await client.hello(name)
            assert reply.get("code") == "name_taken" and "kept" in reply["reason"], name
            await client.close()
        client = await Client.connect(live)  # a bot program may be an "expert bot"
        assert (await client.hello("expert bot", bot=True))["player"]["bot"] is True
        await client.close()
        # and the server's own bot, beside them, says it is one
        john = holders[0]
        await john.send(type="create_room", name="duel", seats=2)
        room_id = (await john.until("room_state"))["room"]["id"]
        await john.send(type="add_bot", room_id=room_id, strategy="level-3", ref="b")
        while (reply := await john.recv()).get("ref") != "b":
            pass
        (bot,) = [s["player"] for s in reply["room"]["players"] if s["player"]["id"] != john.id]
        assert bot == {"id": "bot-level-3-1", "name": "level-3 bot 1", "bot": True, "guest": False}
        for c in holders:
            await c.close()
