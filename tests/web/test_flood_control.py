"""The browser on a real server whose frame bucket is tiny (8 frames, 2 a second):
when the server says it drops the page's frames (``rate_limited``, no ref), the
page says so in a readable line, sends nothing for a second, asks for a
``resync`` of the room and sends a dropped placement again only because that
snapshot shows its turn still waiting: the card is placed once, where the
player put it, and nothing the server had taken is sent again."""

from __future__ import annotations

import itertools
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.live import Live, running_server
from tests.web.conftest import (
    DESKTOP,
    PHONE,
    custom_game,
    new_room,
    place_one,
    shot,
    sign_in,
    store,
    wait_store,
)
from tests.web.wire import Wire

# Enough to sign in, open a room and place a card; a flood empties it, and it takes
# half a second to hold a frame again (a frame that follows the flood finds none).
RATE, BURST = 2.0, 8


@pytest.fixture
async def tight(tmp_path: Path) -> AsyncIterator[Live]:
    async with running_server(
        tmp_path / "tight.db", rate_per_second=RATE, rate_burst=BURST
    ) as server:
        yield server


# Empty the bucket (pings the page does not wait for), then place card 2 at once:
# the placement finds the bucket empty and is dropped, told or not. Forty pings, five
# times the burst: for the placement to find a frame again, a loaded server would
# have to take 16 s reading the flood (twelve let a slow read of 2 s through).
FLOOD_THEN_PLACE = """(cell) => {
  const FLOOD = 40;
  const conn = window.cribsquares.conn;
  for (let i = 0; i < FLOOD; i++) conn.send({ type: "ping" });
  document.querySelector(`button.cell[data-cell="${cell}"]`).click();
}"""

FLOOD_THEN_CREATE = """() => {
  const FLOOD = 40;
  const conn = window.cribsquares.conn;
  for (let i = 0; i < FLOOD; i++) conn.send({ type: "ping" });
  [...document.querySelectorAll("button")].find((b) => b.textContent === "Create the room").click();
}"""


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
async def test_a_dropped_placement_is_waited_for_resynced_and_placed_once(
    browser: Any, tight: Live, page_errors: Any, viewport: dict[str, int]
) -> None:
    wire = Wire()
    ada = await wire.open(browser, tight.http + "/", page_errors, viewport)
    await sign_in(ada, "ada")
    await new_room(ada, "tight", seats="1", card="120")
    await ada.get_by_role("button", name="Start").click()
    await place_one(ada, 1)
    await ada.wait_for_selector("#to-place-h:text-is('Card 2 of 16')")
    cell = await ada.get_attribute("button.cell.legal", "data-cell")
    await ada.evaluate(FLOOD_THEN_PLACE, cell)

    line = ada.locator("#toasts .toast.warn", has_text="Too many messages at once")
    await line.wait_for(timeout=5_000)
    # (2 s if a second drop was told already: see below)
    assert re.search(r"Waiting [12] s", await line.inner_text())
    await shot(ada, f"flood-{'phone' if viewport is PHONE else 'desktop'}-waiting")
    await wait_store(ada, "s.match && s.match.placements.some((p) => p.turn === 2)")
    # One line, however many drops were told: a later one replaces it ("Waiting 2 s").
    assert await line.count() == 1

    [socket] = wire.sockets
    sent = socket.sent
    places = [i for i, f in enumerate(sent) if f["type"] == "place" and f["turn"] == 2]
    # Dropped, then taken. On a busy machine the frames of the flood may reach the
    # server over more than a second: a second drop is then told (the server tells
    # one a second) and the placement may be dropped again; each time, it goes again
    # only after a resync.
    assert len(places) >= 2, [f["type"] for f in sent]
    assert all(sent[i]["cell"] == cell for i in places)
    for before, again in itertools.pairwise(places):
        between = [f["type"] for f in sent[before + 1 : again]]
        assert "resync" in between, between
    told = [at for at, m in socket.heard if m.get("code") == "rate_limited"]
    assert told and len(places) <= len(told) + 1, (told, places)
    for at in told:  # nothing sent while told to wait
        assert not any(at < t < at + 0.95 for t in socket.sent_at), "sent while told to wait"
    errors = [m for _, m in socket.heard if m["type"] == "error"]
    assert {m["code"] for m in errors} == {"rate_limited"}  # no already_placed, no past_turn
    assert all(m["ref"] is None for m in errors)
    assert [m["turn"] for _, m in socket.heard if m["type"] == "placed"] == [1, 2]
    placed = await store(ada, "s.match.placements.find((p) => p.turn === 2)")
    assert placed["cell"] == cell and not placed["auto"]
    assert "dropped" not in await ada.locator(".to-place").inner_text()  # no error shown
    await place_one(ada, 3)  # and play goes on
    await shot(ada, f"flood-{'phone' if viewport is PHONE else 'desktop'}-after")
    # Told again soon after (the first line still shown): one line, the latest wait.
    dropped = {"type": "error", "code": "rate_limited", "ref": None, "reason": "too many"}
    limited = "s.notices.filter((n) => n.topic === 'limited')"
    for _ in range(2):
        await ada.wait_for_function("() => !window.cribsquares.conn.quietTimer")
        told_before = await store(ada, f"{limited}.length")
        socket.tell(dropped)
        await wait_store(ada, f"{limited}.length > {told_before}", timeout=5_000)
        assert await line.count() == 1
        assert await line.inner_text() == await store(ada, f"{limited}.at(-1).text")
    assert page_errors.errors == []


async def test_a_dropped_request_is_sent_again_once_a_ping_shows_it_was_dropped(
    browser: Any, tight: Live, page_errors: Any
) -> None:
    """Not a placement: after the wait a ping goes first; the server answers a
    connection's frames in order, so a request still unanswered when the pong
    comes was dropped, and goes again under its ref; what was answered is not
    sent again."""
    wire = Wire()
    bo = await wire.open(browser, tight.http + "/", page_errors, DESKTOP)
    await sign_in(bo, "bo")
    await custom_game(bo)
    await bo.fill("#new-name", "once")
    await bo.evaluate(FLOOD_THEN_CREATE)
    await bo.wait_for_selector("text=Waiting for players", timeout=10_000)
    creates = wire.frames("create_room")
    assert len(creates) == 2 and creates[0]["ref"] == creates[1]["ref"], creates
    [socket] = wire.sockets
    types = [f["type"] for f in socket.sent]
    first = types.index("create_room")
    assert "ping" in types[first + 1 : types.index("create_room", first + 1)]
    assert [m["code"] for m in wire.messages("error")] == ["rate_limited"]
    rooms = await (await bo.request.get(tight.http + "/api/rooms")).json()
    assert [r["name"] for r in rooms["rooms"]] == ["once"]  # created once
    for kind in (
        "hello",
        "list_bots",
        "list_rooms",
        "list_online",
        "list_tournaments",
        "get_daily",
    ):
        assert types.count(kind) == 1, types  # answered before the flood: not again
    assert page_errors.errors == []
