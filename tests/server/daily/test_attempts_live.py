"""The daily deal over real sockets: one attempt per player (again after a reconnect,
a forfeit and a restart), the schedule kept across restarts, the standings, the
percentiles and streaks over several days, and yesterday's deal with the field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
import pytest

from engine.deal import commitment, deal
from server.daily.days import day_name
from server.daily.days import seed as daily_seed
from tests.server.live import Client, Live, running_server, signed_in
from tests.server.test_embargo_sweep import DAY_MS, NOON, Calendar
from tests.waiting import until

pytestmark = pytest.mark.timeout(120)
TODAY = day_name(NOON // DAY_MS)


async def daily(client: Client, **asked: Any) -> dict[str, Any]:
    await client.send(type="get_daily", **asked)
    return await client.until("daily", "error")


async def begin(client: Client, **pace: Any) -> dict[str, Any]:
    await client.send(type="play_daily", **pace)
    return await client.until("room_state", "error")


async def refused(client: Client, **pace: Any) -> str:
    """play_daily's refusal (a room_state the connection gets meanwhile is skipped)."""
    await client.send(type="play_daily", **pace)
    return str((await client.until("error"))["code"])


async def http_json(live: Live, path: str) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as http, http.get(live.http + path) as reply:
        return reply.status, await reply.json()


async def test_one_attempt_again_after_a_reconnect_and_a_restart(tmp_path: Path) -> None:
    db, calendar = tmp_path / "daily.db", Calendar()
    async with running_server(db, daily_calendar=calendar) as live:
        ada = await signed_in(live, "ada")
        token = ada.token
        before = await daily(ada)
        assert before["status"] == "open" and before["day"] == TODAY
        assert [d["day"] for d in before["schedule"]] == [
            day_name(NOON // DAY_MS + k) for k in range(8)
        ]  # today and the next seven, committed
        assert all(d["secret"] is None for d in before["schedule"])
        assert before["you"]["status"] == "none"
        state = await begin(ada, pace="lockstep", card_clock_ms=60_000, ref="go")
        assert state["type"] == "room_state" and state["ref"] == "go"
        room_id = state["room"]["id"]
        started = await ada.until("match_started")
        assert started["server_commitment"] == before["commitment"]
        assert started["contributions"] == [TODAY]
        card = await ada.until("card")
        await ada.send(type="place", room_id=room_id, turn=1, cell=card["legal"][0])
        await ada.until("placed")
        # a second attempt, from a second connection of the same player
        again = await Client.connect(live)
        await again.hello(token=token)
        assert await refused(again) == "daily_played"
        await again.close()
        await ada.close()
        # a reconnect: the same refusal; the attempt is still there to finish
        ada = await Client.connect(live)
        await ada.hello(token=token)
        assert (await ada.until("room_state"))["room"]["id"] == room_id
        assert await refused(ada) == "daily_played"
        mine = await daily(ada)
        assert mine["you"]["status"] == "playing" and mine["players"] == 1
        assert mine["standings"][0]["status"] == "playing" and mine["standings"][0]["score"] is None
        guest = await signed_in(live, None, guest=True)  # type: ignore[arg-type]
        assert await refused(guest) == "daily_registered_only"
        schedule = before["schedule"]
        await ada.close()
        await guest.close()
    # The server restarts mid-attempt: the schedule and the attempt are kept.
    async with running_server(db, daily_calendar=calendar) as live:
        ada = await Client.connect(live)
        await ada.hello(token=token)
        resumed = await ada.until("room_state")
        assert resumed["room"]["id"] == room_id and resumed["you"]["placements"]
        assert (await daily(ada))["schedule"] == schedule
        assert await refused(ada, pace="race") == "daily_played"
        await ada.send(type="resync", room_id=room_id)
        you = (await ada.until("room_state"))["you"]
        await ada.send(type="place", room_id=room_id, turn=you["turn"], cell=you["legal"][0])
        result = await ada.play_to_end(room_id)
        assert len(result["boards"]) == 1 and result["boards"][0]["cells"]
        await ada.send(type="rematch", room_id=room_id)
        assert (await ada.until("error"))["code"] == "daily_played"
        await ada.send(type="add_bot", room_id=room_id)
        assert (await ada.until("error"))["code"] in ("daily_solo", "room_started")
        done = await daily(ada)
        assert (
            done["you"]["status"] == "finished"
            and done["you"]["cells"] == result["boards"][0]["cells"]
        )
        assert done["you"]["score"] == result["boards"][0]["score"]["total"]
        assert done["deal"] is None  # the day is not over
        await ada.close()
    async with running_server(db, daily_calendar=calendar) as live:
        ada = await Client.connect(live)
        await ada.hello(token=token)
        assert await refused(ada) == "daily_played"  # still, after a second restart
        await ada.close()


async def test_leaving_forfeits_the_attempt_and_the_server_completes_the_board(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path / "d.db", daily_calendar=Calendar()) as live:
        bo = await signed_in(live, "bo")
        room_id = (await begin(bo, pace="race", deal_clock_ms=600_000))["room"]["id"]
        card = await bo.until("card")
        await bo.send(type="place", room_id=room_id, turn=1, cell=card["legal"][0])
        await bo.until("placed")
        await bo.send(type="leave_room", room_id=room_id)
        await bo.until("left")
        view = await daily(bo)
        assert view["you"]["status"] == "finished"
        assert len([c for c in view["you"]["cells"] if c]) == 16  # placed by the server
        assert await refused(bo) == "daily_played"
        await bo.close()


async def test_standings_streaks_and_yesterdays_deal_against_the_field(tmp_path: Path) -> None:
    calendar = Calendar()
    day1 = NOON // DAY_MS
    async with running_server(tmp_path / "d.db", daily_calendar=calendar) as live:
        people = {n: await signed_in(live, n) for n in ("ann", "ben", "cat")}
        scores = {}
        for pick, (name, c) in enumerate(people.items()):
            room_id = (await begin(c, pace="race", deal_clock_ms=600_000))["room"]["id"]
            result = await c.play_to_end(room_id, pick=pick * 3)
            scores[name] = result["boards"][0]["score"]["total"]
        view = await daily(people["ann"])
        rows = view["standings"]
        assert view["players"] == view["finished"] == 3
        assert [r["score"] for r in rows] == sorted(scores.values(), reverse=True)
        assert rows[0]["rank"] == 1
        for r in rows:  # the others below, and half those level (the deal is random: ties)
            others = [v for n, v in scores.items() if n != r["player"]["name"]]
            below = sum(v < r["score"] for v in others)
            level = sum(v == r["score"] for v in others)
            assert r["percentile"] == 100 * (2 * below + level) // (2 * len(others))
            assert r["rank"] == 1 + sum(v > r["score"] for v in others)
        assert all(r["streak"] == 1 for r in rows)
        status, public = await http_json(live, "/api/daily")
        assert status == 200 and "you" not in public and public["deal"] is None
        # anyone over HTTP may still play it: who played, in the order they began
        assert public["scores_shown"] is False and view["scores_shown"] is True
        assert [r["player"]["name"] for r in public["standings"]] == ["ann", "ben", "cat"]
        assert all(r["score"] is r["rank"] is r["percentile"] is None for r in public["standings"])
        # Day 2: ann and ben play again; cat does not.
        calendar.ms += DAY_MS
        for name in ("ann", "ben"):
            c = people[name]
            room_id = (await begin(c, pace="lockstep", card_clock_ms=120_000))["room"]["id"]
            await c.play_to_end(room_id)
        today = await daily(people["ann"])
        assert today["day"] == day_name(day1 + 1)
        assert {r["player"]["name"]: r["streak"] for r in today["standings"]} == {
            "ann": 2, "ben": 2,
        }  # fmt: skip
        assert today["you"]["streak"] == 2 and today["you"]["longest_streak"] == 2
        assert (await daily(people["cat"]))["you"]["streak"] == 1  # yesterday's: still held

        # Yesterday's deal, open for analysis against the field: the fake calendar moved
        # at once, the server's clock tick lifts the day's embargo (stored first) soon
        # after; until then the day is "closing".
        async def revealed() -> dict[str, Any] | None:
            view = await daily(people["cat"], day=day_name(day1))
            return view if view["status"] == "over" else None

        old = await until("day 1's embargo to be lifted", revealed, within=10)
        secret = old["deal"]["secret"]
        assert commitment(secret) == old["commitment"]
        assert old["deal"]["seed"] == daily_seed(secret, day1)
        assert old["deal"]["cards"] == [str(c) for c in deal(old["deal"]["seed"]).cards]
        assert all(sum(turn) == 3 for turn in old["deal"]["field"])
        assert old["you"]["status"] == "finished" and old["you"]["cells"]
        assert old["schedule"][0] == {"day": day_name(day1), "commitment": old["commitment"],
                                      "secret": secret}  # fmt: skip
        status, stored = await http_json(live, f"/api/daily/{day_name(day1)}")
        assert status == 200 and stored["deal"] == old["deal"]
        assert stored["standings"] == old["standings"]
        match_id = old["you"]["match_id"]
        status, match = await http_json(live, f"/api/matches/{match_id}")
        assert not match["embargoed"] and match["seed"] == old["deal"]["seed"]
        # Two days on: cat's streak is lost; day 1 is no longer kept by the lobby.
        calendar.ms += 2 * DAY_MS
        assert (await daily(people["cat"]))["you"]["streak"] == 0
        assert (await daily(people["ann"], day=day_name(day1)))["code"] == "daily_not_found"
        status, stored = await http_json(live, f"/api/daily/{day_name(day1)}")
        assert status == 200 and stored["deal"] == old["deal"]
        status, far = await http_json(live, f"/api/daily/{day_name(day1 + 20)}")
        assert status == 404 and far["error"]["code"] == "daily_not_found"
        status, _ = await http_json(live, "/api/daily/not-a-day")
        assert status == 404
        for c in people.values():
            await c.close()


async def test_a_day_without_a_deal_is_daily_not_found_on_every_surface(tmp_path: Path) -> None:
    # A fresh server draws today's secret and the next seven: yesterday has none.
    async with running_server(tmp_path / "fresh.db", daily_calendar=Calendar()) as live:
        ada = await signed_in(live, "ada")
        yesterday = day_name(NOON // DAY_MS - 1)
        for day in (yesterday, "not-a-day", "2026-02-30", day_name(NOON // DAY_MS + 30)):
            reply = await daily(ada, day=day, ref="d")
            assert reply["type"] == "error" and reply["code"] == "daily_not_found", reply
            assert reply["reason"].startswith("no daily deal on that day"), reply
            assert reply["ref"] == "d"
            status, body = await http_json(live, f"/api/daily/{day}")
            assert status == 404 and body["error"]["code"] == "daily_not_found", body
            assert body["error"]["reason"].startswith("no daily deal on that day"), body
        assert (await daily(ada, day=yesterday))[
            "reason"
        ] == f"no daily deal on that day: {yesterday}"
        assert (await daily(ada))["status"] == "open"  # today's deal is there all along
        await ada.close()
