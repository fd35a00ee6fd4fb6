"""``cribsquares play --plain`` as a script would use it: commands piped to stdin."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from server.config import ServerConfig
from server.shell.app import create_app

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]
ROOT = Path(__file__).resolve().parents[2]
ROW_BY_ROW = [f"{col}{row}" for row in "1234" for col in "abcd"]  # always legal


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[str]:
    app = create_app(ServerConfig(port=0, db_path=str(tmp_path / "server.db"), tick_ms=50))
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        yield f"ws://127.0.0.1:{runner.addresses[0][1]}/ws"
    finally:
        await runner.cleanup()


async def plain(url: str, home: Path, script: list[str], *args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "client_cli", "play", "--plain", "--server", url, *args,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, cwd=ROOT,
        env={**os.environ, "XDG_CONFIG_HOME": str(home)},
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate("\n".join(script).encode() + b"\n"), 45)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_a_piped_script_plays_a_solo_match(server: str, tmp_path: Path) -> None:
    script = ["help", "rooms", "create solo --seats 1", "start", "b9", "a1", "d4", "board"]
    script += ROW_BY_ROW[1:]
    script += ["wait", "history", "leave", "quit"]
    code, out, err = await plain(server, tmp_path, script, "--name", "piper")
    assert code == 0, err
    assert "signed in as piper" in out
    assert "no open rooms" in out
    assert "joined room solo" in out
    assert "unknown cell 'b9'" in out
    assert "refused: cell d4 does not touch a placed card" in out
    assert sum(line.startswith("placed ") for line in out.splitlines()) == 16
    assert "deal verified" in out
    assert "board of piper (you): rank 1" in out
    assert "col d" in out and "total" in out
    assert "match " in out.split("deal verified")[-1]  # the history lists it
    assert "Traceback" not in out + err

    # the token was kept: the next start signs in without a name
    code, out, err = await plain(server, tmp_path, ["history", "quit"])
    assert code == 0, err
    assert "signed in as piper" in out and "1 player" in out


async def test_errors_are_lines_not_tracebacks(server: str, tmp_path: Path) -> None:
    code, out, err = await plain(server, tmp_path, ["ready", "frobnicate", "create x --seats 9",
                                                    "join nosuchroom", "a1", "quit"],
                                 "--name", "oops")  # fmt: skip
    assert code == 0, err
    assert "you are not in a room" in out
    assert "unknown command 'frobnicate'" in out
    assert "seats" in out and "less than or equal to 8" in out
    assert "refused: no room" in out
    assert "Traceback" not in out + err

    code, out, err = await plain("ws://127.0.0.1:9/ws", tmp_path, ["quit"], "--name", "x")
    assert code == 1 and "cannot reach" in out and "Traceback" not in out + err


async def test_rooms_are_listed_a_page_at_a_time(tmp_path: Path) -> None:
    from tests.server.live import running_server, signed_in

    async with running_server(tmp_path / "p.db", max_waiting_rooms_per_address=0,
                              max_open_rooms_per_address=0) as live:  # fmt: skip
        hosts = [await signed_in(live, f"host{n}", guest=True) for n in range(11)]
        for n in range(55):
            await hosts[n % 11].send(type="create_room", name=f"table {n}")
            await hosts[n % 11].until("room_state")
        code, out, err = await plain(live.url, tmp_path, ["rooms", "rooms more", "rooms more",
                                                          "quit"], "--guest")  # fmt: skip
        for host in hosts:
            await host.close()
    assert code == 0, err
    listed = [line for line in out.splitlines() if line.startswith("room ")]
    assert len(listed) == 55 and "table 0," in listed[0] and "table 54," in listed[-1]
    assert "50 of 55 open rooms: 'rooms more' for the next ones" in out
    assert "no more rooms: that was the last page" in out
