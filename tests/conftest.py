"""Session-wide checks: nothing the tests started may outlive them.

At the end of the run every process this run started (below it, or
orphaned: run from this checkout's interpreter or working in it, its parent
gone; or running in the directory of a service the tests started,
tests/services) that was not there at the start must have ended; one that lives on
fails the run, named with its command line. The only exception is
multiprocessing's resource tracker of the test process itself, which ends
with it (its pipe closes when the test process exits). The processes of
another run in the same checkout, still living, are that run's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import services
from tests.processes import Process, descendants, gone, of_checkout

ROOT = Path(__file__).resolve().parents[1]
SETTLE_S = 10.0  # how long processes being stopped get to end before they count

_before: set[int] = set()


def pytest_sessionstart(session: pytest.Session) -> None:
    _before.update(p.pid for p in of_checkout(ROOT))


def _ends_with_us(p: Process) -> bool:
    import os

    return p.ppid == os.getpid() and "multiprocessing.resource_tracker" in p.cmdline


def _ours(p: Process, mine: set[int], checkout: set[int]) -> bool:
    """Started by this run: below it, or orphaned (its parent gone). A process whose
    parent is another living process of the checkout (another test run's) is not."""
    return p.pid in mine or p.ppid not in checkout


def leftovers() -> list[Process]:
    import os

    processes = of_checkout(ROOT)
    mine = {p.pid for p in descendants(os.getpid())}
    checkout = {p.pid for p in processes} | {os.getpid()}
    started = [
        p
        for p in processes
        if p.pid not in _before and not _ends_with_us(p) and _ours(p, mine, checkout)
    ]
    # And whatever still runs in a service's directory (tests/services: a database
    # cluster runs as its own user, outside the checkout).
    started += [p for p in services.leftovers() if p.pid not in {q.pid for q in started}]
    alive = gone({p.pid for p in started}, SETTLE_S)
    return [p for p in started if p.pid in alive]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    left = leftovers()
    if not left:
        return
    lines = [f"  pid {p.pid} (parent {p.ppid}): {p.cmdline}" for p in left]
    message = f"{len(left)} process(es) started by the tests outlived them:\n" + "\n".join(lines)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(message, red=True)
    else:
        print(message)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
