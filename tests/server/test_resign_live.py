"""Resigning (``leave_room`` during a series) over real sockets: the leaver loses
the series at once and is ranked last in the deal in play, whatever its board
scored; with one player left that deal ends at once, with two or more they play
on; spectators see it too; the stored history and ratings show the loss; and no
rematch is offered. Both paces, rated and unrated, 2 to 4 seats, and a
tournament's table."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.server.live import Client, Live, running_server, signed_in
from tests.server.test_tournaments_live import FAST, host_with_bots, play_tournament

pytestmark = pytest.mark.timeout(120)
NAMES = ("ada", "bo", "cy", "di")


async def get(live: Live, path: str) -> Any:
    def read() -> Any:
        with urllib.request.urlopen(live.http + path, timeout=10) as reply:
            return json.loads(reply.read())

    return await asyncio.to_thread(read)


async def place_one(client: Client, room_id: str) -> None:
    card = await client.until("card")
    await client.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])
    await client.until("placed")


async def result_of(client: Client, room_id: str, *, play: bool) -> dict[str, Any]:
    """The deal's result; ``play``: placing every card dealt meanwhile, else none
    (and no card after the fourth, the one dealt before the leaver left)."""
    while True:
        message = await client.until("card", "match_result", timeout=20)
        if message["type"] == "match_result":
            assert message["room_id"] == room_id
            return message
        assert play or message["turn"] <= 4, f"dealt after the deal ended: {message}"
        if not play:
            continue
        cell = message["legal"][0]
        await client.send(type="place", room_id=room_id, turn=message["turn"], cell=cell)


@pytest.mark.parametrize(
    ("pace", "rated", "seats"),
    [
        ("lockstep", False, 2),
        ("race", False, 2),
        ("lockstep", True, 2),
        ("race", True, 2),
        ("lockstep", False, 3),
        ("race", False, 4),
    ],
)
async def test_the_leaver_loses_at_once_and_is_ranked_last(
    tmp_path: Path, pace: str, rated: bool, seats: int
) -> None:
    async with running_server(tmp_path / "resign.db") as live:
        people = [await signed_in(live, n) for n in NAMES[:seats]]
        ada, stayers = people[0], people[1:]
        clock = {"card_clock_ms": 60_000} if pace == "lockstep" else {"deal_clock_ms": 600_000}
        await ada.send(type="create_room", name="resign", seats=seats, pace=pace, deals=3,
                       rated=rated, contribution="c0", **clock)  # fmt: skip
        room_id = (await ada.until("room_state"))["room"]["id"]
        for i, c in enumerate(stayers, 1):
            await c.send(type="join_room", room_id=room_id, contribution=f"c{i}")
            await c.until("room_state")
        watcher = await signed_in(live, "sam")
        await watcher.send(type="join_room", room_id=room_id, spectate=True)
        await watcher.until("room_state")
        for c in people:
            await c.send(type="ready", room_id=room_id)
        for c in people:
            await c.until("match_started")
        for c in people:  # three cards into the deal (lockstep: everyone's turn 1-3)
            for _ in range(1 if pace == "lockstep" else 3):
                await place_one(c, room_id)
        if pace == "lockstep":
            for _ in range(2):
                for c in people:
                    await place_one(c, room_id)
        await ada.send(type="leave_room", room_id=room_id, ref="bye")
        assert (await ada.until("left"))["ref"] == "bye"

        alone = seats == 2
        results = await asyncio.gather(*(result_of(c, room_id, play=not alone) for c in stayers))
        seen = await result_of(watcher, room_id, play=False)
        for result in [*results, seen]:
            boards = result["boards"]
            assert boards[-1]["player"]["id"] == ada.id and boards[-1]["rank"] == seats
            assert all(b["rank"] < seats for b in boards[:-1])
            notes = [n for n in result["ranking"] if n["reason"] == "left"]
            assert notes == [{"player_id": ada.id, "reason": "left", "against": None,
                              "text": "ada resigned: ranked last", "time_used_ms": None,
                              "against_ms": None}]  # fmt: skip
            standings = result["series"]["standings"]
            assert standings[-1]["player"]["id"] == ada.id and standings[-1]["forfeited"]
        series = results[0]["series"]
        if alone:
            # The deal ended at once for bo: every card left was placed for him.
            mine = next(b for b in results[0]["boards"] if b["player"]["id"] == stayers[0].id)
            assert [p["auto"] for p in mine["placements"]] == [False] * 3 + [True] * 13
            # Told of the one card he held as placed for him because ada left, not the clock.
            told = [m for m in stayers[0].log if m["type"] == "placed" and m["auto"]]
            assert [(m["turn"], m["why"]) for m in told] == [(4, "others_left")]
            assert series["finished"] and series["winner"]["id"] == stayers[0].id
            room = (await stayers[0].until("room"))["room"]
            while room["status"] != "finished":
                room = (await stayers[0].until("room"))["room"]
            assert room["can_rematch"] is False
            await stayers[0].send(type="rematch", room_id=room_id, want=True)
            assert (await stayers[0].until("error"))["code"] == "player_not_found"
            if rated:
                told = [m for m in stayers[0].log if m["type"] == "ratings"]
                changes = (told[0] if told else await stayers[0].until("ratings"))["changes"]
                delta = {c["player"]["id"]: c["after"] - c["before"] for c in changes}
                assert delta[ada.id] < 0 < delta[stayers[0].id]
                history = (await get(live, "/api/players/ada/ratings"))["history"]
                assert [h["result"] for h in history] == ["loss"]
        else:
            assert not series["finished"]  # the others play on among themselves
        listed = (await get(live, f"/api/players/{ada.id}/matches"))["matches"]
        assert [(m["rank"], m["status"]) for m in listed] == [(seats, "finished")]
        for c in [*stayers, watcher]:
            await c.close()
        await ada.close()


async def test_a_tournament_table_resigned_is_won_by_the_other_at_once(tmp_path: Path) -> None:
    """A Swiss table of two: alice leaves mid-deal; bob's deal ends at once, he wins
    the table, and the tournament goes on to its end with alice last."""
    async with running_server(tmp_path / "table.db", **FAST) as live:
        (alice, bob), _ = await host_with_bots(live, "swiss", ["alice", "bob"], 0, rounds=1,
                                                 deal_clock_ms=600_000, pace="race")  # fmt: skip
        started = await alice.until("match_started")
        room_id = started["room_id"]
        await place_one(alice, room_id)
        await alice.send(type="leave_room", room_id=room_id)
        await alice.until("left")
        result = await result_of(bob, room_id, play=False)
        assert [b["player"]["id"] for b in result["boards"]] == [bob.id, alice.id]
        assert [n["reason"] for n in result["ranking"]] == ["left"]
        final = await play_tournament(bob)
        assert final["status"] == "finished"
        assert final["winners"] == [{"id": bob.id, "name": "bob", "guest": False, "bot": False}]
        assert final["tables"][0]["winner"] == bob.id
        await bob.close()
        await alice.close()
