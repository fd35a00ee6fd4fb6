"""Bounded waits that say what they waited for.

A test that waits for something (a message, a state, a process to serve)
gives up well before pytest-timeout with a line saying what it waited for and
what it saw last; a process it depends on that died meanwhile is noticed at
once, named, with the last lines of its output.

    await until("the tournament to finish", finished, within=60, watching=nodes)
"""

from __future__ import annotations

import asyncio
import inspect
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

T = TypeVar("T")
EVERY_S = 0.05


@dataclass(frozen=True)
class Watched:
    """A process a wait depends on, and where its output goes (a file, or nothing)."""

    name: str
    process: subprocess.Popen[Any]
    log: Path | None = None

    def death(self) -> str | None:
        """None while it runs; else a paragraph on how it ended and what it said last."""
        code = self.process.poll()
        if code is None:
            return None
        return f"{self.name} (pid {self.process.pid}) ended with {code}{tail(self.log)}"


def tail(log: Path | None, lines: int = 20) -> str:
    if log is None or not log.exists():
        return ""
    last = log.read_text(errors="replace").splitlines()[-lines:]
    return ", its last lines:\n" + "\n".join(f"    {line}" for line in last)


def dead(watching: Iterable[Watched]) -> None:
    """Fail at once if a watched process has ended."""
    for watched in watching:
        death = watched.death()
        if death is not None:
            pytest.fail(f"a process the test needs died: {death}", pytrace=False)


async def until(
    what: str,
    probe: Callable[[], T | Awaitable[T | None] | None],
    *,
    within: float,
    watching: Iterable[Watched] = (),
    every: float = EVERY_S,
) -> T:
    """Call ``probe`` (a function or a coroutine function) until it returns something
    other than None or False, and return that; give up after ``within`` seconds
    saying ``what`` was waited for and what the probe last returned."""
    watching = tuple(watching)
    deadline = time.monotonic() + within
    last: Any = None
    while True:
        dead(watching)
        result = probe()
        if inspect.isawaitable(result):
            result = await result
        if result is not None and result is not False:
            return result  # type: ignore[return-value]
        last = result
        if time.monotonic() >= deadline:
            pytest.fail(f"waited {within:g} s for {what}; last seen: {last!r}", pytrace=False)
        await asyncio.sleep(every)


async def bounded(what: str, step: Awaitable[T], *, within: float) -> T:
    """``step``, given ``within`` seconds; else a failure saying ``what`` it was."""
    try:
        return await asyncio.wait_for(step, within)
    except TimeoutError:
        pytest.fail(f"waited {within:g} s for {what}", pytrace=False)
