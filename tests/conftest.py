"""Session-wide rules: which tests are slow, and nothing the tests started may outlive them.

The fast tier is ``pytest -m "not slow"``. A test is ``slow`` when it starts
processes, kills them, drives Chromium or tmux, needs PostgreSQL, Redis or
nginx, or takes over a second of real time (real sockets and clocks). Modules
and tests mark themselves; what follows from a test's place or fixtures is
marked here: everything in tests/web (Chromium) and tests/server/cluster
(nodes as processes on PostgreSQL and Redis), every test using one of
SLOW_FIXTURES, and the PostgreSQL half of the tests run on both stores.

Every process started during a run carries its mark in the environment, and
stays below the run's main process, its subreaper (tests/reaper.py, which also
kills them all if the run itself is killed). At the end of the run, in its main
process (after every xdist worker has ended), each process below it or still
carrying the mark must end within SETTLE_S; one that lives on fails the run,
named with its command line. So must whatever still runs in the directory of a
service the main process started (tests/services). The only exceptions are
multiprocessing's resource tracker of the main process and the reaper, which
end with it.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path

import pytest

from protocol.wire import readable
from tests import services
from tests.processes import MARK, Process, all_processes, family, gone, marked

pytest_plugins = ["tests.reaper"]

SETTLE_S = 10.0  # how long processes being stopped get to end before they count
TESTS = Path(__file__).resolve().parent
SLOW_FOLDERS = (TESTS / "web", TESTS / "server" / "cluster")
SLOW_FIXTURES = {"browser", "postgres_cluster", "redis_session", "redis_url", "cluster_db"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(str(item.path))
        params = getattr(getattr(item, "callspec", None), "params", {})
        if (
            any(folder in path.parents for folder in SLOW_FOLDERS)
            or SLOW_FIXTURES & set(getattr(item, "fixturenames", ()))
            or params.get("store") == "postgresql"
        ):
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A report whose text holds a lone surrogate (a fuzz test's failing example, a
    server's reply) cannot cross from an xdist worker: the worker died and the run
    said only INTERNALERROR, hiding the failure and every test after it. Such text
    is escaped here (as the protocol escapes it, protocol.wire.readable), so the
    failure is shown, whole, like any other."""
    report = yield
    if report.longrepr is not None and (text := str(report.longrepr)) != readable(text):
        report.longrepr = readable(text)
    report.sections = [(title, readable(content)) for title, content in report.sections]
    return report


def _ends_with_us(p: Process) -> bool:
    """Multiprocessing's resource tracker of this process, or the reaper watching it."""
    return (p.ppid == os.getpid() and "multiprocessing.resource_tracker" in p.cmdline) or (
        f"-m tests.reaper {os.getpid()} " in p.cmdline
    )


def leftovers() -> list[Process]:
    mark = os.environ.get(MARK)
    ours = set(marked(mark)) if mark else set()
    ours |= set(family(os.getpid()))  # the daemons too: this process is their subreaper
    started = [p for p in all_processes() if p.pid in ours and not _ends_with_us(p)]
    started += [p for p in services.leftovers() if p.pid not in ours]
    alive = gone({p.pid for p in started}, SETTLE_S)
    return [p for p in started if p.pid in alive]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if hasattr(session.config, "workerinput"):
        return  # a worker: the main process checks once every worker has ended
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
