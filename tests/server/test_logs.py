"""``serve --log-format json``: one JSON object per line, with the ids an event concerns
as fields, and never a token, a seed, a secret or a contribution (issue "Running it for
real", *Logs*)."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.shell.logs import JsonLines
from tests.server.live import running_server, signed_in

pytestmark = pytest.mark.timeout(60)


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.setFormatter(JsonLines())
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def lines() -> Iterator[Lines]:
    handler, root = Lines(), logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def test_a_record_is_one_line_of_json_with_its_ids() -> None:
    try:
        raise RuntimeError("boom\nsecond line")
    except RuntimeError:
        record = logging.LogRecord("server.x", logging.ERROR, __file__, 1, "room %s: %s",
                                   ("r1", "a\nb"), sys.exc_info())  # fmt: skip
    record.room = "r1"
    line = JsonLines().format(record)
    assert "\n" not in line
    data = json.loads(line)
    assert data["level"] == "ERROR" and data["logger"] == "server.x" and data["room"] == "r1"
    assert data["event"] == "room r1: a\nb" and "RuntimeError: boom" in data["exc"]
    assert data["time"].endswith("Z") and len(data["time"]) == len("2026-12-07T11:40:00.123Z")
    assert "match" not in data and "player" not in data


async def test_a_match_and_a_restart_log_ids_never_secrets(tmp_path: Path, lines: Lines) -> None:
    db = tmp_path / "logs.db"
    async with running_server(db) as live:
        alice = await signed_in(live, "alice")
        await alice.send(type="create_room", name="solo", seats=1, card_clock_ms=60_000)
        room_id = (await alice.until("room_state"))["room"]["id"]
        await alice.send(type="ready", room_id=room_id)
        card = await alice.until("card")
        await alice.send(type="place", room_id=room_id, turn=1, cell=card["legal"][0])
        await alice.until("placed")
        await alice.close()
    async with running_server(db) as live:  # resumes her series: an INFO line with ids
        alice_again = await signed_in(live, None, token=alice.token)  # type: ignore[arg-type]
        you = (await alice_again.until("room_state"))["you"]  # her second card, as dealt
        await alice_again.send(type="place", room_id=room_id, turn=you["turn"],
                               cell=you["legal"][0])  # fmt: skip
        result = await alice_again.play_to_end(room_id)
        await alice_again.close()
    parsed = [json.loads(line) for line in lines.lines]
    assert parsed and all({"time", "level", "logger", "event"} <= set(p) for p in parsed)
    resumed = [p for p in parsed if p["event"].startswith("resumed series")]
    assert resumed and resumed[0]["room"] == room_id and resumed[0]["series"]
    text = "\n".join(lines.lines)
    contributions = [c for m in alice.log for c in m.get("contributions") or ()]
    assert contributions  # match_started published them (and no log line may)
    secrets = [alice.token, result["seed"], result["server_secret"], *contributions]
    for secret in secrets:
        assert secret and secret not in text, secret
