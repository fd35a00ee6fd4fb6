"""A room's phases, the table of which phase may follow which, and the table of
which command each phase allows (as h11 keeps its states and events in one place)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel

from protocol.deals import Place
from protocol.rooms import AddBot, JoinRoom, LeaveRoom, Ready, Rematch, Resync, StartMatch
from server import errors


class Phase(StrEnum):
    WAITING = "waiting"
    PLAYING = "playing"
    BETWEEN = "between"  # between two deals of a series (the wire says "playing")
    FINISHED = "finished"


# Every phase change goes through Room.go, which checks this table; a restart too.
TRANSITIONS: dict[Phase, frozenset[Phase]] = {
    Phase.WAITING: frozenset({Phase.PLAYING}),
    Phase.PLAYING: frozenset({Phase.BETWEEN, Phase.FINISHED}),
    Phase.BETWEEN: frozenset({Phase.PLAYING, Phase.FINISHED}),
    Phase.FINISHED: frozenset({Phase.PLAYING}),  # a rematch
}

# The phases a restart takes a room back in (server/room/restore.py): a series
# being played, a deal in play or between two deals. A room built anew (waiting)
# reaches them through the table above (RoomBase.resume_in).
RESUMED: dict[Phase, tuple[Phase, ...]] = {
    Phase.PLAYING: (Phase.PLAYING,),
    Phase.BETWEEN: (Phase.PLAYING, Phase.BETWEEN),
}


@dataclass(frozen=True, slots=True)
class Allowed:
    """The phases a command may be played in, and its refusal in any other."""

    phases: frozenset[Phase]
    refusal: type[errors.RoomError]
    reason: str


# Every room command is listed; one that is not is refused (bad_message). Joining
# is allowed in every phase (a member may come back, and anyone may watch, at any
# time); taking a seat is not (SEAT).
_ANY = Allowed(frozenset(Phase), errors.RoomError, "")
_STARTED = Allowed(frozenset({Phase.WAITING}), errors.RoomStarted, "the match has already started")
SEAT = Allowed(
    frozenset({Phase.WAITING}), errors.RoomStarted, "the match has started: join as a spectator"
)
COMMANDS: dict[type[BaseModel], Allowed] = {
    JoinRoom: _ANY,
    LeaveRoom: _ANY,
    Resync: _ANY,
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
    """Refuse ``command`` in ``phase`` (its RoomError) unless the table allows it; a
    command the table does not list is no room command."""
    allowed = COMMANDS.get(command)
    if allowed is None:
        raise errors.RoomError(f"{command.__name__} is not a room command", code="bad_message")
    allowed_in(phase, allowed)


def allowed_in(phase: Phase, allowed: Allowed) -> None:
    if phase not in allowed.phases:
        raise allowed.refusal(allowed.reason)
