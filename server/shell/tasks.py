"""Stopping background tasks for sure, and in bounded time.

On Python 3.11, ``asyncio.wait_for`` drops a cancellation that arrives as the
operation it waits for completes (CPython gh-86296, fixed in 3.12 by rewriting it
on ``asyncio.timeout``): the task carries on as if it had never been cancelled.
redis-py's asyncio client waits this way inside its commands, so a loop of Redis
commands cancelled once and awaited ran on for good; tried on loopback, 270 of
300 such cancellations of a ``SCAN`` and ``MGET`` loop were dropped. A node's
stop awaited exactly such loops. :func:`halt` cancels again until the task has
ended, and gives up (saying so) after ``within`` seconds.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

log = logging.getLogger(__name__)

AGAIN_S = 0.05  # how long a cancellation is given before it is sent again


async def halt(*tasks: asyncio.Task[Any] | None, within: float = 5.0) -> None:
    """Cancel ``tasks`` (None is skipped) until each has ended, for at most
    ``within`` seconds; an exception one ended with is logged, not raised. If
    the caller is cancelled meanwhile, the tasks are still cancelled once more."""
    pending = {task for task in tasks if task is not None and not task.done()}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    try:
        while pending:
            for task in pending:
                task.cancel()
            _, pending = await asyncio.wait(pending, timeout=AGAIN_S)
            if pending and loop.time() >= deadline:
                names = ", ".join(sorted(task.get_name() for task in pending))
                log.warning("tasks still running %g s after being cancelled: %s", within, names)
                return
    finally:
        for task in pending:
            task.cancel()
    for ended in tasks:
        if ended is not None and ended.done() and not ended.cancelled():
            error = ended.exception()
            if error is not None:
                log.error("task %s ended with %r", ended.get_name(), error, exc_info=error)
