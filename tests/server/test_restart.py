"""`cribsquares serve` as a real process: play, stop it, start it again, read the history."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import aiohttp
import pytest

from tests.server.live import Client, Live, server_process

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


@contextmanager
def serve(db: Path) -> Iterator[Live]:
    """The real server, stopped with SIGTERM at the end: it must exit cleanly."""
    with server_process(db) as (process, live):
        try:
            yield live
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        assert process.returncode == 0, process.stderr.read() if process.stderr else ""


async def play_solo(live: Live) -> tuple[str, str, dict]:  # type: ignore[type-arg]
    alice = await Client.connect(live)
    await alice.hello("alice")
    await alice.send(type="create_room", name="solo", seats=1)
    room_id = (await alice.until("room_state"))["room"]["id"]
    await alice.send(type="ready", room_id=room_id)
    result = await alice.play_to_end(room_id)
    await alice.close()
    assert alice.token is not None
    return alice.token, result["match_id"], result


def history(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "client_cli", "history", "--db", str(db), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def test_history_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    with serve(db) as live:
        token, match_id, result = asyncio.run(play_solo(live))
    assert db.exists()

    async def after_restart(live: Live) -> dict:  # type: ignore[type-arg]
        back = await Client.connect(live)
        welcome = await back.hello(token=token)  # identities survive too
        assert welcome["player"]["name"] == "alice"
        url = f"{live.http}/api/matches/{match_id}"
        async with aiohttp.ClientSession() as http, http.get(url) as response:
            assert response.status == 200
            return await response.json()  # type: ignore[no-any-return]

    with serve(db) as live:
        stored = asyncio.run(after_restart(live))
    assert stored["seed"] == result["seed"] and stored["starter"] == result["starter"]
    assert stored["boards"][0]["cells"] == result["boards"][0]["cells"]
    assert stored["boards"][0]["score"] == result["boards"][0]["score"]["total"]

    mine = history(db, "alice", "--json")
    assert mine.returncode == 0, mine.stderr
    data = json.loads(mine.stdout)
    assert [m["match_id"] for m in data["matches"]] == [match_id]
    detail = history(db, "--match", match_id, "--json")
    placements = json.loads(detail.stdout)["boards"][0]["placements"]
    assert [p["turn"] for p in placements] == list(range(1, 17))
    text = history(db, "--match", match_id)
    assert text.returncode == 0 and result["seed"] in text.stdout
    recent = history(db)
    assert match_id in recent.stdout
    missing = history(db, "nobody")
    assert missing.returncode == 2 and "no player nobody" in missing.stderr
