"""A room's phases, the table of which phase may follow which, and the table of
which command each phase allows (as h11 keeps its states and events in one place)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel

from protocol.deals import Place
from protocol.rooms import AddBot, JoinRoom, Ready, Rematch, StartMatch
from server import errors


class Phase(StrEnum):
    WAITING = "waiting"
    PLAYING = "playing"
    BETWEEN = "between"  # between two deals of a series (the wire says "playing")
    FINISHED = "finished"


# Every phase change goes through Room.go, which checks this table.
TRANSITIONS: dict[Phase, frozenset[Phase]] = {
    Phase.WAITING: frozenset({Phase.PLAYING}),
    Phase.PLAYING: frozenset({Phase.BETWEEN, Phase.FINISHED}),
    Phase.BETWEEN: frozenset({Phase.PLAYING, Phase.FINISHED}),
    Phase.FINISHED: frozenset({Phase.PLAYING}),  # a rematch
}


@dataclass(frozen=True, slots=True)
class Allowed:
    """The phases a command may be played in, and its refusal in any other."""

    phases: frozenset[Phase]
    refusal: type[errors.RoomError]
    reason: str


# A command not listed (leave_room, resync) is allowed in every phase. JoinRoom
# here is taking a seat: a member may come back, and anyone may watch, at any time.
_STARTED = Allowed(frozenset({Phase.WAITING}), errors.RoomStarted, "the match has already started")
COMMANDS: dict[type[BaseModel], Allowed] = {
    JoinRoom: Allowed(
        frozenset({Phase.WAITING}), errors.RoomStarted, "the match has started: join as a spectator"
    ),
    Ready: _STARTED,
    StartMatch: _STARTED,
    AddBot: _STARTED,
    Place: Allowed(
        frozenset({Phase.PLAYING}), errors.NotPlaying, "no match is being played in this room"
    ),
    Rematch: Allowed(
        frozenset({Phase.FINISHED}),
        errors.SeriesNotOver,
        "a rematch can be offered once the match is over",
    ),
}


def require(phase: Phase, command: type[BaseModel]) -> None:
    """Refuse ``command`` in ``phase`` (its RoomError) unless the table allows it."""
    allowed = COMMANDS.get(command)
    if allowed is not None and phase not in allowed.phases:
        raise allowed.refusal(allowed.reason)
