"""A lobby step's result: everything it decided, in one value.

A step of the lobby (a command, a clock tick, a connection opened or closed) is
run by :meth:`server.lobby.Lobby.run`, which returns one :class:`StepOutput`:
the messages to send, the events to store before any of them goes out, the
bots' turns to think, and, on a cluster, the :class:`SharedNotes` its node
carries to the others. The shell drains that one value in one place
(server/shell/hub.py); nothing of a step is left behind for the next one, and
there is no other list to drain (docs/architecture.md, *One step, one output*).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from server.events import Event
from server.requests import TableRequest, TableResult
from server.room import BotTurn, Outbound, Room


@dataclass(slots=True)
class RoomNotes:
    """The rooms a step opened, closed, re-listed and seated (a cluster's node tells
    the other nodes of them)."""

    opened: list[Room] = field(default_factory=list)
    closed: list[Room] = field(default_factory=list)
    touched: dict[str, Room] = field(default_factory=dict)  # public rooms reindexed
    seated: list[tuple[str, str]] = field(default_factory=list)  # (room id, player id)


@dataclass(slots=True)
class SharedNotes:
    """What a step changed that a cluster's other nodes hear of (server/shell/cluster)."""

    rooms: RoomNotes = field(default_factory=RoomNotes)  # opened, closed, listed, seated
    paired: list[str] = field(default_factory=list)  # rooms quick play opened
    placed: list[str] = field(default_factory=list)  # tournament tables opened, to hand on
    elsewhere: list[TableRequest] = field(default_factory=list)  # for tables on other nodes
    results: list[TableResult] = field(default_factory=list)  # tables' results, to the director
    # Whose wait and which challenges changed (the coordinator copies them to Redis).
    waiting: set[str] = field(default_factory=set)
    challenges: set[str] = field(default_factory=set)


@dataclass(slots=True)
class StepOutput:
    events: list[Event]  # to store, before any of the step's messages is sent
    bot_turns: list[BotTurn]  # to think about, once it is stored
    notes: SharedNotes | None = None  # on a cluster only
    messages: list[Outbound] = field(default_factory=list)  # to send, once stored

    def decided(self) -> bool:
        """Whether the step decided anything besides its messages."""
        return bool(self.events or self.bot_turns or (self.notes and self.notes != SharedNotes()))


class StepFailed(Exception):
    """A step a bug cut short after it had decided something: ``output`` is what it
    decided (no messages: the step returned none), its ``__cause__`` what it raised.
    The shell drains ``output`` as any step's, so that memory and storage agree,
    then handles the cause; nothing of the step is left for the next one."""

    def __init__(self, output: StepOutput) -> None:
        super().__init__("a step failed half done")
        self.output = output
