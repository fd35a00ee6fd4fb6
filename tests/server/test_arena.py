"""The bot arena over real sockets: two bot programs (the bot SDK) play a rated match
against each other; their arena ratings move, people's ratings and leaderboard do not;
a person cannot enter the arena, and a bot program cannot enter people's rated play."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from client_cli.botkit import BotClient, BotError, Plan, load_chooser
from tests.server.live import ROOT, Live, running_server, signed_in

pytestmark = pytest.mark.timeout(90)

FAST = {"between_deals_ms": 100}


async def get(live: Live, path: str) -> Any:
    def read() -> Any:
        with urllib.request.urlopen(live.http + path, timeout=10) as reply:
            return json.loads(reply.read())

    return await asyncio.to_thread(read)


def quiet(_: str) -> None:
    pass


async def people_play_a_rated_match(live: Live) -> None:
    alice = await signed_in(live, "alice")
    bob = await signed_in(live, "bob")
    for c in (alice, bob):
        await c.send(type="quickplay")
    for c in (alice, bob):
        assert (await c.until("queue"))["state"] == "waiting"
    rooms = [(await c.until("queue"))["room_id"] for c in (alice, bob)]
    assert rooms[0] == rooms[1]
    await asyncio.gather(alice.play_to_end(rooms[0], 0), bob.play_to_end(rooms[0], 3))
    for c in (alice, bob):
        ratings = await c.until("ratings")
        assert not ratings.get("arena", False)
        await c.close()


@pytest.mark.slow
async def test_two_bot_programs_play_a_rated_arena_match_apart_from_people(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path / "arena.db", **FAST) as live:
        await people_play_a_rated_match(live)
        people_board = await get(live, "/api/leaderboard/lockstep")
        alice_before = await get(live, "/api/players/alice/ratings")
        assert people_board["players"] + len(people_board["top"]) > 0

        plan = Plan(queue=True, arena=True)
        tick = BotClient(live.url, load_chooser("level-5", seed="t"), name="tick", say=quiet)
        tock = BotClient(live.url, load_chooser("level-2", seed="k"), name="tock", say=quiet)
        [one], [two] = await asyncio.gather(tick.run(plan), tock.run(plan))
        assert one.room_id == two.room_id and one.players == two.players == 2
        assert one.verified and two.verified, (one.failed_checks, two.failed_checks)
        match = await get(live, f"/api/matches/{one.match_id}")
        assert all(b["player"]["bot"] for b in match["boards"])

        arena = await get(live, "/api/leaderboard/lockstep?arena=1")
        assert arena["arena"] is True
        rows = {e["player"]["name"]: e for e in arena["top"]}
        assert set(rows) == {"tick", "tock"}
        for row in rows.values():
            assert row["games"] == 1 and row["deviation"] < 350
        if one.score != two.score:
            winner = "tick" if one.score > two.score else "tock"
            loser = "tock" if winner == "tick" else "tick"
            assert rows[winner]["rating"] > 1500 > rows[loser]["rating"]
        tick_ratings = await get(live, "/api/players/tick/ratings")
        assert set(tick_ratings["ratings"]) == {"arena-lockstep"}

        # People's board and ratings are exactly as they were.
        assert await get(live, "/api/leaderboard/lockstep") == people_board
        assert await get(live, "/api/players/alice/ratings") == alice_before
        assert not any(e["player"]["bot"] for e in people_board["top"])

        # The arena's board from the command line.
        shown = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "client_cli", "leaderboard", "--server", live.http, "--arena",
             "--json"],
            cwd=ROOT, capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        assert shown.returncode == 0, shown.stderr
        assert {e["player"]["name"] for e in json.loads(shown.stdout)["top"]} == {"tick", "tock"}


async def test_a_person_cannot_enter_the_arena_nor_a_bot_peoples_rated_play(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path / "walls.db", **FAST) as live:
        alice = await signed_in(live, "alice")
        robo = await signed_in(live, "robo", bot=True)
        await alice.send(type="quickplay", arena=True, ref="a")
        refused = await alice.error("not_rateable")
        assert refused["ref"] == "a" and "bot programs" in refused["reason"]
        await alice.send(type="get_leaderboard", arena=True, ref="lb")
        board = await alice.until("leaderboard")
        assert board["arena"] is True and board["top"] == []

        await robo.send(type="create_room", name="rated", seats=2, rated=True)
        await robo.error("not_rateable")
        await robo.send(type="challenge", opponent="alice", rated=True)
        await robo.error("not_rateable")
        await alice.send(type="create_room", name="rated duel", seats=2, rated=True)
        room = (await alice.until("room_state"))["room"]["id"]
        await robo.send(type="join_room", room_id=room)
        await robo.error("not_rateable")
        # Its quick play without the arena is the casual queue: never paired with
        # a person waiting for a rated game.
        await robo.send(type="quickplay")
        assert (await robo.until("queue"))["state"] == "waiting"
        bob = await signed_in(live, "bob")
        await bob.send(type="quickplay")
        assert (await bob.until("queue"))["state"] == "waiting"
        await asyncio.sleep(0.3)
        for c in (robo, bob):
            await c.send(type="cancel_quickplay")
            assert (await c.until("queue"))["state"] == "cancelled"
        # Nor does a program waiting in the arena meet a person whose wait ran out.
        await robo.send(type="quickplay", arena=True)
        assert (await robo.until("queue"))["state"] == "waiting"
        await bob.send(type="quickplay", bot_after_ms=0)
        await bob.until("queue")
        matched = await bob.until("queue")
        state = await bob.until("room_state")
        assert matched["state"] == "matched"
        seated = {s["player"]["id"] for s in state["room"]["players"]}
        assert robo.id not in seated and any(p.startswith("bot-") for p in seated)
        for c in (alice, robo, bob):
            await c.close()


@pytest.mark.slow
async def test_the_bot_command_joins_the_arena(tmp_path: Path) -> None:
    async with running_server(tmp_path / "cmd.db", **FAST) as live:
        command = [sys.executable, "-m", "client_cli", "bot", "--server", live.url, "--arena"]
        pipe = asyncio.subprocess.PIPE
        runs = [
            asyncio.create_subprocess_exec(
                *command, "--strategy", strategy, "--name", name, cwd=ROOT, stdout=pipe, stderr=pipe
            )
            for strategy, name in (("level-3", "ping"), ("examples/my_bot.py", "pong"))
        ]
        processes = await asyncio.gather(*runs)
        try:
            outputs = await asyncio.wait_for(
                asyncio.gather(*(p.communicate() for p in processes)), 60
            )
        finally:
            for p in processes:
                if p.returncode is None:
                    p.kill()
                    await p.wait()
        for p, (out, err) in zip(processes, outputs, strict=True):
            assert p.returncode == 0, err.decode()
            assert "waiting in the arena" in out.decode()
        arena = await get(live, "/api/leaderboard/lockstep?arena=1")
        assert {e["player"]["name"] for e in arena["top"]} == {"ping", "pong"}


def test_the_arena_and_a_room_do_not_mix() -> None:
    from argparse import Namespace

    from client_cli.botkit.command import plan_from

    args = Namespace(room=None, games=1, seats=3, bot_after=None, quickplay=False, wait=1.0,
                     pace="lockstep", best_of=1, arena=True)  # fmt: skip
    with pytest.raises(BotError, match="--arena"):
        plan_from(args)
    args.seats = 2
    assert plan_from(args).arena and plan_from(args).queue
