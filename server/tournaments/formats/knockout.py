"""Knockout: a seeded bracket (by rating), byes for the top seeds, best-of-N matches;
a drawn match goes to the better seed; the loser is out (docs/tournaments.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.ranking import competition_ranks
from protocol.tournaments import (
    CreateTournament,
    EntrantStatus,
    FormatOffer,
    TournamentStanding,
)
from server.tournaments.formats.base import (
    Field,
    OwnState,
    Pairing,
    knockout_rounds,
    plural,
    standing_row,
)
from server.tournaments.model import (
    Entrant,
    Round,
    Shape,
    Table,
    TournamentSettings,
)
from server.tournaments.pairing import bracket_order


@dataclass(slots=True)
class Bracket:
    """A knockout's bracket: each round's slots (None: a bye), drawn as it goes."""

    rounds: list[list[str | None]] = field(default_factory=list)

    def saved(self) -> dict[str, Any]:
        return {"bracket": [list(s) for s in self.rounds]}


def drawn(t: Field) -> list[list[str | None]]:
    own = t.own
    assert isinstance(own, Bracket), own
    return own.rounds


def slots(t: Field, number: int, now_ms: int) -> list[str | None]:
    """Round ``number``'s bracket slots: the seeded draw, then the winners going on."""
    if number == 1:
        seeded = sorted(t.active(), key=lambda e: (-t.rating_of(e.player.id), e.number))
        for i, e in enumerate(seeded):
            e.seed = i + 1
            t.record_entry(e, now_ms)
        size = 2
        while size < len(seeded):
            size *= 2
        return [seeded[s - 1].player.id if s <= len(seeded) else None for s in bracket_order(size)]
    previous = t.rounds[-1]
    winners: list[str | None] = []
    by_player = {p: table for table in previous.tables for p in table.players}
    last = drawn(t)[-1]
    for a, b in zip(last[::2], last[1::2], strict=True):
        table = by_player.get(a or b or "")
        winner = table.winner if table is not None else None
        if winner is not None and t.entrants[winner].status != EntrantStatus.ACTIVE:
            winner = None  # withdrew after winning: a walkover for the next opponent
        winners.append(winner)
    return winners


class Knockout:
    has_bracket = True
    title = "knockout"
    offer = FormatOffer(
        format="knockout", title=title, rounds=None, best_of=[1, 3, 5], late_join=False
    )
    columns: tuple[str, ...] = ("Seed", "Standing", "Points", "Deals")
    tie_breaks: tuple[tuple[str, str], ...] = ()  # it ranks by how far one got

    def cells(self, t: Field, row: TournamentStanding, over: bool) -> list[str]:
        entrant = t.entrants.get(row.player.id)
        seed = entrant.seed if entrant is not None else None
        if row.out_in_round is not None:
            standing = f"out in round {row.out_in_round}"
        elif row.status == EntrantStatus.ACTIVE:
            standing = "champion" if over and row.rank == 1 else "still in"
        else:
            standing = "eliminated"
        return [str(seed) if seed else "-", standing, str(row.points), str(row.deals)]

    def length(self, rounds: int | None, best_of: int) -> str:
        """Its rounds once its bracket is drawn (before, as many as its field will
        need), and its matches' length."""
        matches = f"best of {best_of}" if best_of > 1 else "one deal a match"
        return f"{plural(rounds, 'round') if rounds else 'rounds as the field needs'}, {matches}"

    def shape(self, msg: CreateTournament) -> Shape:
        """As many rounds as a bracket of the places needs; best of 1, 3 or 5 (the
        host's); nobody enters once the bracket is drawn."""
        return Shape(rounds=knockout_rounds(msg.max_players), best_of=msg.best_of, late_join=False)

    def chain_length(self, settings: TournamentSettings) -> int:
        return max(settings.rounds, knockout_rounds(settings.max_players))

    def fresh(self) -> OwnState:
        return Bracket()

    def load(self, saved: Mapping[str, Any]) -> OwnState:
        return Bracket([list(s) for s in saved.get("bracket", [])])

    def bracket(self, t: Field) -> list[list[str | None]] | None:
        return [list(s) for s in drawn(t)]

    def planned_rounds(self, t: Field) -> int:
        if drawn(t):
            return knockout_rounds(len(drawn(t)[0]))
        return knockout_rounds(len(t.active()))

    def pair(self, t: Field, number: int, playing: list[Entrant], now_ms: int) -> Pairing | None:
        round_slots = slots(t, number, now_ms)
        live = [p for p in round_slots if p is not None]
        if len(live) < 2:
            for p in live:
                t.entrants[p].out_in_round = None  # the champion
            return None
        drawn(t).append(round_slots)
        groups: list[tuple[str, ...]] = []
        byes: list[str] = []
        for a, b in zip(round_slots[::2], round_slots[1::2], strict=True):
            if a is not None and b is not None:
                groups.append((a, b))
            elif a is not None or b is not None:
                byes.append(a or b or "")
        return Pairing(groups, byes)

    def table_winner(self, t: Field, table: Table, winner_id: str | None) -> str | None:
        if winner_id is None:  # a drawn match goes to the better seed (docs/tournaments.md)
            return min(table.players, key=lambda p: t.entrants[p].seed or 0)
        return winner_id

    def round_ended(self, t: Field, r: Round, now_ms: int) -> bool:
        for table in r.tables:
            for p in table.players:
                e = t.entrants[p]
                if p != table.winner and e.status == EntrantStatus.ACTIVE:
                    e.status, e.out_in_round = EntrantStatus.ELIMINATED, r.number
                    t.record_entry(e, now_ms)
        live = [
            table.winner
            for table in r.tables
            if table.winner and t.entrants[table.winner].status == EntrantStatus.ACTIVE
        ]
        return len(live) < 2

    def dropped(self, t: Field, entrant: Entrant) -> None:
        if t.rounds:
            current = t.rounds[-1]
            entrant.out_in_round = len(t.rounds) + (0 if not current.finished else 1)

    def standings(
        self, t: Field, played: Mapping[str, int], points: Mapping[str, int]
    ) -> list[TournamentStanding]:
        alive = len(t.rounds) + 2  # still in (the champion, once it is over)

        def reached(e: Entrant) -> int:
            if e.status == EntrantStatus.ACTIVE or e.out_in_round is None:
                return alive
            return e.out_in_round

        rows = sorted(
            t.entrants.values(), key=lambda e: (-reached(e), e.seed or e.number, e.number)
        )
        ranks = competition_ranks([-reached(e) for e in rows])  # further is better
        return [
            standing_row(e, rank, played, points, out_in_round=e.out_in_round)
            for e, rank in zip(rows, ranks, strict=True)
        ]
