"""What a tournament is made of: its settings, phases, entrants, rounds and tables,
and the requests its director makes of the lobby. Plain data and pure rules."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import get_args

from protocol.fields import Pace, PlayerInfo, Visibility
from protocol.tournaments import (
    CreateTournament,
    EntrantStatus,
    Entry,
    HostAction,
    ManageAction,
    TableStatus,
    TournamentFormat,
)
from server import errors
from server.requests import Forfeit, OpenTable, Reveal, StopTable
from server.room import TURNS

ROUND_MARGIN_MS = 60_000  # added to a round's longest possible play for its default clock


class Phase(StrEnum):
    REGISTERING = "registering"
    PLAYING = "playing"  # a round is being played
    BETWEEN = "between"  # between two rounds (the wire says "playing")
    PAUSED = "paused"  # no new round starts; a round being played plays on
    FINISHED = "finished"
    CANCELLED = "cancelled"


TRANSITIONS: dict[Phase, frozenset[Phase]] = {
    Phase.REGISTERING: frozenset({Phase.PLAYING, Phase.CANCELLED}),
    Phase.PLAYING: frozenset({Phase.BETWEEN, Phase.PAUSED, Phase.FINISHED, Phase.CANCELLED}),
    Phase.BETWEEN: frozenset({Phase.PLAYING, Phase.PAUSED, Phase.FINISHED, Phase.CANCELLED}),
    Phase.PAUSED: frozenset({Phase.PLAYING, Phase.BETWEEN, Phase.FINISHED, Phase.CANCELLED}),
    Phase.FINISHED: frozenset(),
    Phase.CANCELLED: frozenset(),
}

# The phases each of a tournament's commands may be played in, and its refusal in
# any other (as the room's table, server/room/phases.py). The director checks a
# command against it where the command's other checks come first (who may send it).
NOT_OVER = frozenset({Phase.REGISTERING, Phase.PLAYING, Phase.BETWEEN, Phase.PAUSED})


@dataclass(frozen=True, slots=True)
class Allowed:
    phases: frozenset[Phase]
    refusal: type[errors.TournamentError]
    reason: str


COMMANDS: dict[str, Allowed] = {
    "register": Allowed(NOT_OVER, errors.RegistrationClosed, "the tournament is over"),
    "bots": Allowed(NOT_OVER, errors.RegistrationClosed, "the tournament is over"),
    "leave": Allowed(NOT_OVER, errors.TournamentState, "the tournament is over"),
    "watch": Allowed(frozenset(Phase), errors.TournamentState, ""),
    "start": Allowed(
        frozenset({Phase.REGISTERING}), errors.TournamentState, "the tournament has already started"
    ),
    "pause": Allowed(
        frozenset({Phase.PLAYING, Phase.BETWEEN}),
        errors.TournamentState,
        "only a running tournament can be paused",
    ),
    "resume": Allowed(
        frozenset({Phase.PAUSED}), errors.TournamentState, "the tournament is not paused"
    ),
    "cancel": Allowed(NOT_OVER, errors.TournamentState, "the tournament is already over"),
    "remove": Allowed(NOT_OVER, errors.TournamentState, "the tournament is over"),
}


def require(phase: Phase, command: str) -> None:
    """Refuse ``command`` in ``phase`` (its TournamentError) unless the table allows it;
    a command the table does not list is no tournament command."""
    allowed = COMMANDS.get(command)
    if allowed is None:
        raise errors.RoomError(f"unknown action {command!r}", code="bad_message")
    if phase not in allowed.phases:
        raise allowed.refusal(allowed.reason)


def registration(phase: Phase, settings: TournamentSettings, begun: int) -> Entry | None:
    """Whether a new entrant may enter now, after ``begun`` rounds: ``open`` (before the
    start), ``next_round`` (a late entry, where the settings allow one and a round is
    left to play) or None (closed: :data:`COMMANDS`, then the settings)."""
    if phase not in COMMANDS["register"].phases:
        return None
    if phase == Phase.REGISTERING:
        return "open"
    return "next_round" if settings.late_join and begun < settings.rounds else None


def host_actions(phase: Phase, settings: TournamentSettings, begun: int) -> list[HostAction]:
    """What the host may do now (the table's manage actions, and adding bots where
    bots may enter and entry is open)."""
    actions: list[HostAction] = [a for a in get_args(ManageAction) if phase in COMMANDS[a].phases]
    if settings.bots and registration(phase, settings, begun) is not None:
        actions.append("add_bots")
    return actions


# How a director built anew (registering) reaches the phase of the snapshot it is
# rebuilt from (Director.restore), through the table above (DirectorBase.resume_in).
# The server stores snapshots only while a tournament is not over; one read back
# over (a copy, a test) comes back over.
RESUMED: dict[Phase, tuple[Phase, ...]] = {
    Phase.REGISTERING: (),
    Phase.PLAYING: (Phase.PLAYING,),
    Phase.BETWEEN: (Phase.PLAYING, Phase.BETWEEN),
    Phase.PAUSED: (Phase.PLAYING, Phase.PAUSED),
    Phase.FINISHED: (Phase.PLAYING, Phase.FINISHED),
    Phase.CANCELLED: (Phase.CANCELLED,),
}


def round_contribution(tournament_id: str, number: int, contributions: Sequence[str]) -> str:
    """The seat contribution of every table of round ``number``: SHA-256 (hex) of
    ``cribsquares/tournament-round/v1`` and the length-prefixed UTF-8 of the
    tournament id, the round number in decimal and each entrant's contribution."""
    h = hashlib.sha256(b"cribsquares/tournament-round/v1")
    for part in (tournament_id, str(number), *contributions):
        data = part.encode("utf-8")
        h.update(len(data).to_bytes(4, "big") + data)
    return h.hexdigest()


def default_round_clock(
    pace: Pace, card_clock_ms: int, deal_clock_ms: int, best_of: int, between_deals_ms: int
) -> int:
    """The longest a round's deals can take at their own clocks, plus a minute."""
    per_deal = TURNS * card_clock_ms if pace == Pace.LOCKSTEP else deal_clock_ms
    return per_deal * best_of + between_deals_ms * (best_of - 1) + ROUND_MARGIN_MS


@dataclass(frozen=True, slots=True)
class TournamentSettings:
    name: str
    format: TournamentFormat
    rounds: int  # duplicate: deals; Swiss: rounds; knockout: set from the bracket at the start
    best_of: int  # deals per table (knockout matches); 1 otherwise
    pace: Pace
    card_clock_ms: int
    deal_clock_ms: int
    round_clock_ms: int
    start_at: int | None  # a scheduled start (ms); None: the host starts it
    max_players: int
    visibility: Visibility
    bots: bool
    late_join: bool
    between_rounds_ms: int
    registered_only: bool = False  # guests may not enter

    @classmethod
    def from_message(
        cls,
        msg: CreateTournament,
        shape: Shape,
        now_ms: int,
        *,
        between_rounds_ms: int,
        between_deals_ms: int,
    ) -> TournamentSettings:
        """The settings of ``msg``, shaped by its format (``shape``: the rounds, the
        deals per table and late entry as the format plays them)."""
        clock = msg.round_clock_ms or default_round_clock(
            msg.pace, msg.card_clock_ms, msg.deal_clock_ms, shape.best_of, between_deals_ms
        )
        return cls(
            name=msg.name,
            format=msg.format,
            rounds=shape.rounds,
            best_of=shape.best_of,
            pace=msg.pace,
            card_clock_ms=msg.card_clock_ms,
            deal_clock_ms=msg.deal_clock_ms,
            round_clock_ms=clock,
            start_at=None if msg.start_in_ms is None else now_ms + msg.start_in_ms,
            max_players=msg.max_players,
            visibility=msg.visibility,
            bots=msg.bots,
            late_join=shape.late_join,
            between_rounds_ms=between_rounds_ms,
            registered_only=msg.registered_only,
        )


@dataclass(frozen=True, slots=True)
class Shape:
    """What a format makes of the host's settings (server.tournaments.formats)."""

    rounds: int  # the rounds it plays (a knockout: its bracket's, from the places)
    best_of: int  # deals per table
    late_join: bool  # whether a player may enter after the start


# ----------------------------------------------------------------------
# The requests a director makes of the lobby (defined in server/requests.py).
Request = OpenTable | StopTable | Forfeit | Reveal


# ----------------------------------------------------------------------
# State


@dataclass(slots=True)
class Entrant:
    player: PlayerInfo
    number: int  # registration order
    contribution: str
    joined_round: int
    strategy: str = ""  # a server bot entrant's strategy
    status: EntrantStatus = EntrantStatus.ACTIVE
    seed: int | None = None
    out_in_round: int | None = None  # knockout: the round it lost (or left) in


@dataclass(slots=True)
class Table:
    number: int
    players: tuple[str, ...]
    room_id: str | None = None
    series_id: str | None = None
    status: TableStatus = TableStatus.PLAYING
    winner: str | None = None
    points: dict[str, int] = field(default_factory=dict)
    deals: list[dict[str, int]] = field(default_factory=list)  # each deal's scores


@dataclass(slots=True)
class Round:
    number: int
    secret: str
    contribution: str
    tables: list[Table]
    started_at: int
    ends_at: int
    finished: bool = False
    stopped: bool = False  # the round clock ran out and its tables were stopped

    def open_tables(self) -> list[Table]:
        return [t for t in self.tables if t.status == TableStatus.PLAYING]
