"""Nothing the server starts outlives it: its bot workers and multiprocessing's
resource tracker end when the server process ends, SIGKILL included."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from tests.processes import descendants, gone
from tests.server.live import server_process, signed_in

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(90),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]


async def bots_thinking(live) -> None:  # type: ignore[no-untyped-def]
    """A room with an expert bot, played until the bot has placed: the pool is running."""
    alice = await signed_in(live, "alice")
    await alice.send(type="create_room", name="against the bot", seats=2)
    room_id = (await alice.until("room_state"))["room"]["id"]
    await alice.send(type="add_bot", room_id=room_id, strategy="expert")
    await alice.send(type="ready", room_id=room_id)
    while True:
        progress = await alice.until("progress", timeout=30)
        if any(n >= 1 for pid, n in progress["placed"].items() if pid.startswith("bot-")):
            break
    await alice.close()


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
async def test_bot_workers_and_the_resource_tracker_end_with_the_server(
    tmp_path: Path, sig: signal.Signals
) -> None:
    with server_process(tmp_path / "o.db") as (process, live):
        await bots_thinking(live)
        below = descendants(process.pid)
        commands = " ".join(p.cmdline for p in below)
        assert "multiprocessing.spawn" in commands, commands  # a bot worker
        assert "resource_tracker" in commands, commands
        process.send_signal(sig)
        process.wait(timeout=30)
        assert gone({p.pid for p in below}, timeout=10) == set(), below
