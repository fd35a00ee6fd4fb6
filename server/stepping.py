"""An entry point of one of the core's state machines: one step, one result.

A room (server/room) and a tournament director (server/tournaments) note what a
step decides besides its messages (events for storage, bots' turns, requests)
as the step runs; :func:`step` wraps each of their entry points so that what it
noted leaves with its messages as one value, built by the machine's
``conclude``. Nothing of a step stays in the machine for the next one. A
command refused (a :class:`server.errors.RoomError`) changes nothing: a machine
validates before it changes anything, and its clock (``now``, the time of its
latest step, which a step sets first) is set back. A step
a bug cuts short leaves what it had noted: the caller takes it with
``conclude([])`` (the lobby's and the tournaments' ticks do), so that it is
stored all the same.

This module must never await, read a clock, or touch sockets or the database.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

from server import errors

R = TypeVar("R")
P = ParamSpec("P")

Method = Callable[Concatenate[Any, P], Any]  # returns the step's messages


def step(result: type[R]) -> Callable[[Method[P]], Callable[Concatenate[Any, P], R]]:
    """Make a method returning its messages an entry point returning a ``result``:
    its messages and everything it noted (``self.conclude(messages)``)."""

    def entry_point(method: Method[P]) -> Callable[Concatenate[Any, P], R]:
        @functools.wraps(method)
        def run(machine: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
            clock = machine.now
            try:
                messages = method(machine, *args, **kwargs)
            except errors.RoomError:  # refused: nothing changed, the machine's clock neither
                machine.now = clock
                raise
            concluded: R = machine.conclude(messages)
            return concluded

        return run

    return entry_point
