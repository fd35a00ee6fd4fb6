"""The browser follows ``node_hint`` (docs/protocol.md): a page on a real server
on loopback, whose WebSocket passes through Playwright's ``route_web_socket``,
is told that its room runs on node ``n1``, as a server of several nodes would
tell it. It waits for its placement's answer, closes with 1000, reconnects with
``?node=n1`` and its token, and plays on: no card lost, none sent twice, nothing
shown. Hints it must not follow (the node it asked for already, a bad id, a node
it just left, a fourth move within a minute) change nothing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.live import Live, running_server
from tests.web.conftest import DESKTOP, PHONE, new_room, place_one, shot, sign_in, store, wait_store
from tests.web.wire import Wire

RECORD_STATES = """() => {
  window.seenStates = [];
  window.cribsquares.conn.addEventListener("state", (e) => window.seenStates.push(e.detail));
  const banner = document.getElementById("banner");
  window.bannerShown = false;
  new MutationObserver(() => { if (!banner.hidden) window.bannerShown = true; })
    .observe(banner, { attributes: true, childList: true });
}"""


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[Live]:
    async with running_server(tmp_path / "db.sqlite") as server:
        yield server


async def seated_player(browser: Any, http: str, wire: Wire, name: str, viewport: dict[str, int],
                        page_errors: Any) -> Any:  # fmt: skip
    page = await wire.open(browser, http + "/", page_errors, viewport)
    await sign_in(page, name)
    await new_room(page, f"{name}'s room", seats="1", card="120")
    await page.get_by_role("button", name="Start").click()
    await page.evaluate(RECORD_STATES)
    return page


async def test_a_hint_during_a_pending_place_moves_the_page_after_it_and_loses_nothing(
    browser: Any, live: Live, page_errors: Any
) -> None:
    wire = Wire()
    ada = await seated_player(browser, live.http, wire, "ada", DESKTOP, page_errors)
    [first] = wire.sockets
    assert first.sent[0]["type"] == "hello" and first.sent[0]["follow_node"] is True
    assert "node" not in first.query
    await place_one(ada, 1)
    room_id = await store(ada, "s.room.id")

    # Card 2 is placed, but its frame is held on the way: the placement is unanswered.
    await ada.wait_for_selector("#to-place-h:text-is('Card 2 of 16')")
    wire.hold = lambda frame: frame.get("type") == "place"
    cell = await ada.get_attribute("button.cell.legal", "data-cell")
    await ada.locator(f'button.cell[data-cell="{cell}"]').click()
    await wire.wait(lambda: len(wire.held) == 1, "the held placement")
    first.tell({"type": "node_hint", "node": "n1", "room_id": room_id})
    await asyncio.sleep(0.8)
    assert len(wire.sockets) == 1 and first.closed is None  # deferred: a request is unanswered
    assert await ada.evaluate("() => window.cribsquares.conn.moveTo") == "n1"

    wire.release()  # the server answers the placement; then the page moves
    await wire.wait(lambda: len(wire.sockets) == 2, "the reconnection to n1")
    moved = wire.sockets[1]
    assert first.closed is not None and first.closed[0] == 1000
    assert moved.query["node"] == ["n1"]
    await wire.wait(lambda: bool(moved.sent), "the hello on the new socket")
    hello = moved.sent[0]
    token = await ada.evaluate("() => localStorage.getItem('cribsquares.token')")
    assert hello["type"] == "hello" and hello["token"] == token and hello["follow_node"] is True
    assert "name" not in hello
    await wait_store(ada, "window.cribsquares.conn.state === 'online' && s.match.turn === 3")

    placed_2 = [f for f in wire.frames("place") if f["turn"] == 2]
    assert len(placed_2) == 1 and placed_2[0]["cell"] == cell  # sent once, never again
    answers = [m for _, m in first.heard if m.get("ref") == placed_2[0]["ref"]]
    assert [m["type"] for m in answers] == ["placed"]  # answered before the page moved
    assert await store(ada, "s.match.placements.find((p) => p.turn === 2).cell") == cell
    await place_one(ada, 3)  # on the new connection
    assert [f["turn"] for f in moved.sent if f["type"] == "place"] == [3]
    states = await ada.evaluate("() => window.seenStates")
    assert "retrying" not in states and "moving" in states, states
    assert await ada.evaluate("() => window.bannerShown") is False  # no "Connection lost"
    toasts = await ada.locator("#toasts").inner_text()
    assert "Connection" not in toasts and "not connected" not in toasts, toasts
    await shot(ada, "node-hint-desktop-after-move")

    # A hint for the node the address names already: ignored.
    moved.tell({"type": "node_hint", "node": "n1", "room_id": room_id})
    await asyncio.sleep(0.6)
    assert len(wire.sockets) == 2 and moved.closed is None

    # A reload of the page asks for the node straight away (kept for this tab).
    await ada.reload()
    await wire.wait(lambda: len(wire.sockets) == 3, "the socket after the reload")
    assert wire.sockets[2].query["node"] == ["n1"]
    await wait_store(ada, "s.match && s.match.turn === 4")
    assert sorted(await store(ada, "s.match.placements.map((p) => p.turn)")) == [1, 2, 3]
    # The server took every card once: no refusal ever came.
    assert [m["code"] for m in wire.messages("error")] == []
    assert page_errors.errors == []


async def test_hints_that_would_bounce_the_page_are_not_followed(
    browser: Any, live: Live, page_errors: Any
) -> None:
    wire = Wire()
    bea = await seated_player(browser, live.http, wire, "bea", PHONE, page_errors)
    room_id = await store(bea, "s.room.id")
    await place_one(bea, 1)

    async def hint(node: str, *, moves: bool) -> None:
        before = len(wire.sockets)
        wire.sockets[-1].tell({"type": "node_hint", "node": node, "room_id": room_id})
        if moves:
            await wire.wait(lambda: len(wire.sockets) == before + 1, f"the move to {node}")
            assert wire.sockets[-1].query["node"] == [node]
            await wait_store(bea, "window.cribsquares.conn.state === 'online'")
        else:
            await asyncio.sleep(0.5)
            assert len(wire.sockets) == before, f"moved on a hint for {node!r}"

    await hint("../n1", moves=False)  # not a node id
    await hint("n" * 33, moves=False)  # too long for one
    await hint("n1", moves=True)
    await hint("n2", moves=True)
    await hint("n1", moves=False)  # left a moment ago: two nodes naming each other
    await hint("n3", moves=True)
    await hint("n4", moves=False)  # a fourth move within the minute
    assert [s.closed[0] if s.closed else None for s in wire.sockets] == [1000, 1000, 1000, None]
    await place_one(bea, 2)  # plays on where it is
    await shot(bea, "node-hint-phone-after-moves")
    states = await bea.evaluate("() => window.seenStates")
    assert "retrying" not in states, states
    assert await bea.evaluate("() => window.bannerShown") is False
    assert [m["code"] for m in wire.messages("error")] == []
    assert page_errors.errors == []


async def test_a_node_that_predates_follow_node_is_greeted_again_without_it(
    browser: Any, live: Live, page_errors: Any
) -> None:
    """While a cluster is upgraded node by node, the page may come from a new node
    and its socket land on an old one, which refuses the field as bad_message:
    the page says hello again without it and keeps its token."""
    wire = Wire()
    wire.hold = lambda frame: frame.get("type") == "hello" and "follow_node" in frame

    def refuse_held() -> None:
        for socket, message in wire.held:
            ref = json.loads(message)["ref"]
            reason = "hello: follow_node: Extra inputs are not permitted"
            socket.tell({"type": "error", "code": "bad_message", "reason": reason, "ref": ref})
        wire.held.clear()

    cy = await wire.open(browser, live.http + "/", page_errors, DESKTOP)
    await cy.fill("#signin-name", "cy")
    await cy.get_by_role("button", name="Sign in", exact=True).click()
    await wire.wait(lambda: len(wire.held) == 1, "the first hello")
    refuse_held()
    await cy.wait_for_selector("nav.top .me")
    hellos = wire.frames("hello")
    assert [("follow_node" in h, h.get("name")) for h in hellos] == [
        (True, "cy"),
        (False, "cy"),
    ]
    token = await cy.evaluate("() => localStorage.getItem('cribsquares.token')")
    assert token

    await cy.reload()  # signs in again by its token, to the same old node
    await wire.wait(lambda: len(wire.held) == 1, "the hello after the reload")
    refuse_held()
    await wait_store(cy, "window.cribsquares.conn.state === 'online' && s.me && s.me.name === 'cy'")
    again = wire.frames("hello")[2:]
    assert [("follow_node" in h, h.get("token") == token) for h in again] == [
        (True, True),
        (False, True),
    ]
    assert await cy.evaluate("() => localStorage.getItem('cribsquares.token')") == token
    assert page_errors.errors == []
