"""What one step of a room decided, in one value.

Every entry point of a room (a command, a tick, a connection change, the
lobby's start, a bot's move, a lifted embargo, a round's clock) returns one
:class:`RoomResult`: the messages to send, the events to store before any of
them goes out, and the bot seats' turns to think about. The lobby takes the
whole value as it settles the room (server/lobby.py); nothing of a step stays
in the room for the next one.

Inside a step the room's layers return their messages and note their events
and bots' turns as they go; :func:`step` wraps an entry point so that what it
noted leaves with its messages. A step a bug cuts short leaves what it had
noted in the room: :meth:`Concluding.conclude` hands it over (the lobby's tick
does, so that a broken room's decisions are stored all the same).

This module must never await, read a clock, or touch sockets or the database.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from server.events import Event
from server.room.outbound import Outbound
from server.room.state import BotTurn


@dataclass(slots=True)
class RoomResult:
    """One room step's messages, events and bots' turns, in the order decided."""

    messages: list[Outbound] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)  # to store before the messages go
    bot_turns: list[BotTurn] = field(default_factory=list)  # to think about once stored

    def __iadd__(self, other: RoomResult) -> RoomResult:
        """``other`` after this one (two steps of the same room, in that order)."""
        self.messages += other.messages
        self.events += other.events
        self.bot_turns += other.bot_turns
        return self


class Concluding(Protocol):
    def conclude(self, messages: list[Outbound]) -> RoomResult: ...


R = TypeVar("R", bound=Concluding)
P = ParamSpec("P")


def step(
    method: Callable[Concatenate[R, P], list[Outbound]],
) -> Callable[Concatenate[R, P], RoomResult]:
    """An entry point of a room: its messages and everything it noted, as one result."""

    @functools.wraps(method)
    def run(room: R, /, *args: P.args, **kwargs: P.kwargs) -> RoomResult:
        return room.conclude(method(room, *args, **kwargs))

    return run
