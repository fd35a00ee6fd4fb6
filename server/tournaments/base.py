"""A tournament director's state and its queries, and how it tells its members.

:class:`DirectorBase` holds one tournament's state (settings, entrants,
spectators, rounds and their tables, the knockout bracket, the round secrets,
the timers of its delayed pushes and snapshots) and answers questions about it:
who is a member, when it next needs a tick, its standings (each format ranks
its own), its wire views (:mod:`server.tournaments.views`) and what its format
sees of it (:class:`server.tournaments.formats.base.Field`). Beyond reading, it
records (an entrant's entry, a status change, a phase change checked against
the transition table) and tells the members of a change: at once, or once the
push interval has passed (:data:`PUSH_INTERVAL_MS`), the actor of a command
answered at once either way. The director is built up in layers: this one, the
rounds and their tables (:mod:`server.tournaments.rounds`), and the commands
and a restart (:mod:`server.tournaments.director`).

This module must never await, read a clock, or touch sockets or the database.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import NamedTuple

from engine.deal import commitment
from protocol.fields import PlayerInfo, Visibility
from protocol.tournaments import (
    EntrantStatus,
    TournamentInfo,
    TournamentStanding,
    TournamentSummary,
    TournamentUpdate,
)
from server import visibility
from server.events import (
    Event,
    TournamentChange,
    TournamentCreated,
    TournamentEntry,
    TournamentStatus,
    player_record,
)
from server.room import Outbound
from server.series import secret_chain
from server.tournaments import views
from server.tournaments.formats import FORMATS
from server.tournaments.model import (
    RESUMED,
    TRANSITIONS,
    Entrant,
    Phase,
    Request,
    Round,
    Table,
    TournamentSettings,
)
from server.tournaments.snapshot import settings_json

PUSH_INTERVAL_MS = 1_000  # live standings go out at most this often during a round


class Reply(NamedTuple):
    """Who asked for a command (its answer echoes ``ref``)."""

    actor: str
    ref: str | None


class DirectorBase:
    """One tournament's state and its queries (the layers above act on it)."""

    def __init__(
        self,
        tournament_id: str,
        settings: TournamentSettings,
        host: PlayerInfo,
        *,
        now_ms: int,
        root_secret: str,
        invite_code: str | None = None,
        rating_of: Callable[[str], float] | None = None,
        known_strategy: Callable[[str], bool] | None = None,
        registration_ttl_ms: int = 0,
    ) -> None:
        self.id = tournament_id
        self.settings = settings
        self.host = host
        self.invite_code = invite_code if settings.visibility == Visibility.PRIVATE else None
        self.phase = Phase.REGISTERING
        self.created_at = now_ms
        self.entrants: dict[str, Entrant] = {}
        self.spectators: dict[str, PlayerInfo] = {}
        self.rounds: list[Round] = []
        self.next_at: int | None = settings.start_at  # the start, or the next round
        self.finished_at: int | None = None
        # Not started by then (and no start scheduled): cancelled, so that tournaments
        # nobody starts do not pile up (and come back at every restart).
        self.expires_at: int | None = None
        if registration_ttl_ms and settings.start_at is None:
            self.expires_at = now_ms + registration_ttl_ms
        self.format = FORMATS[settings.format]
        self.own = self.format.fresh()  # what the format keeps of its own
        self._rating_of = rating_of or (lambda pid: 1500.0)
        self.known_strategy = known_strategy or (lambda name: True)
        self.tables_by_room: dict[str, tuple[Round, Table]] = {}
        # Tables whose room the lobby opened in the step being run (tables_opened).
        self.opened_tables: list[tuple[Round, Table]] = []
        self.bots_added = 0
        # The time of the step being run (server.stepping.step), with its notes.
        self.step_at: int | None = None
        self.push_due: int | None = None
        self._pushed_at: int | None = None
        # A command that began a round is answered by the push once its tables have
        # their rooms (tables_opened), so that its actor learns where to play from it.
        self.reply_after_tables: Reply | None = None
        self.stored: dict[str, object] | None = None  # the last snapshot in the events
        self.stored_shape: tuple[object, ...] | None = None
        self.stored_at = now_ms
        self.snapshot_due: int | None = None  # a change waits for the interval
        self.round_secrets = secret_chain(root_secret, self.format.chain_length(settings))
        self.commitment = commitment(self.round_secrets[0])
        # What the step being run has noted so far: it leaves with the step's result
        # (server.tournaments.result), so it is empty between steps.
        self._events: list[Event] = []
        self._requests: list[Request] = []

    def note(self, event: Event) -> None:
        """An event for storage, decided by the step being run."""
        self._events.append(event)

    def ask(self, *requests: Request) -> None:
        """Requests of the tables' rooms, decided by the step being run."""
        self._requests += requests

    def creation(self, now_ms: int) -> TournamentCreated:
        """The event of this tournament's creation."""
        s = self.settings
        return TournamentCreated(
            tournament_id=self.id,
            name=s.name,
            format=s.format,
            visibility=s.visibility,
            host=player_record(self.host),
            settings=self._settings_json(),
            commitment=self.commitment,
            at_ms=now_ms,
        )

    @property
    def over(self) -> bool:
        return self.phase in (Phase.FINISHED, Phase.CANCELLED)

    def status(self) -> str:
        return "playing" if self.phase == Phase.BETWEEN else self.phase.value

    def members(self) -> list[str]:
        """Who receives the tournament's updates: host, people entered, spectators."""
        ids = {self.host.id}
        ids.update(
            pid
            for pid, e in self.entrants.items()
            if not e.strategy and e.status in (EntrantStatus.ACTIVE, EntrantStatus.ELIMINATED)
        )
        ids.update(self.spectators)
        return sorted(ids)

    def is_member(self, player_id: str) -> bool:
        if player_id == self.host.id or player_id in self.spectators:
            return True
        e = self.entrants.get(player_id)
        return (
            e is not None
            and not e.strategy
            and e.status in (EntrantStatus.ACTIVE, EntrantStatus.ELIMINATED)
        )

    def active(self) -> list[Entrant]:
        return [e for e in self.entrants.values() if e.status == EntrantStatus.ACTIVE]

    def room_ids(self) -> list[str]:
        return list(self.tables_by_room)

    def next_deadline(self) -> int | None:
        times = [t for t in (self.push_due, self.snapshot_due) if t is not None]
        if self.phase in (Phase.REGISTERING, Phase.BETWEEN) and self.next_at is not None:
            times.append(self.next_at)
        if self.phase == Phase.REGISTERING and self.expires_at is not None:
            times.append(self.expires_at)
        current = self.rounds[-1] if self.rounds else None
        if current is not None and not current.finished and not current.stopped:
            times.append(current.ends_at)
        return min(times) if times else None

    def _settings_json(self) -> dict[str, object]:
        settings = settings_json(self.settings)
        del settings["name"]
        return settings

    # The wire views (server.tournaments.views): pure, they change nothing.

    def summary(self, now_ms: int) -> TournamentSummary:
        return views.summary(self, now_ms)

    def info(self, now_ms: int) -> TournamentInfo:
        return views.info(self, now_ms)

    def update(self, now_ms: int, ref: str | None = None) -> TournamentUpdate:
        return TournamentUpdate(tournament=self.info(now_ms), ref=ref)

    # What the format sees (server.tournaments.formats.base.Field)

    def rating_of(self, player_id: str) -> float:
        return self._rating_of(player_id)

    def record_entry(self, entrant: Entrant, now_ms: int) -> None:
        """``entrant``'s entry stored (a format's: a seed drawn, a player out)."""
        self.entry_event(entrant, now_ms)

    def standings(self, *, shown: bool = False) -> list[TournamentStanding]:
        """Everyone in the draw, best first. ``shown``: as anyone may see them while a
        round is played, from the rounds that are over (server.visibility's
        round_results_shown); else from every table finished (the tournament's own
        decisions, and its final standings)."""
        if shown and self.rounds and not visibility.round_results_shown(self.rounds[-1].finished):
            decided = copy.copy(self)
            decided.rounds = self.rounds[:-1]
            return decided.standings()
        played: dict[str, int] = dict.fromkeys(self.entrants, 0)
        points: dict[str, int] = dict.fromkeys(self.entrants, 0)
        for r in self.rounds:
            for t in r.tables:
                for deal in t.deals:
                    for pid, score in deal.items():
                        played[pid] = played.get(pid, 0) + 1
                        points[pid] = points.get(pid, 0) + score
        over = self.status() == "finished"  # a knockout's last one standing: its champion
        return [  # each line with its figures as every client shows them
            row.model_copy(update={"cells": self.format.cells(self, row, over)})
            for row in self.format.standings(self, played, points)
        ]

    # ------------------------------------------------------------------
    # What it records, and telling the members

    def entry_event(self, e: Entrant, now_ms: int) -> None:
        self.note(
            TournamentEntry(
                tournament_id=self.id,
                player=player_record(e.player),
                number=e.number,
                contribution=e.contribution,
                joined_round=e.joined_round,
                status=e.status,
                seed=e.seed,
                at_ms=now_ms,
            )
        )

    def changed_to(
        self,
        change: TournamentChange,
        now_ms: int,
        standings: tuple[dict[str, object], ...] | None = None,
    ) -> None:
        self.note(TournamentStatus(self.id, change, standings, now_ms))

    def go(self, phase: Phase) -> None:
        if phase not in TRANSITIONS[self.phase]:
            raise AssertionError(f"no transition from {self.phase} to {phase}")
        self.phase = phase

    def resume_in(self, phase: Phase) -> None:
        """A director built anew takes back a stored tournament in ``phase`` (a
        restart): through the table, by the way :data:`RESUMED` gives; ValueError
        for a phase a restart does not resume a tournament in."""
        way = RESUMED.get(phase)
        if way is None or self.phase != Phase.REGISTERING:
            raise ValueError(f"a tournament is not resumed {phase} (it is {self.phase})")
        for step in way:
            self.go(step)

    def changed(self, now_ms: int, reply: Reply | None = None) -> list[Outbound]:
        """Something changed: push now, or once the push interval has passed; the
        command's actor (``reply``) is answered now either way."""
        if self._pushed_at is None or now_ms - self._pushed_at >= PUSH_INTERVAL_MS:
            return self.push(now_ms, reply)
        if self.push_due is None:
            self.push_due = self._pushed_at + PUSH_INTERVAL_MS
        if reply is None:
            return []
        return [Outbound((reply.actor,), self.update(now_ms, reply.ref))]

    def push(self, now_ms: int, reply: Reply | None = None) -> list[Outbound]:
        """The update to every member; the actor of ``reply`` gets its own copy, with its ref."""
        self.push_due = None
        self._pushed_at = now_ms
        members = self.members()
        update = self.update(now_ms)
        outs: list[Outbound] = []
        if reply is not None:
            outs.append(Outbound((reply.actor,), update.model_copy(update={"ref": reply.ref})))
            members = [m for m in members if m != reply.actor]
        if members:
            outs.append(Outbound(tuple(members), update))
        return outs
