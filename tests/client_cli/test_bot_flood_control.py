"""A bot faster than the server's frame bucket, on a real server on loopback.

The server drops a frame that finds the connection's token bucket empty and says
so, once a second, with a ``rate_limited`` error of no ref (docs/protocol.md,
*Limits*). The bot kit waits and sends the dropped request again, a placement
only once a fresh snapshot shows its turn still waiting: no card is lost to the
clock, none is sent again after the server took it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from client_cli.botkit import BotClient, Plan, load_chooser
from protocol.connection import ErrorMessage
from protocol.deals import Placed
from protocol.wire import ServerMessage
from tests.server.live import Live, running_server

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]

BUCKET = 4  # frames: a burst of 4, then 4 a second


@pytest.fixture
async def tight(tmp_path: Path) -> AsyncIterator[Live]:
    async with running_server(
        tmp_path / "tight.db", rate_per_second=float(BUCKET), rate_burst=BUCKET
    ) as server:
        yield server


async def test_a_bot_faster_than_the_bucket_loses_no_card_and_places_none_twice(
    tight: Live,
) -> None:
    bot = BotClient(tight.url, load_chooser("greedy"), name="fast bot", say=lambda _: None)
    heard: list[ServerMessage] = []
    sent: list[dict[str, Any]] = []
    listener, send_raw = bot.session.listener, bot.session.send_raw

    def hear(message: ServerMessage) -> None:
        heard.append(message)
        listener(message)

    async def send(data: dict[str, Any]) -> None:
        sent.append(dict(data))
        await send_raw(data)

    bot.session.listener = hear
    bot.session.send_raw = send  # type: ignore[method-assign]
    outcomes = await bot.run(Plan(seats=1, games=2, card_clock_ms=20_000))

    assert len(outcomes) == 2
    errors = [m for m in heard if isinstance(m, ErrorMessage)]
    assert any(e.code == "rate_limited" and e.ref is None for e in errors)  # frames were dropped
    # No already_placed, past_turn or any other refusal: nothing was sent again
    # that the server had taken.
    assert [e.code for e in errors if e.code != "rate_limited"] == []
    places = [(d["room_id"], d["turn"]) for d in sent if d["type"] == "place"]
    assert len(places) > len(set(places)) == 32  # some placements went twice: dropped once
    acknowledged = [(m.room_id, m.turn) for m in heard if isinstance(m, Placed)]
    assert sorted(acknowledged) == sorted(set(places))  # each turn taken exactly once
    async with aiohttp.ClientSession() as http:
        for outcome in outcomes:
            async with http.get(f"{tight.http}/api/matches/{outcome.match_id}") as response:
                [board] = (await response.json())["boards"]
            assert len(board["placements"]) == 16
            assert not any(p["auto"] for p in board["placements"])  # none left to the clock
