"""The wire views of a tournament: pure functions of its director's state, changing nothing.

:func:`summary` (a line of the list of tournaments), :func:`info` (the whole
tournament as its members see it), and the rounds and tables in it. A round's
secret is shown only as :mod:`server.visibility` says (once the round is over).

This module must never await, read a clock, or touch sockets or the database.
"""

from __future__ import annotations

import itertools
from typing import Any, Protocol

from engine.deal import commitment
from protocol.fields import PlayerInfo
from protocol.tournaments import (
    EntrantStatus,
    TableStatus,
    TournamentActions,
    TournamentEntrant,
    TournamentFormat,
    TournamentInfo,
    TournamentRound,
    TournamentStanding,
    TournamentSummary,
    TournamentTable,
)
from server import visibility
from server.tournaments.formats import FORMATS
from server.tournaments.formats.base import Field, Format
from server.tournaments.model import COMMANDS, Phase, Round, Table, host_actions, registration


class TournamentData(Field, Protocol):
    """What the views read of a tournament (:class:`server.tournaments.director.Director`
    has it)."""

    host: PlayerInfo
    invite_code: str | None
    phase: Phase
    next_at: int | None
    commitment: str
    format: Format

    def status(self) -> str: ...

    def standings(self, *, shown: bool = False) -> list[TournamentStanding]: ...


def summary(d: TournamentData, now_ms: int) -> TournamentSummary:
    """A line of the list of tournaments."""
    s = d.settings
    starts = None
    if d.phase == Phase.REGISTERING and d.next_at is not None:
        starts = max(0, d.next_at - now_ms)
    return TournamentSummary(
        id=d.id,
        name=s.name,
        format=s.format,
        status=d.status(),
        visibility=s.visibility,
        pace=s.pace,
        rounds=d.format.planned_rounds(d),
        best_of=s.best_of,
        round=len(d.rounds),
        # Everyone in the draw, knocked out or not (as GET /api/tournaments counts).
        entrants=sum(
            1
            for e in d.entrants.values()
            if e.status in (EntrantStatus.ACTIVE, EntrantStatus.ELIMINATED)
        ),
        max_players=s.max_players,
        host=d.host,
        starts_ms=starts,
        registered_only=s.registered_only,
        winners=winners(d.standings()) if d.status() == "finished" else [],
        format_title=d.format.title,
        length=length(d),
    )


def winners(standings: list[TournamentStanding]) -> list[PlayerInfo]:
    """Those ranked first in a finished tournament's standings (more: it is shared)."""
    return [s.player for s in standings if s.rank == 1]


def stored_presentation(
    name: str, settings: dict[str, Any], rounds_played: int, over: bool
) -> dict[str, Any]:
    """How every client shows a tournament as the store has it (the HTTP API's list
    and detail): its format's title, its length in words, its standings' columns. A
    bracket's rounds are known once it is over (the live desk says them before);
    a format no module has (a store a later release wrote) is named as it is."""
    try:
        fmt = FORMATS[TournamentFormat(name)]
    except ValueError:
        return {"format_title": name, "length": "", "columns": []}
    rounds = (rounds_played if over else None) if fmt.has_bracket else settings["rounds"]
    return {
        "format_title": fmt.title,
        "length": fmt.length(rounds, settings["best_of"]),
        "columns": list(fmt.columns),
    }


def stored_summary(row: dict[str, Any]) -> TournamentSummary | None:
    """A line of the list from a tournament as the store lists it
    (``server.storage.tournaments.tournament_page``): one over, or any asked by status.
    None: a format this server does not host (a store a later release wrote), which
    the protocol's list cannot name; the HTTP list shows it as it is."""
    s = row["settings"]
    try:
        fmt = FORMATS[TournamentFormat(row["format"])]
    except ValueError:
        return None
    bracketed = fmt.has_bracket  # its rounds follow from its bracket
    shown = stored_presentation(row["format"], s, row["rounds_played"], bool(row["finished_ms"]))
    return TournamentSummary(
        id=row["id"],
        name=row["name"],
        format=row["format"],
        status=row["status"],
        visibility=s["visibility"],
        pace=s["pace"],
        # A bracket's rounds: once over, those it played.
        rounds=row["rounds_played"] if bracketed and row["finished_ms"] else s["rounds"],
        best_of=s["best_of"],
        round=row["rounds_played"],
        entrants=row["entrants"],
        max_players=s["max_players"],
        host=PlayerInfo.model_validate(row["host"]),
        registered_only=s.get("registered_only", False),
        winners=[PlayerInfo.model_validate(p) for p in row["winners"]],
        format_title=shown["format_title"],
        length=shown["length"],
    )


def length(d: TournamentData) -> str:
    """The format's length in words (a bracket not drawn yet: its rounds not known)."""
    drawn = not d.format.has_bracket or bool(d.format.bracket(d))
    return d.format.length(d.format.planned_rounds(d) if drawn else None, d.settings.best_of)


def timers(d: TournamentData, now_ms: int) -> tuple[int | None, int | None]:
    """What of :func:`info` changes with the time alone: the milliseconds until the
    next round starts, and those left in the round being played (None: none)."""
    current = d.rounds[-1] if d.rounds else None
    next_ms = None
    if d.phase in (Phase.REGISTERING, Phase.BETWEEN) and d.next_at is not None:
        next_ms = max(0, d.next_at - now_ms)
    left = None
    if current is not None and not current.finished:
        left = max(0, current.ends_at - now_ms)
    return next_ms, left


def info(d: TournamentData, now_ms: int) -> TournamentInfo:
    """The tournament as its members see it: entrants, standings, rounds, tables."""
    s = d.settings
    current = d.rounds[-1] if d.rounds else None
    next_ms, left = timers(d, now_ms)
    standings = d.standings(shown=True)
    shown = current is None or visibility.round_results_shown(current.finished)
    return TournamentInfo(
        id=d.id,
        name=s.name,
        format=s.format,
        status=d.status(),
        visibility=s.visibility,
        invite_code=d.invite_code,
        pace=s.pace,
        card_clock_ms=s.card_clock_ms,
        deal_clock_ms=s.deal_clock_ms,
        round_clock_ms=s.round_clock_ms,
        rounds=d.format.planned_rounds(d),
        best_of=s.best_of,
        max_players=s.max_players,
        bots=s.bots,
        late_join=s.late_join,
        host=d.host,
        commitment=d.commitment,
        round=len(d.rounds),
        next_round_ms=next_ms,
        round_left_ms=left,
        entrants=[
            TournamentEntrant(
                player=e.player, status=e.status, joined_round=e.joined_round, seed=e.seed
            )
            for e in d.entrants.values()
        ],
        standings=standings,
        history=[round_info(r) for r in d.rounds],
        tables=[table_info(t, shown) for t in current.tables] if current else [],
        bracket=d.format.bracket(d),
        registered_only=s.registered_only,
        winners=winners(standings) if d.status() == "finished" else [],
        tie_notes=tie_notes(s.format, standings),
        actions=actions(d),
        format_title=d.format.title,
        length=length(d),
        columns=list(d.format.columns),
    )


def actions(d: TournamentData) -> TournamentActions:
    """What may be done now, decided here for every client (server.tournaments.model)."""
    begun = len(d.rounds)
    return TournamentActions(
        entry=registration(d.phase, d.settings, begun),
        withdraw=d.phase in COMMANDS["leave"].phases,
        host=host_actions(d.phase, d.settings, begun),
    )


def tie_notes(fmt: TournamentFormat, standings: list[TournamentStanding]) -> list[str]:
    """Why a line ranks above the next where the first figure is level: "ada ranks
    above bo: level on score (1.5), ahead on Buchholz (3.5 to 2)". Lines level on
    every figure share a rank and need no note."""
    chain = FORMATS[fmt].tie_breaks
    if not chain:
        return []
    (first, first_words), *rest = chain
    notes = []
    for a, b in itertools.pairwise(standings):
        level = getattr(a, first)
        if a.rank == b.rank or level is None or level != getattr(b, first):
            continue
        for field, words in rest:
            if getattr(a, field) != getattr(b, field):
                notes.append(
                    f"{a.player.name} ranks above {b.player.name}: level on {first_words}"
                    f" ({_figure(level)}), ahead on {words}"
                    f" ({_figure(getattr(a, field))} to {_figure(getattr(b, field))})"
                )
                break
    return notes


def _figure(x: float | int | None) -> str:
    return "-" if x is None else f"{round(x, 2):g}"


def round_info(r: Round) -> TournamentRound:
    """A round as anyone may see it: its secret only once it is over."""
    return TournamentRound(
        number=r.number,
        status="finished" if r.finished else "playing",
        contribution=r.contribution,
        server_commitment=commitment(r.secret),
        server_secret=visibility.round_secret(r.secret, r.finished),
        tables=sum(1 for t in r.tables if t.status != TableStatus.BYE),
        finished_tables=sum(1 for t in r.tables if t.status == TableStatus.FINISHED),
    )


def table_info(t: Table, shown: bool) -> TournamentTable:
    """A table of the current round: who plays, its room, whether it is done, and
    once the round's results are ``shown`` (server.visibility), its points and winner."""
    return TournamentTable(
        number=t.number,
        room_id=t.room_id,
        players=list(t.players),
        status=t.status,
        winner=t.winner if shown else None,
        points=dict(t.points) if shown else {},
    )
