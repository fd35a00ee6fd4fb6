"""One public address over two nodes: nginx with the documented configuration; two bots
play through it, the node running their room is killed mid-match, the bots reconnect
to the address (nginx sends them to the node that is up) and finish."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

import aiohttp
import pytest
import redis.asyncio as aioredis

from client_cli.botkit import BotClient, Plan, load_chooser
from engine.bots import BotView
from tests.server.cluster.nodes import cluster
from tests.services.nginx import MISSING, nginx

pytestmark = [pytest.mark.timeout(120), pytest.mark.skipif(bool(MISSING), reason=MISSING or "")]


def quiet(_: str) -> None:
    pass


def slow(name: str, moves: list[int]):  # type: ignore[no-untyped-def]
    """A greedy bot that takes 0.15 s a card (so the match lasts), counting its moves."""
    greedy = load_chooser("greedy")

    def choose(view: BotView) -> object:
        moves.append(1)
        time.sleep(0.15)
        return greedy(view)

    return choose


async def first_room(address: str) -> str:
    """The id of the first room the address lists, once it lists one (10 s at most)."""
    rooms: list[dict[str, str]] = []
    async with aiohttp.ClientSession() as http:
        for _ in range(200):
            async with http.get(f"{address}/api/rooms") as response:
                rooms = (await response.json())["rooms"]
            if rooms:
                break
            await asyncio.sleep(0.05)
    assert rooms, "no room was opened"
    return rooms[0]["id"]


async def test_two_bots_through_nginx_survive_the_death_of_their_node(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    with contextlib.ExitStack() as stack:
        nodes = stack.enter_context(cluster(cluster_db, redis_url, 2, logs=tmp_path))
        address = stack.enter_context(nginx([n.port for n in nodes]))
        url = address.replace("http://", "ws://") + "/ws"
        host_moves: list[int] = []
        host = BotClient(url, slow("host", host_moves), name="host bot", say=quiet)
        hosting = asyncio.create_task(host.run(Plan(seats=2, wait_s=30)))
        room_id = await first_room(address)
        guest = BotClient(url, slow("guest", []), name="guest bot", say=quiet)
        guesting = asyncio.create_task(guest.run(Plan(room=room_id)))
        for _ in range(200):
            if len(host_moves) >= 4:
                break
            await asyncio.sleep(0.05)
        async with aioredis.Redis.from_url(redis_url, decode_responses=True) as r:
            owner = (await r.get(f"cs:lease:room:{room_id}")).split()[0]
        next(n for n in nodes if n.id == owner).process.kill()
        [mine], [theirs] = await asyncio.wait_for(asyncio.gather(hosting, guesting), 60)
        assert mine.match_id == theirs.match_id and mine.boards == theirs.boards
        assert {name for name, *_ in mine.boards} == {"host bot", "guest bot"}
