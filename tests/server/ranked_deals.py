"""Deals whose ranks the score alone does not explain, played over real sockets: a
race tie on points broken by the time used, and a resignation. Each returns the
live ``match_result`` its players were sent, for the replays to be held to; and
a resignation that leaves a client under test holding its card."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.server.live import Client, Live, duel, signed_in


async def place_all(client: Client, room_id: str, cards: int = 16) -> None:
    """Place ``cards`` cards, each on the first legal cell (the same board for everyone)."""
    for _ in range(cards):
        card = await client.until("card", timeout=20)
        await client.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])
        await client.until("placed")


async def race_tie(ada: Client, bo: Client) -> dict[str, Any]:
    """ada and bo build the same board in a race: level on points, ada first on time
    used (bo starts once she is done; a race's clock runs from the deal's start)."""
    room_id = await duel(ada, bo, pace="race", deal_clock_ms=600_000)
    await place_all(ada, room_id)
    await asyncio.sleep(0.05)  # bo's last card then comes later than hers, by this at least
    await place_all(bo, room_id)
    result = await bo.until("match_result", timeout=20)
    await ada.until("match_result", timeout=20)
    await leave(room_id, ada, bo)
    return result


async def resignation(ada: Client, bo: Client) -> dict[str, Any]:
    """ada resigns a lockstep deal holding her second card, bo holding his: the deal
    ends for him at once."""
    room_id = await duel(ada, bo, card_clock_ms=60_000)
    for c in (ada, bo):
        await place_all(c, room_id, 1)
    await ada.until("card")
    await ada.send(type="leave_room", room_id=room_id)
    await ada.until("left")
    result = await bo.until("match_result", timeout=20)
    await leave(room_id, bo)
    return result


async def host_then_resign(live: Live) -> tuple[Client, str]:
    """ada opens a lockstep room of two; returns her and its id."""
    ada = await signed_in(live, "ada")
    await ada.send(type="create_room", name="duel", seats=2, card_clock_ms=60_000)
    return ada, (await ada.until("room_state"))["room"]["id"]


async def resign_once_started(ada: Client, room_id: str) -> None:
    """Once bo has joined: ready, place card 1 and resign, bo still holding his."""
    while len((await ada.until("room", timeout=30))["room"]["players"]) < 2:
        pass
    await ada.send(type="ready", room_id=room_id)
    card = await ada.until("card", timeout=30)
    await ada.send(type="place", room_id=room_id, turn=1, cell=card["legal"][0])
    await ada.until("placed")
    await ada.send(type="leave_room", room_id=room_id)
    await ada.until("left")


async def leave(room_id: str, *clients: Client) -> None:
    """The deal is over: each leaves the room, free for the next."""
    for c in clients:
        await c.send(type="leave_room", room_id=room_id)
        await c.until("left")


async def pair(live: Live) -> tuple[Client, Client]:
    """ada and bo, signed in."""
    return await signed_in(live, "ada"), await signed_in(live, "bo")


def notes(result: dict[str, Any]) -> list[str]:
    """The sentences of a result's ranking notes, as the server wrote them."""
    return [note["text"] for note in result["ranking"]]
