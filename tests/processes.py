"""The processes a test run started, read from /proc (Linux; elsewhere nothing is found).

Used by the session-end check in tests/conftest.py, which fails the run if any
process started by the tests outlives them, and by the tests that kill a server
and check that nothing it started lives on.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
# The variable a test run marks the environment of every process it starts with (tests/reaper.py).
MARK = "CRIBSQUARES_TEST_RUN"


@dataclass(frozen=True, slots=True)
class Process:
    pid: int
    ppid: int
    cwd: str
    cmdline: str


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command's name (from the state on:
    ``[state, ppid, ...]``), or None for a process gone or ended (not yet reaped)."""
    try:
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if not fields or fields[0] in ("Z", "X") else fields


def _read(pid: int) -> Process | None:
    base = PROC / str(pid)
    stat = _stat(pid)
    if stat is None:
        return None
    try:
        ppid = int(stat[1])
        cmdline = (base / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        cwd = os.readlink(base / "cwd")
    except (OSError, ValueError, IndexError):
        return None  # gone meanwhile, or not ours to read
    return Process(pid, ppid, cwd, cmdline.strip())


def all_processes() -> list[Process]:
    if not PROC.is_dir():
        return []
    found = []
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            process = _read(int(entry.name))
            if process is not None:
                found.append(process)
    return found


def descendants(pid: int) -> list[Process]:
    """Every living process below ``pid`` (children, their children, ...)."""
    processes = all_processes()
    below: list[Process] = []
    parents = {pid}
    grew = True
    while grew:
        grew = False
        for p in processes:
            if p.ppid in parents and p.pid not in parents:
                parents.add(p.pid)
                below.append(p)
                grew = True
    return below


def gone(pids: set[int], timeout: float) -> set[int]:
    """Wait up to ``timeout`` seconds for ``pids`` to end; the ones still alive."""
    deadline = time.monotonic() + timeout
    alive = set(pids)
    while alive:
        alive = {pid for pid in alive if _read(pid) is not None}
        if not alive or time.monotonic() >= deadline:
            break
        time.sleep(0.05)
    return alive


def started_at(pid: int) -> str | None:
    """The start time of ``pid`` (to tell it from a later process given the same pid)."""
    stat = _stat(pid)
    return None if stat is None else stat[19]  # field 22 of proc(5): starttime


def marked(mark: str) -> list[int]:
    """The living processes whose environment carries ``MARK=mark``."""
    needle = f"{MARK}={mark}".encode()
    found = []
    for entry in PROC.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue  # gone meanwhile, or not ours to read
        if needle in environ.split(b"\0") and started_at(int(entry.name)) is not None:
            found.append(int(entry.name))
    return found


def family(pid: int) -> dict[int, str]:
    """Every living process below ``pid``, by pid, with its start time (stat only: cheap
    enough to ask several times a second)."""
    parents: dict[int, list[tuple[int, str]]] = {}
    for entry in PROC.iterdir():
        fields = _stat(int(entry.name)) if entry.name.isdigit() else None
        if fields is not None:
            parents.setdefault(int(fields[1]), []).append((int(entry.name), fields[19]))
    below: dict[int, str] = {}
    todo = [pid]
    while todo:
        for child, started in parents.get(todo.pop(), []):
            if child not in below:
                below[child] = started
                todo.append(child)
    return below


def kill_all(known: dict[int, str], mark: str | None, rounds: int = 50) -> list[int]:
    """SIGKILL every process of ``known`` (pid: start time, so that a pid used again
    by another process is spared) that still runs, with whatever it started, and every
    process whose environment carries ``MARK=mark``; again until none is left."""
    killed: list[int] = []
    for _ in range(rounds):
        left = {pid for pid, started in known.items() if started_at(pid) == started}
        for pid in list(left):
            left |= set(family(pid))
        if mark is not None:
            left |= set(marked(mark))
        left.discard(os.getpid())  # the reaper is below the run it watches
        if not left:
            break
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except OSError:
                pass
        known = {**known, **{pid: s for pid in left if (s := started_at(pid)) is not None}}
        time.sleep(0.1)
    return killed
