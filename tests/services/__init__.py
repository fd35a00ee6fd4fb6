"""Services the tests start for themselves (PostgreSQL, Redis, nginx), each on a
free loopback port in a temporary directory, each stopped when its block ends.

Every service records the directory it runs in (:func:`started_in`); the
session's end (tests/conftest.py) fails the run if a process still runs there
(:func:`leftovers`), since such processes (a PostgreSQL cluster runs as its own
user, in its own directory) are not the checkout's and its own check would
not see them.
"""

from __future__ import annotations

from pathlib import Path

from tests.processes import Process, all_processes

_roots: list[Path] = []


def started_in(root: Path) -> None:
    """A service runs in ``root``: whatever runs there must be gone by the session's end."""
    _roots.append(root)


def leftovers() -> list[Process]:
    """The living processes of every service started in this test run."""
    marks = [str(r) for r in _roots]
    return [p for p in all_processes() if any(m in p.cmdline or p.cwd.startswith(m) for m in marks)]
