"""GET /api/matches/{id}/analysis: the engine's analysis of a finished board,
the same figures as ``cribsquares analyze``; nothing for a match being played;
and a player's matches list their opponents."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from client_cli.analysis import analyse, board_from_result
from protocol.deals import BoardResult
from tests.server.live import running_server, two_player_room


async def analysis(http: aiohttp.ClientSession, url: str) -> dict[str, Any]:
    """Ask until the analysis is done: 202 while it is computed, then 200 (bounded)."""
    async with http.get(url) as first:
        assert first.status == 202, await first.text()  # nobody waits for the engine
        assert first.headers["Retry-After"] == "2"
        assert (await first.json())["status"] == "computing"
    for _ in range(300):
        await asyncio.sleep(0.1)
        async with http.get(url) as reply:
            if reply.status == 200:
                return await reply.json()  # type: ignore[no-any-return]
            assert reply.status == 202
    raise AssertionError("the analysis took more than 30 s")


@pytest.mark.slow
async def test_a_finished_board_is_analysed_as_the_command_line_does(tmp_path: Path) -> None:
    async with running_server(tmp_path / "db.sqlite") as live, aiohttp.ClientSession() as http:
        alice, bob, room_id = await two_player_room(live)
        url = live.http + "/api/players/alice/matches"
        async with http.get(url) as reply:
            playing = (await reply.json())["matches"][0]
        match_id = playing["match_id"]
        assert playing["opponents"] == [
            {
                "player": {"id": bob.id, "name": "bob", "guest": False, "bot": False},
                "rank": None,
                "score": None,
            }
        ]
        async with http.get(f"{live.http}/api/matches/{match_id}/analysis") as early:
            assert early.status == 409  # no board of a match being played
            assert (await early.json())["error"]["code"] == "match_not_finished"
        result, _ = await asyncio.gather(
            alice.play_to_end(room_id), bob.play_to_end(room_id, pick=2)
        )
        found = await analysis(http, f"{live.http}/api/matches/{match_id}/analysis?player=BOB")
        async with http.get(url) as reply:
            after = (await reply.json())["matches"][0]["opponents"][0]
        board = next(b for b in result["boards"] if b["player"]["id"] == bob.id)
        assert after["score"] == board["score"]["total"] and after["rank"] == board["rank"]
        local = analyse(board_from_result(BoardResult.model_validate(board), result["starter"]))
        assert found["player"]["id"] == bob.id and found["rank"] == board["rank"]
        assert found["score"] == local.score == board["score"]["total"]
        assert found["hindsight"] == local.hindsight.to_dict()
        assert found["moves"] == [m.to_dict() for m in local.moves]
        assert found["total_loss"] == round(local.total_loss, 3)
        assert found["placements"] == [
            p["cell"] for p in sorted(board["placements"], key=lambda p: p["turn"])
        ]
        async with http.get(f"{live.http}/api/matches/{match_id}/analysis?player=nobody") as reply:
            assert reply.status == 404
        async with http.get(f"{live.http}/api/matches/no-such-match/analysis") as reply:
            assert reply.status == 404
        for c in (alice, bob):
            await c.close()


async def test_too_many_analyses_at_once_are_refused_for_now(tmp_path: Path, monkeypatch) -> None:
    import server.analysis

    monkeypatch.setattr(server.analysis, "WAITING", 0)
    async with running_server(tmp_path / "db.sqlite") as live, aiohttp.ClientSession() as http:
        alice, bob, room_id = await two_player_room(live)
        result, _ = await asyncio.gather(alice.play_to_end(room_id), bob.play_to_end(room_id))
        async with http.get(f"{live.http}/api/matches/{result['match_id']}/analysis") as reply:
            assert reply.status == 503
            assert reply.headers["Retry-After"] == "5"
            assert (await reply.json())["error"]["code"] == "busy"
        for c in (alice, bob):
            await c.close()
