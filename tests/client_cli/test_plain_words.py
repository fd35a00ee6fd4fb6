"""``--plain`` against a real server on loopback: what a player types and what it is
told. One refusal at most for an id or code nothing has; no silent leaving of a
match (create refused, leave asked twice); watching a room's match; an unknown
replay; the history's opponents and results."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import aiohttp
import pytest

from tests.client_cli.test_play_plain import ROOT, ROW_BY_ROW, plain
from tests.client_cli.test_play_plain import server as server

pytestmark = pytest.mark.slow


async def test_an_unknown_id_or_code_is_refused_once(server: str, tmp_path: Path) -> None:
    script = ["join XXXXXXXX", "register NOPE1234", "watch NOPE1234", "replay NOPE", "quit"]
    code, out, err = await plain(server, tmp_path, script, "--name", "ada")
    assert code == 0, err
    lines = out.splitlines()
    refusals = [line for line in lines if line.startswith("refused")]
    assert refusals == [
        "refused: no room has the id or invite code XXXXXXXX",
        "refused: no tournament has the id or invite code NOPE1234",
        "refused: no tournament or room has the id or invite code NOPE1234",
    ], out
    assert "error: no match NOPE on this server (see history)" in lines
    assert "Traceback" not in out + err


async def test_a_match_is_never_left_silently(server: str, tmp_path: Path) -> None:
    script = [
        "vsbot greedy", "a1", "create other", "join XXXXXXXX", "leave", "board", "who",
        "leave", "resign", "rooms", "history", "quit",
    ]  # fmt: skip
    code, out, err = await plain(server, tmp_path, script, "--name", "bea")
    assert code == 0, err
    assert "error: you are in room bea vs bot (a match is being played): leave it first" in out
    assert "joined room other" not in out
    asks = [line for line in out.splitlines() if line.startswith("leaving now forfeits")]
    # the first leave asks; "board" in between cancels it; the next leave asks again and
    # "resign" confirms it
    assert len(asks) == 2 and asks[0].startswith("leaving now forfeits the match: it counts")
    assert out.count("left room bea vs bot") == 1
    assert out.index("left room bea vs bot") > out.rindex("leaving now forfeits")
    assert "Traceback" not in out + err


async def _rooms(url: str) -> list[dict[str, object]]:
    """The server's public rooms, over its HTTP API (the server runs in this loop)."""
    base = url.replace("ws://", "http://").removesuffix("/ws")
    async with aiohttp.ClientSession() as http, http.get(base + "/api/rooms") as reply:
        data = await reply.json()
    return list(data.get("rooms", []) if isinstance(data, dict) else data)


async def _client(url: str, home: Path, name: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "client_cli", "play", "--plain", "--server", url, "--name", name,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, cwd=ROOT, env={**os.environ, "XDG_CONFIG_HOME": str(home)},
    )  # fmt: skip


async def _say(proc: asyncio.subprocess.Process, *lines: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write("".join(line + "\n" for line in lines).encode())
    await proc.stdin.drain()


async def _until(proc: asyncio.subprocess.Process, text: str) -> list[str]:
    """The lines ``proc`` prints, up to the first holding ``text`` (bounded: 20 s)."""
    assert proc.stdout is not None
    seen: list[str] = []
    while not any(text in line for line in seen):
        line = await asyncio.wait_for(proc.stdout.readline(), 20)
        assert line, f"never saw {text!r}: {seen}"
        seen.append(line.decode())
    return seen


async def test_anyone_watches_a_public_rooms_match(server: str, tmp_path: Path) -> None:
    player = await _client(server, tmp_path / "cy", "cy")
    await _say(player, "create open duel", "bot greedy", "start")
    await _until(player, "card 1/16")
    room_id = str((await _rooms(server))[0]["id"])
    watcher = await _client(server, tmp_path / "dee", "dee")
    await _say(watcher, f"watch {room_id}")
    seen = await _until(watcher, "watching room")
    assert "watching room open duel: progress as it comes" in seen[-1]
    # now the cards go down, the watcher waiting for the result
    await _say(watcher, "who", "wait", "quit")
    await _say(player, *ROW_BY_ROW, "wait", "quit")
    out_b, err_b = await asyncio.wait_for(watcher.communicate(), 45)
    await asyncio.wait_for(player.communicate(), 45)
    out, err = "".join(seen) + out_b.decode(), err_b.decode()
    assert watcher.returncode == 0 and player.returncode == 0, err
    assert "  cy: thinking" in out or "  cy: placed" in out  # who: the players, not the watcher
    assert "board of cy: rank" in out and "board of greedy bot" in out
    assert "deal verified" in out
    assert "Traceback" not in out + err
