"""A player's own history is all its games, over real sockets: asked with its own
token, ``/api/players/{name}/matches`` lists its private rooms, its games against
bots and its daily attempts, the day's still on too; anyone else, another player's
token included, gets the public list, and a token nobody has is refused."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from client_cli.config import SERVER_ENV, SavedSignIn, TokenStore
from client_cli.session import normalize_url
from tests.server.daily.test_attempts_live import begin
from tests.server.live import Client, Live, running_server, signed_in
from tests.server.test_embargo_sweep import DAY_MS, Calendar

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


async def asked(live: Live, path: str, token: str | None = None) -> tuple[int, Any]:
    """``GET path``'s status and JSON, asked with ``token`` if given."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with (
        aiohttp.ClientSession() as http,
        http.get(live.http + path, headers=headers) as reply,
    ):
        return reply.status, await reply.json()


async def matches(live: Live, who: str, token: str | None = None) -> tuple[int, Any]:
    return await asked(live, f"/api/players/{who}/matches", token)


async def match(live: Live, match_id: str, token: str | None = None) -> tuple[int, Any]:
    return await asked(live, f"/api/matches/{match_id}", token)


async def private_game_against_a_bot(ada: Client) -> str:
    await ada.send(type="create_room", name="practice", seats=2, visibility="private")
    room_id = str((await ada.until("room_state"))["room"]["id"])
    await ada.send(type="add_bot", room_id=room_id, strategy="greedy")
    await ada.until("room")
    await ada.send(type="ready", room_id=room_id)
    result = await ada.play_to_end(room_id)
    return str(result["match_id"])


async def test_own_history_holds_private_rooms_bots_and_finished_days(tmp_path: Path) -> None:
    calendar = Calendar()
    async with running_server(tmp_path / "own.db", daily_calendar=calendar) as live:
        ada, bob = await signed_in(live, "ada"), await signed_in(live, "bob")
        assert ada.token and bob.token
        practice = await private_game_against_a_bot(ada)
        daily_room = (await begin(ada, pace="race", deal_clock_ms=600_000))["room"]["id"]
        attempt = (await ada.play_to_end(daily_room))["match_id"]

        status, public = await matches(live, "ada")
        assert status == 200 and public["matches"] == [] and public["all"] is False
        status, as_bob = await matches(live, "ada", bob.token)
        assert status == 200 and as_bob["matches"] == []  # bob's token shows bob nothing more
        status, own = await matches(live, "ada", ada.token)
        assert status == 200 and own["all"] is True
        # Both are listed with their scores, the daily attempt while its day is on too.
        assert [m["match_id"] for m in own["matches"]] == [attempt, practice]
        day_row, row = own["matches"]
        assert row["status"] == "finished" and row["rank"] is not None
        assert [o["player"]["bot"] for o in row["opponents"]] == [True]
        assert day_row["score"] is not None and day_row["rank"] == 1 and day_row["opponents"] == []
        # By id as by name.
        assert (await matches(live, str(ada.id), ada.token))[1]["matches"] == own["matches"]
        # The attempt by id: its board and score to ada; to anyone else, not even a score.
        status, seen = await match(live, attempt, ada.token)
        (board,) = seen["boards"]
        assert status == 200 and seen["embargoed"] and seen["starter"] and seen["seed"] is None
        assert len(board["cells"]) == 16 and board["score"] == day_row["score"]
        for token in (None, bob.token):
            status, seen = await match(live, attempt, token)
            assert status == 200 and seen["starter"] is None and seen["ranking"] == []
            assert set(seen["boards"][0]) == {"seat", "player", "contribution"}
        assert (await match(live, attempt, "nobody-has-this"))[0] == 401
        # cribsquares history --match, with ada's saved sign-in and without one.
        code, out, err = await cli(tmp_path, "history", "--match", attempt, "--server", live.url)
        assert code == 0 and "under an embargo" in out and " points" not in out, err
        with patched_config(tmp_path):
            TokenStore().put(normalize_url(live.url), SavedSignIn(ada.token, "ada", ada.id))
        code, out, err = await cli(tmp_path, "history", "--match", attempt, "--server", live.url)
        assert code == 0 and f"#1 ada: {day_row['score']} points" in out, err
        assert "under an embargo" in out and "seed " not in out.replace("seed commitment", "")

        calendar.ms += DAY_MS  # the day is over; its embargo is lifted by the desk
        for _ in range(100):  # bounded: 10 s at most
            status, seen = await match(live, attempt)
            if not seen["embargoed"]:
                break
            await asyncio.sleep(0.1)
        assert not seen["embargoed"] and seen["seed"] and seen["boards"][0]["score"] is not None
        listed = [m["match_id"] for m in (await matches(live, "ada", ada.token))[1]["matches"]]
        assert listed == [attempt, practice]
        assert (await matches(live, "ada"))[1]["matches"] == []  # still private to others

        for bad in ("nobody-has-this", ""):
            status, refused = await matches(live, "ada", bad)
            assert status == 401 and refused["error"]["code"] == "bad_token", refused
        async with (
            aiohttp.ClientSession() as http,
            http.get(
                f"{live.http}/api/players/ada/matches", headers={"Authorization": "Basic x"}
            ) as reply,
        ):
            assert reply.status == 401
        await ada.close()
        await bob.close()


async def cli(tmp_path: Path, *argv: str) -> tuple[int, str, str]:
    """``cribsquares ARGV`` as a process of its own, with its config in ``tmp_path``,
    run in no database's directory: it must read the server, not a file here."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop(SERVER_ENV, None)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "client_cli", *argv,
        cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_the_history_command_reads_the_server_with_the_saved_sign_in(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path / "server.db") as live:
        ada = await signed_in(live, "ada")
        practice = await private_game_against_a_bot(ada)
        assert ada.token and ada.id
        code, out, err = await cli(tmp_path, "history", "--server", live.url)
        assert code == 2 and "no saved sign-in" in err and out == ""
        code, out, err = await cli(tmp_path, "history", "ada", "--server", live.url)
        assert code == 0 and "0 matches" in out, err  # anyone's view: no private room
        with patched_config(tmp_path):
            TokenStore().put(normalize_url(live.url), SavedSignIn(ada.token, "ada", ada.id))
        for argv in (("history",), ("history", "ada"), ("history", ada.id)):
            code, out, err = await cli(tmp_path, *argv, "--server", live.url)
            assert code == 0, err
            assert "1 matches (all yours, private rooms included)" in out and practice in out
        code, out, err = await cli(tmp_path, "history", "--server", live.url, "--json")
        assert json.loads(out)["matches"][0]["match_id"] == practice
        code, out, err = await cli(tmp_path, "history", "--match", practice, "--server", live.url)
        assert code == 0 and f"match {practice} in room practice" in out, err
        fast = ("--simulations", "20", "--budget", "200")
        code, out, err = await cli(
            tmp_path, "analyze", practice, "--player", "ada", "--server", live.url, *fast
        )
        assert code == 0 and f"match {practice}: 1 board(s) analysed" in out, err
        await ada.close()
    assert not (tmp_path / "cribsquares.db").exists()


@contextlib.contextmanager
def patched_config(tmp_path: Path) -> Iterator[None]:
    before = os.environ.get("XDG_CONFIG_HOME")
    os.environ["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    try:
        yield
    finally:
        if before is None:
            del os.environ["XDG_CONFIG_HOME"]
        else:
            os.environ["XDG_CONFIG_HOME"] = before
