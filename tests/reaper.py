"""Nothing a test run started outlives it, even a run killed with SIGKILL.

A pytest plugin (the root conftest loads it). When a run begins, its main
process (not an xdist worker) puts a mark of its own in the environment,
``CRIBSQUARES_TEST_RUN=<random>``, which every process started from then on
inherits: the xdist workers, the servers the tests start, PostgreSQL (pg_ctl
passes its environment on, through runuser), Redis, nginx, Chromium and the
processes these start in turn (a process may overwrite its environment with its
title, as Redis, PostgreSQL and nginx do: the mark is not all). The main process
becomes a child subreaper (prctl), so that a daemon a test starts (PostgreSQL
forks away from pg_ctl) stays below it. It also starts a reaper: a small
process in a session of its own, without the mark, that notes every process
below the run's main process a few times a second and, once that process has
ended however it ended, kills (SIGKILL) every process it noted that still runs,
whatever those started, and every process whose environment carries the mark,
until none is left (a process started in the last fifth of a second before a
SIGKILL may be missed if it also hid the mark).

A run that ends normally has stopped everything itself (tests/conftest.py
fails it otherwise) and the reaper finds nothing. A killed run's processes
are gone within a second or two of it. Linux only (it reads /proc); elsewhere
nothing is started.

Run as ``python -m tests.reaper PID MARK`` by the plugin, never by hand.
"""

from __future__ import annotations

import ctypes
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.processes import MARK, PROC, family, kill_all, started_at

POLL_S = 0.2
PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def watch(pid: int, mark: str) -> None:
    """Note every process below ``pid`` while it lives; once it has ended, kill what
    of them still runs, and whatever carries the mark."""
    started = started_at(pid)
    seen: dict[int, str] = {}
    while started is not None and started_at(pid) == started:
        seen.update(family(pid))
        time.sleep(POLL_S)
    kill_all(seen, mark)


def become_subreaper() -> None:
    """Orphans of this process's descendants (a daemon that forked away from its
    parent: PostgreSQL under pg_ctl) become its children instead of init's, so that
    they stay below it, where the reaper sees them. Linux's prctl; elsewhere nothing."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or not PROC.is_dir() or MARK in os.environ:
        return  # an xdist worker, or not Linux, or a run inside a run (its reaper stands)
    mark = secrets.token_hex(8)
    root = Path(__file__).resolve().parents[1]
    environment = {k: v for k, v in os.environ.items() if k != MARK}
    subprocess.Popen(
        [sys.executable, "-m", "tests.reaper", str(os.getpid()), mark],
        cwd="/",
        env={**environment, "PYTHONPATH": str(root)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # not in pytest's process group: a ^C there spares it
    )
    os.environ[MARK] = mark
    become_subreaper()


if __name__ == "__main__":
    watch(int(sys.argv[1]), sys.argv[2])
