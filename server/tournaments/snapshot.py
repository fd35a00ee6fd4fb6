"""A director's snapshot as typed records: what a restarted server rebuilds it from.

The JSON is the one every earlier snapshot was written in (``version`` 1), read
back through pydantic: a snapshot that is not whole, or holds a value of the
wrong kind, is Unresumable (a ValueError) for the director's restore, never a half-built
tournament. The settings' record is also what ``tournament_created`` stores.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from protocol.fields import Pace, PlayerInfo, Visibility
from protocol.tournaments import EntrantStatus, TableStatus, TournamentFormat
from server.recovery import Unresumable
from server.tournaments.model import Entrant, Phase, Round, Table, TournamentSettings

SNAPSHOT_VERSION = 2  # 2: the format's own state in ``own`` (1 is read too)


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class SettingsRecord(_Record):
    name: str
    format: TournamentFormat
    rounds: int
    best_of: int
    pace: Pace
    card_clock_ms: int
    deal_clock_ms: int
    round_clock_ms: int
    start_at_ms: int | None
    max_players: int
    visibility: Visibility
    bots: bool
    late_join: bool
    between_rounds_ms: int
    registered_only: bool = False  # older snapshots have none

    @classmethod
    def of(cls, s: TournamentSettings) -> SettingsRecord:
        return cls(
            name=s.name,
            format=s.format,
            rounds=s.rounds,
            best_of=s.best_of,
            pace=s.pace,
            card_clock_ms=s.card_clock_ms,
            deal_clock_ms=s.deal_clock_ms,
            round_clock_ms=s.round_clock_ms,
            start_at_ms=s.start_at,
            max_players=s.max_players,
            visibility=s.visibility,
            bots=s.bots,
            late_join=s.late_join,
            between_rounds_ms=s.between_rounds_ms,
            registered_only=s.registered_only,
        )

    def settings(self) -> TournamentSettings:
        return TournamentSettings(
            name=self.name,
            format=self.format,
            rounds=self.rounds,
            best_of=self.best_of,
            pace=self.pace,
            card_clock_ms=self.card_clock_ms,
            deal_clock_ms=self.deal_clock_ms,
            round_clock_ms=self.round_clock_ms,
            start_at=self.start_at_ms,
            max_players=self.max_players,
            visibility=self.visibility,
            bots=self.bots,
            late_join=self.late_join,
            between_rounds_ms=self.between_rounds_ms,
            registered_only=self.registered_only,
        )


def settings_json(settings: TournamentSettings) -> dict[str, object]:
    """The settings as JSON (a snapshot's, and a created tournament's)."""
    return SettingsRecord.of(settings).model_dump(mode="json")


class EntrantRecord(_Record):
    player: PlayerInfo
    number: int
    contribution: str
    joined_round: int
    strategy: str
    status: EntrantStatus
    seed: int | None
    out_in_round: int | None

    @classmethod
    def of(cls, e: Entrant) -> EntrantRecord:
        return cls(**{f: getattr(e, f) for f in cls.model_fields})

    def entrant(self) -> Entrant:
        return Entrant(**{f: getattr(self, f) for f in type(self).model_fields})


class TableRecord(_Record):
    number: int
    players: list[str]
    room_id: str | None
    series_id: str | None
    status: TableStatus
    winner: str | None
    points: dict[str, int]
    deals: list[dict[str, int]]

    @classmethod
    def of(cls, t: Table) -> TableRecord:
        return cls(
            number=t.number,
            players=list(t.players),
            room_id=t.room_id,
            series_id=t.series_id,
            status=t.status,
            winner=t.winner,
            points=dict(t.points),
            deals=[dict(d) for d in t.deals],
        )

    def table(self) -> Table:
        return Table(
            number=self.number,
            players=tuple(self.players),
            room_id=self.room_id,
            series_id=self.series_id,
            status=self.status,
            winner=self.winner,
            points=dict(self.points),
            deals=[dict(d) for d in self.deals],
        )


class RoundRecord(_Record):
    number: int
    contribution: str
    started_at: int
    ends_at: int
    finished: bool
    stopped: bool
    tables: list[TableRecord]

    @classmethod
    def of(cls, r: Round) -> RoundRecord:
        return cls(
            number=r.number,
            contribution=r.contribution,
            started_at=r.started_at,
            ends_at=r.ends_at,
            finished=r.finished,
            stopped=r.stopped,
            tables=[TableRecord.of(t) for t in r.tables],
        )

    def round(self, secret: str) -> Round:
        """The round again; its secret is not stored with it (the chain gives it)."""
        return Round(
            self.number,
            secret,
            self.contribution,
            [t.table() for t in self.tables],
            self.started_at,
            self.ends_at,
            finished=self.finished,
            stopped=self.stopped,
        )


class SnapshotRecord(_Record):
    version: int
    id: str
    settings: SettingsRecord
    host: PlayerInfo
    invite_code: str | None
    root_secret: str
    chain: int
    commitment: str
    phase: Phase
    created_at: int
    next_at: int | None
    finished_at: int | None
    bots: int
    entrants: list[EntrantRecord]
    rounds: list[RoundRecord]
    own: dict[str, Any]  # the format's own state (Format.load reads it)

    @classmethod
    def read(cls, state: object) -> SnapshotRecord:
        """A stored snapshot, checked whole (Unresumable: not one this server can use).
        Version 1 kept a knockout's bracket and a Swiss's byes beside the rounds, for
        every format: they are its format's own state now, under the same keys."""
        if isinstance(state, dict) and state.get("version") == 1:
            state = {k: v for k, v in state.items() if k not in ("bracket", "had_bye")} | {
                "version": SNAPSHOT_VERSION,
                "own": {k: state[k] for k in ("bracket", "had_bye") if k in state},
            }
        if isinstance(state, dict) and state.get("version") != SNAPSHOT_VERSION:
            raise Unresumable(f"snapshot version {state.get('version')!r}")
        try:
            return cls.model_validate(state)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise Unresumable(f"tournament snapshot incomplete: {where}: {first['msg']}") from None
