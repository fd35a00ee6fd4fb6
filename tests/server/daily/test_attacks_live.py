"""The daily deal attacked over real sockets: a second attempt from two connections at
the same instant, someone else in an attempt's room by its invite code (to watch, to
take the seat, before and after its player left), and today's deal asked for on every
route anyone may ask (the match, its series, its analysis, the player's list, the
days to come); the secrets drawn never in a repr."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from server.daily.days import day_name
from server.records import Draw
from server.shell.keys import HUB
from tests.server.daily.test_attempts_live import begin, daily, http_json
from tests.server.live import Client, running_server, signed_in
from tests.server.test_embargo_sweep import DAY_MS, NOON, Calendar

pytestmark = pytest.mark.timeout(120)
TODAY = NOON // DAY_MS


def said(message: dict[str, Any]) -> str:
    return str(message.get("code", message["type"]))


async def test_two_connections_at_the_same_instant_get_one_attempt(tmp_path: Path) -> None:
    async with running_server(tmp_path / "d.db", daily_calendar=Calendar()) as live:
        ada = await signed_in(live, "ada")
        twins = [ada]
        for _ in range(3):
            twin = await Client.connect(live)
            await twin.hello(token=ada.token)
            twins.append(twin)
        frames = [t.send(type="play_daily", ref=f"go{i}") for i, t in enumerate(twins)]
        await asyncio.gather(*frames)
        answers = [await t.until("error", "room_state") for t in twins]
        # Every connection of ada gets the one attempt's room_state; three refusals too.
        refusals = [m for t in twins for m in t.log if m.get("code") == "daily_played"]
        assert len(refusals) == 3, answers
        rooms = {m["room"]["id"] for t in twins for m in t.log if m["type"] == "room_state"}
        assert len(rooms) == 1
        assert len(live.app[HUB].lobby.daily.attempts[TODAY]) == 1
        for t in twins:
            await t.close()


async def test_nobody_else_enters_an_attempts_room(tmp_path: Path) -> None:
    async with running_server(tmp_path / "d.db", daily_calendar=Calendar()) as live:
        ada, eve = await signed_in(live, "ada"), await signed_in(live, "eve")
        state = await begin(ada, pace="race", deal_clock_ms=600_000)
        room_id, code = state["room"]["id"], state["room"]["invite_code"]
        card = await ada.until("card")

        async def eve_tries() -> list[str]:
            codes = []
            for asked in (
                {"invite_code": code, "spectate": True},
                {"invite_code": code},
                {"room_id": room_id, "spectate": True},
                {"room_id": room_id},
            ):
                await eve.send(type="join_room", **asked)
                codes.append(said(await eve.until("error", "room_state")))
            for kind in ("resync", "ready", "rematch", "add_bot"):
                await eve.send(type=kind, room_id=room_id)
                codes.append(said(await eve.until("error", "room_state")))
            await eve.send(type="place", room_id=room_id, turn=1, cell="a1")
            codes.append(said(await eve.until("error", "room_state")))
            return codes

        during = await eve_tries()
        assert during == [
            "daily_solo", "room_started", "room_not_found", "room_not_found",
            *["not_in_room"] * 5,
        ], during  # fmt: skip
        # ada leaves (a forfeit): the server plays her cards, her seat is not let.
        await ada.send(type="place", room_id=room_id, turn=1, cell=card["legal"][0])
        await ada.until("placed")
        await ada.send(type="leave_room", room_id=room_id)
        await ada.until("left")
        after = await eve_tries()
        # Finished with nobody in it, the room is gone: still no way in.
        assert after == ["room_not_found"] * 4 + ["not_in_room"] * 5, after
        assert not [m for m in eve.log if m["type"] in ("card", "match_started", "match_result")]
        assert (await daily(ada))["you"]["status"] == "finished"
        await ada.close()
        await eve.close()


async def test_todays_deal_on_every_route_before_the_day_is_over(tmp_path: Path) -> None:
    calendar = Calendar()
    async with running_server(tmp_path / "d.db", daily_calendar=calendar) as live:
        ada = await signed_in(live, "ada")
        room_id = (await begin(ada, pace="race", deal_clock_ms=600_000))["room"]["id"]
        result = await ada.play_to_end(room_id)
        match_id = result["match_id"]
        seed, secret = result["seed"], result["server_secret"]
        assert seed and secret  # ada is shown her own deal
        paths = {
            "/api/daily": 200,
            f"/api/daily/{day_name(TODAY)}": 200,
            f"/api/daily/{day_name(TODAY + 1)}": 200,
            f"/api/daily/{day_name(TODAY + 7)}": 200,
            f"/api/matches/{match_id}": 200,
            f"/api/series/{match_id}": 200,
            f"/api/matches/{match_id}/analysis": 409,
            f"/api/matches/{match_id}/analysis?player=ada": 409,
            "/api/players/ada/matches": 200,
            "/api/rooms": 200,
        }
        shown: dict[str, Any] = {}
        for path, status in paths.items():
            got, body = await http_json(live, path)
            assert got == status, (path, got, body)
            shown[path] = body
            text = str(body)
            assert seed not in text and secret not in text, path
        assert shown[f"/api/matches/{match_id}"]["embargoed"] is True
        assert shown[f"/api/matches/{match_id}/analysis"]["error"]["code"] == "match_embargoed"
        assert match_id not in str(shown["/api/players/ada/matches"])
        assert room_id not in str(shown["/api/rooms"])
        for day in (TODAY + 1, TODAY + 7):  # the days to come: a commitment, nothing more
            ahead = shown[f"/api/daily/{day_name(day)}"]
            assert ahead["status"] == "upcoming" and ahead["deal"] is None
            assert all(d["secret"] is None for d in ahead["schedule"])
        # Over HTTP, anyone: who played, no score (whoever asks may still play it).
        today = shown["/api/daily"]
        assert today["scores_shown"] is False and today["standings"][0]["score"] is None
        # Another player over the WebSocket, who may still play it: not even the numbers.
        bo = await signed_in(live, "bo")
        seen = await daily(bo)
        assert seen["deal"] is None and seen["you"]["status"] == "none"
        assert seen["scores_shown"] is False
        assert [(r["rank"], r["score"], r["percentile"], r["time_used_ms"])
                for r in seen["standings"]] == [(None, None, None, None)]  # fmt: skip
        # A guest, who may not play it: the numbers, never a cell.
        guest = await signed_in(live, None, guest=True)  # type: ignore[arg-type]
        seen = await daily(guest)
        assert seen["deal"] is None and seen["scores_shown"] is True
        assert seen["standings"][0]["score"] == result["boards"][0]["score"]["total"]
        await guest.close()
        assert "cells" not in seen["standings"][0]
        for day in range(TODAY + 1, TODAY + 8):
            ahead = await daily(bo, day=day_name(day))
            assert ahead["deal"] is None and secret not in str(ahead)
        # The day over: the same routes show it all.
        calendar.ms += DAY_MS
        lobby = live.app[HUB].lobby
        for _ in range(100):
            if TODAY in lobby.daily.revealed:
                break
            await asyncio.sleep(0.05)
        got, match = await http_json(live, f"/api/matches/{match_id}")
        assert match["embargoed"] is False and match["seed"] == seed
        async with (
            aiohttp.ClientSession() as http,
            http.get(f"{live.http}/api/matches/{match_id}/analysis") as reply,
        ):
            assert reply.status in (200, 202)
        await ada.close()
        await bo.close()


def test_the_secrets_drawn_stay_out_of_a_repr() -> None:
    secret = "ab" * 32
    assert secret not in repr(Draw(((20_000, secret),), 0))
