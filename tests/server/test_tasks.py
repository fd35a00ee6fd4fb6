"""server.shell.tasks.halt: a task that drops a cancellation is still stopped.

The dropping is what Python 3.11's ``asyncio.wait_for`` does when the cancellation
arrives as the awaited operation completes; the task here drops its first one
on purpose, so the test does not depend on that race."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest

from server.shell.tasks import halt


async def stubborn(dropped: list[int]) -> None:
    """A loop that swallows the first cancellation it gets, as a task did
    through redis-py's commands on Python 3.11."""
    while True:
        try:
            await asyncio.sleep(0.01)
        except asyncio.CancelledError:
            if dropped:
                raise
            dropped.append(1)


async def test_one_cancel_is_not_enough_for_a_task_that_drops_it() -> None:
    dropped: list[int] = []
    task = asyncio.create_task(stubborn(dropped))
    await asyncio.sleep(0.02)
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=0.2)
    assert not done and dropped == [1]  # what ``cancel(); await task`` met
    await halt(task, within=2)
    assert task.cancelled()


async def test_halt_stops_it_at_once() -> None:
    dropped: list[int] = []
    task = asyncio.create_task(stubborn(dropped))
    await asyncio.sleep(0.02)
    loop = asyncio.get_running_loop()
    started = loop.time()
    await halt(task, None, within=2)
    assert task.cancelled() and dropped == [1]
    assert loop.time() - started < 1.0


async def test_a_task_that_never_ends_is_given_up_on_and_named(
    caplog: pytest.LogCaptureFixture,
) -> None:
    stop = asyncio.Event()

    async def deaf() -> None:
        while not stop.is_set():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0.01)

    task = asyncio.create_task(deaf(), name="deaf")
    await asyncio.sleep(0.02)  # started: a task cancelled before it runs never does
    with caplog.at_level(logging.WARNING, logger="server.shell.tasks"):
        await halt(task, within=0.2)
    assert not task.done()
    assert "deaf" in caplog.text
    stop.set()
    await asyncio.wait_for(task, 1)


async def test_an_exception_a_task_ended_with_is_logged_not_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken() -> None:
        raise ValueError("boom")

    task = asyncio.create_task(broken(), name="broken")
    await asyncio.sleep(0)
    with caplog.at_level(logging.ERROR, logger="server.shell.tasks"):
        await halt(task)
    assert "broken" in caplog.text and "boom" in caplog.text
