"""What a desk asks of the lobby: requests carried out after the desk's step, never
calls back into the lobby while it steps.

A desk of the lobby (head to head: the quick-play queue, the arena and
challenges; the daily deal's desk) does not hold the lobby. Each of its steps
returns a :class:`DeskResult`: the messages it sends, the events it has stored and
the requests it makes, in the order it made them. The lobby carries the requests
out once the desk has returned, one after the other in that order
(``Lobby.carry_out``): the desk's events are stored first, then each request's,
and each request's messages follow the desk's own. So the order of what a step
says and stores does not depend on how deep the calls nest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import BaseModel

from protocol.fields import PlayerInfo
from server.events import Event
from server.room import Outbound, RoomSettings


@dataclass(frozen=True, slots=True)
class OpenHeadToHead:
    """Open a two-seat room for ``first`` and ``second`` (each a person and their
    contribution, or ``second`` a server bot's level), seat both and start it. Each
    person is first told ``notice(player_id, room_id)``, then sent the room's
    snapshot; then comes the start."""

    settings: RoomSettings
    first: tuple[PlayerInfo, str]
    second: tuple[PlayerInfo, str] | str
    notice: Callable[[str, str], BaseModel]


@dataclass(frozen=True, slots=True)
class OpenDailyAttempt:
    """Open ``player``'s attempt at the deal of ``day``: a solo room on the day's
    ``secret``, under its ``embargo``, started at once, its snapshot answering
    ``ref``. Once it is open and settled, the daily desk keeps the attempt and says
    what to store of it (``DailyDesk.opened``)."""

    day: int
    settings: RoomSettings
    player: PlayerInfo
    contribution: str
    secret: str
    embargo: str
    ref: str | None


@dataclass(frozen=True, slots=True)
class LiftEmbargo:
    """Room ``room_id`` (if it is still here) shows what embargo ``group`` held back,
    and is settled."""

    room_id: str
    group: str


Request = OpenHeadToHead | OpenDailyAttempt | LiftEmbargo  # what a desk may ask of the lobby


@dataclass(slots=True)
class DeskResult:
    """One step of a desk: what it sends now, and what it asks the lobby to do next."""

    outs: list[Outbound] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    def add(self, other: DeskResult) -> DeskResult:
        """This result followed by ``other`` (in place; returns itself)."""
        self.outs += other.outs
        self.requests += other.requests
        self.events += other.events
        return self
