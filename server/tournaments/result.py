"""What one step of a tournament director decided, in one value.

Every entry point of a :class:`~server.tournaments.director.Director` (a
command, a tick, what its tables report, its tables opened, a restart's catch
up) returns one :class:`DirectorResult`: the messages to send, the events to
store (its state's snapshot last, when it is due) and its requests of the
tables' rooms. The tournaments' desk (server/tournaments/hosting.py) takes the
whole value as it carries out the step; nothing of a step stays in the
director for the next one.

This module must never await, read a clock, or touch sockets or the database.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from server.events import Event
from server.room import Outbound
from server.tournaments.model import Request


@dataclass(slots=True)
class DirectorResult:
    """One director step's messages, events and requests, in the order decided."""

    messages: list[Outbound] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)  # to store before the messages go
    requests: list[Request] = field(default_factory=list)  # of its tables' rooms, in order
