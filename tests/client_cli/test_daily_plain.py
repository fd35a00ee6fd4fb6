"""``--plain``'s daily deal as a script would use it: look, play, refuse a second
attempt, and the next day analyse yesterday's board against the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.client_cli.test_play_plain import ROW_BY_ROW, plain
from tests.server.live import running_server, signed_in
from tests.server.test_embargo_sweep import DAY_MS, Calendar

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


async def test_a_script_plays_the_daily_deal_and_analyses_it_the_next_day(
    tmp_path: Path,
) -> None:
    calendar = Calendar()
    async with running_server(tmp_path / "d.db", daily_calendar=calendar) as live:
        ann = await signed_in(live, "ann")
        await ann.send(type="play_daily", pace="race", deal_clock_ms=600_000)
        await ann.play_to_end((await ann.until("room_state"))["room"]["id"], pick=4)
        await ann.close()
        script = ["daily", "daily play --pace race --clock 9999", "daily play --pace race"]
        script += [*ROW_BY_ROW, "wait", "daily", "daily play", "quit"]
        code, out, err = await plain(live.url, tmp_path, script, "--name", "piper")
        assert code == 0, err
        assert "Daily deal 2024-10-04  open today" in out
        assert "not played  (daily play)" in out and "1 played, 1 finished" in out
        assert "deal_clock_ms" in out  # 9999 s is refused before it is sent
        assert "joined room daily deal 2024-10-04" in out
        assert sum(line.startswith("placed ") for line in out.splitlines()) == 16
        assert "2 played, 2 finished" in out and "← you" in out
        assert "refused: you have begun today's deal (2024-10-04) already" in out
        assert "the deal:" not in out  # nothing of the cards before midnight
        calendar.ms += DAY_MS
        code, out, err = await plain(
            live.url, tmp_path, ["daily", "daily analyze yesterday", "daily schedule", "quit"]
        )
        assert code == 0, err
        assert "Daily deal 2024-10-05  open today" in out and "streak 1 day" in out
        assert "Daily deal 2024-10-04  over: its deal is revealed" in out
        assert "ok: the secret's SHA-256 is the day's commitment" in out
        assert "ok: room_seed(secret, [2024-10-04]) deals these cards" in out
        assert "FAILED" not in out
        assert "you lost" in out and "to the hindsight best" in out
        assert "where the field put it" in out
        assert "  secret      " in out  # yesterday's secret in the schedule
        assert "Traceback" not in out + err
