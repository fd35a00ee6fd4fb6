"""Tournaments in ``cribsquares play --plain`` against a real server: host one,
register, add server bots, start it, play the round's table, read the standings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from server.config import ServerConfig
from server.shell.app import create_app
from tests.client_cli.test_play_plain import ROW_BY_ROW, plain

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[str]:
    config = ServerConfig(
        port=0, db_path=str(tmp_path / "server.db"), tick_ms=50, between_rounds_ms=300
    )
    runner = web.AppRunner(create_app(config), handle_signals=False, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        yield f"ws://127.0.0.1:{runner.addresses[0][1]}/ws"
    finally:
        await runner.cleanup()


async def test_a_script_hosts_a_duplicate_field_plays_both_deals_and_reads_the_standings(
    server: str, tmp_path: Path
) -> None:
    script = [
        "tournaments", "formats", "host Long one --best-of 3",
        "host Friday field --rounds 2 --clock 20",
    ]  # fmt: skip
    code, out, err = await plain(server, tmp_path, [*script, "quit"], "--name", "hostess")
    assert code == 0, err
    assert "no public tournaments" in out
    # The formats as the server offers them, and its refusal of what one does not.
    assert "duplicate: duplicate field; --rounds counts deals; one deal a table" in out
    assert "knockout: knockout; its rounds follow from its field; --best-of 1 or 3 or 5" in out
    assert "refused: a duplicate tournament's tables play one deal: best_of is 1" in out
    tid = out.split("you host Friday field (")[1].split(")")[0]

    deal = [*ROW_BY_ROW, "wait"]
    script = [
        "tournaments", f"register {tid}", f"addbots {tid} 2", f"manage {tid} start",
        *deal, f"tournament {tid}", *deal, f"tournament {tid}", "withdraw nosuch", "quit",
    ]  # fmt: skip
    code, out, err = await plain(server, tmp_path, script, "--name", "hostess")
    assert code == 0, err
    assert "Traceback" not in out + err
    assert f"tournament {tid}: Friday field, duplicate field, lockstep, 2 deals, 0/64" in out
    assert "registered in Friday field: a placement or wait waits for your table" in out
    assert "greedy bot 1 [bot], greedy bot 2 [bot] registered in Friday field" in out
    assert "Friday field has started" in out and "round 1 of 2 begins" in out
    assert sum(line.startswith("placed ") for line in out.splitlines()) == 32
    assert out.count("deal verified") == 2
    # Once each round is over, its secret shows the table's deal came from it.
    assert out.count("your table's deals come from the round's revealed secret") == 2
    assert "round 2 of 2 begins" in out
    first, second = out.split("Friday field (" + tid + "): duplicate field, 2 deals")[1:3]
    # the next round began at once (300 ms between rounds on this server)
    assert "your table: round 2, table 1 (alone: the duplicate deal): playing" in first
    assert "standings:" in first and "hostess (you): " in first and "greedy bot 2 [bot]" in first
    assert "Deals 1" in first and "MP % " in first  # the figures as the server titles them
    assert "over: 2 rounds played; " in second and "Deals 2" in second
    assert "your table: round 2, table 1 (alone: the duplicate deal): finished" in second
    ends = out.index("round 2 is over"), out.index("Friday field is over")
    assert ends[0] < ends[1] and "you finished #" in out
    assert "won the series" not in out  # a table of one has no series to speak of
    assert "refused: no tournament nosuch" in out and "error: no tournament" not in out
