"""A request's ``ref`` belongs to the connection that sent it. A player with two tabs
(each counting its refs from 1, as the web client does) gets every message on both,
the ref on the asking tab's alone: the other tab never takes it for its own answer.
(The same on a cluster, the command run by another node: tests/server/cluster.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.server.live import Client, Live, running_server, signed_in

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def live(tmp_path: Path):  # type: ignore[no-untyped-def]
    async with running_server(tmp_path / "test.db") as server:
        yield server


async def tabs(live: Live, name: str) -> tuple[Client, Client]:
    """Two connections of one player."""
    first = await signed_in(live, name)
    second = await Client.connect(live)
    assert (await second.hello(token=first.token))["player"]["id"] == first.id
    return first, second


async def both(asking: Client, other: Client, *kinds: str) -> tuple[dict[str, Any], ...]:
    """The next message of ``kinds`` on each tab."""
    return await asking.until(*kinds), await other.until(*kinds)


async def test_the_answer_carries_its_ref_to_the_asking_tab_alone(live: Live) -> None:
    one, two = await tabs(live, "ada")
    await one.send(type="quickplay", pace="race", deals=1, contribution="x", ref="w1")
    mine, other = await both(one, two, "queue")
    assert mine["state"] == other["state"] == "waiting"
    assert mine["ref"] == "w1" and other.get("ref") is None, (mine, other)

    # The other tab, whose own count is also at w1, cancels: the same the other way.
    await two.send(type="cancel_quickplay", ref="w1")
    mine, other = await both(two, one, "queue")
    assert mine["state"] == other["state"] == "cancelled"
    assert mine["ref"] == "w1" and other.get("ref") is None, (mine, other)

    # A room's answers too: the room created, a card placed.
    await one.send(type="create_room", name="solo", seats=1, card_clock_ms=60_000, ref="w2")
    mine, other = await both(one, two, "room_state")
    assert mine["room"] == other["room"]
    assert mine["ref"] == "w2" and other.get("ref") is None, (mine, other)
    room_id = mine["room"]["id"]
    await one.send(type="ready", room_id=room_id)
    card, _ = await both(one, two, "card")
    await two.send(type="place", room_id=room_id, turn=1, cell=card["legal"][0], ref="w9")
    mine, other = await both(two, one, "placed")
    assert mine["ref"] == "w9" and other.get("ref") is None, (mine, other)
    assert {k: v for k, v in mine.items() if k != "ref"} == {
        k: v for k, v in other.items() if k != "ref"
    }


async def test_a_single_connection_gets_its_ref_as_before(live: Live) -> None:
    ada = await signed_in(live, "ada")
    await ada.send(type="quickplay", pace="race", deals=1, contribution="x", ref="q")
    assert (await ada.until("queue"))["ref"] == "q"
