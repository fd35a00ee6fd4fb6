"""``cribsquares tournament export`` shows a hostile server's CSV with its control
characters escaped (ESC, BEL: they would retitle the window or ring), as
``tournament list`` does; a file given with ``--output`` gets the bytes as sent."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from aiohttp import web

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]

HOSTILE = b"rank,player\r\n1,\x1b]0;pwned\x07evil\x1b[2J\r\n"


async def cli(*argv: str) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if k != "CRIBSQUARES_SERVER"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "client_cli", *argv, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_the_export_is_escaped_on_the_terminal(tmp_path: Path) -> None:
    async def export(request: web.Request) -> web.Response:
        return web.Response(body=HOSTILE, content_type="text/csv")

    app = web.Application()
    app.router.add_get("/api/tournaments/{tid}/export", export)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        server = f"ws://127.0.0.1:{port}/ws"
        code, out, err = await cli("tournament", "export", "T1", "--server", server)
        assert code == 0, err
        assert "\x1b" not in out and "\x07" not in out
        assert "\\x1b]0;pwned\\x07evil\\x1b[2J" in out
        target = tmp_path / "standings.csv"
        code, out, err = await cli(
            "tournament", "export", "T1", "--server", server, "--output", str(target)
        )
        assert code == 0 and target.read_bytes() == HOSTILE, err
    finally:
        await runner.cleanup()
