"""The session follows ``node_hint`` (docs/protocol.md, *node_hint*), over real
sockets: a real server on loopback behind a proxy that plays the cluster's part
(tests/client_cli/node_proxy.py).

A client that said ``"follow_node": true`` and is told the node of its room
closes with 1000, connects to the same address with ``node=NODE`` in the
query (its other parameters kept), signs in with its token and plays on; a
hint for the node its URL names is ignored, and so are the hints past three
moves in a minute. A server that predates the field is asked again without it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import aiohttp
import pytest

from client_cli.botkit import BotClient, Plan, load_chooser
from client_cli.nodes import MAX_MOVES
from client_cli.session import Session
from protocol.connection import Welcome
from protocol.deals import Place, Placed
from protocol.fields import Visibility
from protocol.rooms import CreateRoom, RoomState, StartMatch
from protocol.wire import ServerMessage
from server.shell.keys import HUB
from tests.client_cli.node_proxy import NodeProxy, node_proxy
from tests.server.live import Live, running_server

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[Live]:
    async with running_server(tmp_path / "server.db") as server:
        yield server


async def until(cond: Callable[[], bool], what: str, timeout: float = 10) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


class Player:
    """A session on the proxy, what it heard and the notes it was given."""

    def __init__(self, url: str, name: str) -> None:
        self.heard: list[ServerMessage] = []
        self.notes: list[str] = []
        self.room: str | None = None
        self.session = Session(
            url,
            name=name,
            listener=self.heard.append,
            status=lambda state, note: self.notes.append(note) if note else None,
            resume_room=lambda: self.room,
            backoff=(0.2, 0.5),
        )
        self.runner: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Player:
        self.runner = asyncio.create_task(self.session.run())
        await self.session.wait_signed_in(10)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.session.close()
        assert self.runner is not None
        await asyncio.wait_for(self.runner, 10)

    async def seat(self) -> str:
        state = await self.session.request(
            CreateRoom(name="solo", seats=1, visibility=Visibility.PRIVATE, card_clock_ms=60_000)
        )
        assert isinstance(state, RoomState)
        self.room = state.room.id
        return self.room


def signed_in_on(proxy: NodeProxy, player: Player, count: int) -> Callable[[], bool]:
    return lambda: len(proxy.connections) == count and player.session.connected


async def test_a_hint_moves_the_connection_to_the_node_and_play_goes_on(live: Live) -> None:
    async with (
        node_proxy(live.url) as proxy,
        Player(proxy.url + "?lang=fr&node=n0", "ada") as ada,
    ):
        room = await ada.seat()
        await until(signed_in_on(proxy, ada, 2), "the move")
        first, second = proxy.connections
        assert first.hinted == ["n1"] and first.close_code == 1000
        # The same address, node replaced, the other parameter kept.
        assert second.query == {"lang": "fr", "node": "n1"}
        [welcome] = [m for m in first.heard if m["type"] == "welcome"]
        [hello] = second.hellos()
        assert hello["token"] == welcome["token"] and hello["follow_node"] is True
        assert "name" not in hello
        # The room as it stands, on the new connection, as after any reconnection.
        await until(
            lambda: any(
                m["type"] == "room_state" and m["room"]["id"] == room for m in second.heard
            ),
            "the room's state",
        )
        assert ada.notes.count("moved to the room's server node n1") == 1
        assert not [n for n in ada.notes if "lost" in n or "closed" in n or "retrying" in n]
        # The address's sign-in is saved under the address given, not the node's URL.
        assert ada.session.url == proxy.url + "?lang=fr&node=n0"
        # The new node told the node the URL names: ignored, no third connection.
        await until(lambda: second.hinted == ["n1"], "the hint for the node named already")
        # Play goes on: the match starts and a card is placed on the new connection.
        await ada.session.request(StartMatch(room_id=room))
        await until(lambda: any(m.type == "card" for m in ada.heard), "the first card")
        card = next(m for m in ada.heard if m.type == "card")
        placed = await ada.session.request(Place(room_id=room, turn=1, cell=card.legal[0]))
        assert isinstance(placed, Placed)
        await asyncio.sleep(0.5)
        assert len(proxy.connections) == 2 and second.close_code is None


@pytest.mark.slow
async def test_hints_past_three_moves_a_minute_are_ignored(live: Live) -> None:
    # Every node tells of another: n1, n2, n3, n4...
    async with (
        node_proxy(live.url, node_for=lambda index, node: f"n{index + 1}") as proxy,
        Player(proxy.url, "bea") as bea,
    ):
        await bea.seat()
        await until(signed_in_on(proxy, bea, MAX_MOVES + 1), "the moves")
        await until(lambda: proxy.connections[-1].hinted == [f"n{MAX_MOVES + 1}"], "a last hint")
        await asyncio.sleep(1.0)
        assert len(proxy.connections) == MAX_MOVES + 1
        nodes = [c.query.get("node") for c in proxy.connections]
        assert nodes == [None] + [f"n{i}" for i in range(1, MAX_MOVES + 1)]
        assert all(c.close_code == 1000 for c in proxy.connections[:-1])
        assert proxy.connections[-1].close_code is None
        assert bea.session.connected


async def test_a_server_that_predates_follow_node_is_asked_again_without_it(live: Live) -> None:
    async with (
        node_proxy(live.url, refuse_follow_node=True) as proxy,
        Player(proxy.url, "cy") as cy,
    ):
        [first] = proxy.connections
        with_it, without = first.hellos()
        assert with_it["follow_node"] is True and "follow_node" not in without
        assert not [m for m in cy.heard if m.type == "error"]  # the refusal stays unseen
        assert isinstance(cy.heard[0], Welcome)
        await cy.seat()
        # The server drops the connection: the next hello does without the field at once.
        for session in list(live.app[HUB].sessions):
            await session.ws.close()
        await until(signed_in_on(proxy, cy, 2), "the reconnection")
        [hello] = proxy.connections[1].hellos()
        assert "follow_node" not in hello and hello["token"]
        assert first.hinted == [] and cy.session.url == proxy.url


async def test_a_bot_follows_a_hint_and_plays_its_match_through(live: Live) -> None:
    """The hint comes with the bot's seat; the bot says ready at once: that request
    waits for the new node's connection instead of failing."""
    async with node_proxy(live.url) as proxy:
        bot = BotClient(proxy.url, load_chooser("greedy"), name="hinted bot", say=lambda _: None)
        [outcome] = await bot.run(Plan(seats=1, games=1, card_clock_ms=20_000))
    nodes = [c.query.get("node") for c in proxy.connections]
    assert nodes == [None, "n1"] and proxy.connections[0].close_code == 1000
    said = [m for c in proxy.connections for m in c.said if m["type"] == "place"]
    assert len(said) == len({m["turn"] for m in said}) == 16  # each card sent once
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"{live.http}/api/matches/{outcome.match_id}") as response,
    ):
        [board] = (await response.json())["boards"]
    assert len(board["placements"]) == 16 and not any(p["auto"] for p in board["placements"])
    [hello] = proxy.connections[1].hellos()  # signed in again as the same player, a bot
    assert hello["token"] and hello["bot"] is True and outcome.players == 1


async def test_a_hint_whose_node_is_no_node_id_moves_nothing(live: Live) -> None:
    """A node id is 1-32 letters, digits, - or _: anything else (a query of its own,
    a path) is a message this client does not understand, and nothing moves."""
    async with (
        node_proxy(live.url, node_for=lambda index, node: "n1&admin=1") as proxy,
        Player(proxy.url, "dee") as dee,
    ):
        await dee.seat()
        await until(lambda: proxy.connections[0].hinted != [], "the hint")
        await until(lambda: any(m.type == "error" for m in dee.heard), "the note")
        await asyncio.sleep(0.5)
        assert len(proxy.connections) == 1 and dee.session.ws_url == proxy.url
        [note] = [m for m in dee.heard if m.type == "error"]
        assert note.code == "client_parse" and "node_hint" in note.reason
