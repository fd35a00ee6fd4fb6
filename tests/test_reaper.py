"""A test run killed with SIGKILL leaves nothing running (tests/reaper.py).

A run of its own (pytest in a subprocess, with the reaper plugin) starts what
the cluster tests start: a cribsquares server process, a PostgreSQL cluster
and a Redis server (each where the machine has it), and a process that left
its parent's session; it writes their pids down and waits. Then it is killed
with SIGKILL, as a CI timeout kills a run: 10 s later none of them may live.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.processes import gone
from tests.reaper import MARK
from tests.services import postgres, redis

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow

INNER = """
import os, subprocess, sys, time
from pathlib import Path
from tests.processes import all_processes
from tests.server.live import server_process
from tests.services import postgres, redis

def test_starts_everything_then_waits(tmp_path):
    pids = Path(os.environ["PIDS"])
    found = []
    with server_process(tmp_path / "db") as (process, live):
        found.append(("cribsquares", process.pid))
        runaway = subprocess.Popen(["sleep", "600"], start_new_session=True)
        found.append(("sleep", runaway.pid))
        if postgres.unavailable() is None:
            held = postgres.cluster(fsync=False)  # held: its generator stops it when dropped
            cluster = held.__enter__()
            ours = [p.pid for p in all_processes() if str(cluster.root) in p.cmdline]
            found += [("postgres", pid) for pid in ours]
        if redis.BINARY is not None:
            server = redis.RedisServer(tmp_path)
            server.start()
            found.append(("redis-server", server.process.pid))
        pids.write_text("\\n".join(f"{what} {pid}" for what, pid in found) + "\\nready\\n")
        time.sleep(600)
"""


def test_a_run_killed_with_sigkill_leaves_nothing_running(tmp_path: Path) -> None:
    (tmp_path / "test_inner.py").write_text(INNER)
    pids = tmp_path / "pids"
    environment = {k: v for k, v in os.environ.items() if k != MARK}  # a run of its own
    run = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "tests.reaper", "-p", "no:cacheprovider",
         "test_inner.py"],
        cwd=tmp_path,
        env={**environment, "PYTHONPATH": str(ROOT), "PIDS": str(pids)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while not (pids.exists() and pids.read_text().endswith("ready\n")):
            if run.poll() is not None:
                out = run.stdout.read() if run.stdout else ""
                pytest.fail(f"the inner run ended before it was ready:\n{out[-3000:]}")
            if time.monotonic() > deadline:
                pytest.fail("the inner run did not say within 90 s that it had started everything")
            time.sleep(0.1)
        lines = pids.read_text().split("\n")[:-2]  # the last two: "ready" and ""
        started = {int(pid): what for what, pid in (line.split() for line in lines)}
        expected = {"cribsquares", "sleep"}
        expected |= {"redis-server"} if redis.BINARY is not None else set()
        expected |= {"postgres"} if postgres.unavailable() is None else set()
        assert set(started.values()) == expected, started
        assert gone(set(started), 0.5) == set(started), "they all run before the kill"
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait()
    alive = gone(set(started), 10.0)
    assert not alive, f"alive 10 s after the run was killed: {[started[p] for p in alive]}"
