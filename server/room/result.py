"""What one step of a room decided, in one value.

Every entry point of a room (a command, a tick, a connection change, the
lobby's start, a bot's move, a lifted embargo, a round's clock) returns one
:class:`RoomResult`: the messages to send, the events to store before any of
them goes out, and the bot seats' turns to think about. The lobby takes the
whole value as it settles the room (server/lobby.py); nothing of a step stays
in the room for the next one.

Inside a step the room's layers return their messages and note their events
and bots' turns as they go; each entry point is wrapped by
``server.stepping.step(RoomResult)``, so that what it noted leaves with its
messages (``Room.conclude``).

This module must never await, read a clock, or touch sockets or the database.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
