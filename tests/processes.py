"""The processes a test run started, read from /proc (Linux; elsewhere nothing is found).

Used by the session-end check in tests/conftest.py, which fails the run if any
process started by the tests outlives them, and by the tests that kill a server
and check that nothing it started lives on.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


@dataclass(frozen=True, slots=True)
class Process:
    pid: int
    ppid: int
    cwd: str
    cmdline: str


def _read(pid: int) -> Process | None:
    base = PROC / str(pid)
    try:
        stat = (base / "stat").read_text()
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        state, ppid_text = stat.rsplit(")", 1)[1].split()[:2]
        if state in ("Z", "X"):  # ended, not yet reaped by its parent
            return None
        ppid = int(ppid_text)
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


def of_checkout(root: Path) -> list[Process]:
    """Processes run from this checkout: its interpreter, or working in it."""
    here = str(root)
    mine = []
    for p in all_processes():
        if p.pid == os.getpid():
            continue
        if p.cwd == here or p.cwd.startswith(here + os.sep) or p.cmdline.startswith(here + os.sep):
            mine.append(p)
    return mine


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
