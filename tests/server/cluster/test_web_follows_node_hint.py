"""The web client meets node_hint on a real cluster through real nginx: ada's page
opens a private room; bo's tab, which asks for the OTHER node (as a tab that moved
there before does: the node it keeps in sessionStorage), follows the invite link,
is hinted, reconnects through the address with ``?node=`` the room's node, and both
play the whole deal; bo's page ends connected to the room's node only."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest

from tests.server.cluster.nodes import cluster
from tests.server.cluster.test_node_hints import connected_at, owner_of
from tests.services.nginx import MISSING, nginx
from tests.services.redis import free_port
from tests.web.conftest import (
    DESKTOP,
    WHY_SKIP,
    browser,  # noqa: F401  (the fixture)
    new_room,
    place_one,
    sign_in,
    store,
    wait_store,
)

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(bool(MISSING), reason=MISSING or ""),
    pytest.mark.skipif(bool(WHY_SKIP), reason=WHY_SKIP or ""),
]

KEEP_NODE = """(node) => {
  if (!sessionStorage.getItem("cribsquares.node")) sessionStorage.setItem("cribsquares.node", node);
}"""


class Sockets:
    """The WebSockets a page opened (their URLs) and what the server told each."""

    def __init__(self, page: Any) -> None:
        self.urls: list[str] = []
        self.heard: list[list[dict[str, Any]]] = []
        page.on("websocket", self._opened)

    def _opened(self, ws: Any) -> None:
        heard: list[dict[str, Any]] = []
        self.urls.append(ws.url)
        self.heard.append(heard)

        def received(payload: str | bytes) -> None:
            parsed = json.loads(payload)
            heard.extend(parsed if isinstance(parsed, list) else [parsed])

        ws.on("framereceived", received)

    def nodes(self) -> list[str | None]:
        return [parse_qs(urlsplit(url).query).get("node", [None])[-1] for url in self.urls]

    def hints(self) -> list[list[dict[str, Any]]]:
        return [[m for m in heard if m.get("type") == "node_hint"] for heard in self.heard]


async def test_a_page_asking_for_the_wrong_node_follows_the_hint_and_plays_the_deal(
    browser: Any,  # noqa: F811
    tmp_path: Path,
    redis_url: str,
    cluster_db: str,
) -> None:
    with contextlib.ExitStack() as stack:
        # Pages come from the address: the nodes are told it (docs/operations.md).
        listen = free_port()
        public = ("--public-url", f"http://127.0.0.1:{listen}")
        nodes = stack.enter_context(cluster(cluster_db, redis_url, 2, tmp_path, public))
        ids = [n.id for n in nodes]
        address = stack.enter_context(nginx([n.port for n in nodes], ids, listen))
        ada_context = await browser.new_context(viewport=DESKTOP)
        ada = await ada_context.new_page()
        await ada.goto(address + "/")
        await sign_in(ada, "ada")
        await new_room(ada, "across nodes", private="yes")
        link = await ada.input_value("#room-link")
        room_id = await store(ada, "s.room.id")
        owner = await owner_of(redis_url, room_id)
        assert owner in ids, owner
        other = next(n for n in nodes if n.id != owner)

        bo_context = await browser.new_context(viewport=DESKTOP)
        await bo_context.add_init_script(f"({KEEP_NODE})({json.dumps(other.id)})")
        bo = await bo_context.new_page()
        sockets = Sockets(bo)
        await bo.goto(address + "/" + link.split("/", 3)[3])
        await sign_in(bo, "bo")
        await bo.wait_for_selector("text=Waiting for players")
        await wait_store(bo, "s.room && s.room.players.length === 2")
        for _ in range(100):
            if owner in sockets.nodes():
                break
            await bo.wait_for_timeout(100)
        # First on the other node, told the room's node there, then on the room's node.
        assert sockets.nodes()[0] == other.id
        assert sockets.hints()[0] == [{"type": "node_hint", "node": owner, "room_id": room_id}]
        assert sockets.nodes()[-1] == owner, sockets.urls
        assert await store(bo, "sessionStorage.getItem('cribsquares.node')") == owner
        bo_id = await store(bo, "s.me.id")
        assert await connected_at(redis_url, bo_id, nodes, {owner}) == {owner}
        healthz = f"http://127.0.0.1:{other.port}/healthz"
        async with aiohttp.ClientSession() as http, http.get(healthz) as response:
            assert (await response.json())["connections"] == 0

        for page in (ada, bo):
            await page.get_by_role("button", name="Ready").click()
        for turn in range(1, 17):
            await place_one(ada, turn)
            await place_one(bo, turn)
        for page in (ada, bo):
            await page.wait_for_selector(
                ".verify.ok .verdict:text-is('✔ deal verified')", timeout=20_000
            )
        results = [await store(page, "s.match.result") for page in (ada, bo)]
        assert results[0] == results[1]
        assert {b["player"]["name"] for b in results[0]["boards"]} == {"ada", "bo"}
        assert len(sockets.urls) == 2, sockets.urls  # one move, and no other reconnection
        assert sockets.hints()[-1] == []
        match_url = f"{address}/api/matches/{results[0]['match_id']}"
        async with aiohttp.ClientSession() as http, http.get(match_url) as response:
            stored = await response.json()
        assert {(b["player"]["name"], b["score"]) for b in stored["boards"]} == {
            (b["player"]["name"], b["score"]["total"]) for b in results[0]["boards"]
        }
        for context in (ada_context, bo_context):
            await context.close()
