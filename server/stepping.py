"""An entry point of one of the core's state machines: one step, one result.

A room (server/room) and a tournament director (server/tournaments) note what a
step decides besides its messages (events for storage, bots' turns, requests)
as the step runs; :func:`step` wraps each of their entry points so that what it
noted leaves with its messages as one value, built by the machine's
``conclude``. Nothing of a step stays in the machine for the next one. A
command refused (a :class:`server.errors.RoomError`) changes nothing: a machine
validates before it changes anything. A step a bug cuts short leaves what it
had noted: the caller takes it with ``conclude([])`` (the lobby's and the
tournaments' ticks do, and the lobby does for any step that fails), so that it
is stored all the same.

The time is an argument of every entry point (``now_ms``), handed down to what
needs it; a machine keeps no clock of its own. The one trace of it is in the
scratch of the step being run: :func:`step` puts the step's time in
``step_at`` beside what the step notes, for ``conclude`` (a director's snapshot
is stamped with it, and a step a bug cut short is settled at its time), and
``conclude`` clears it with the notes, so that between steps it is None.

This module must never await, read a clock, or touch sockets or the database.
"""

from __future__ import annotations

import functools
import inspect
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
        names = list(inspect.signature(method).parameters)
        if "now_ms" not in names:
            raise TypeError(f"{method.__qualname__}: an entry point takes the time, now_ms")
        at = names.index("now_ms") - 1  # its place among the arguments after the machine

        @functools.wraps(method)
        def run(machine: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
            machine.step_at = kwargs["now_ms"] if "now_ms" in kwargs else args[at]
            try:
                messages = method(machine, *args, **kwargs)
            except errors.RoomError:  # refused: nothing changed, nothing noted
                machine.step_at = None
                raise
            concluded: R = machine.conclude(messages)
            return concluded

        return run

    return entry_point
