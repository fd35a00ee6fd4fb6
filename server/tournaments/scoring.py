"""Scoring rules of tournament formats: matchpoints, Neuberg, Swiss tie-breaks.

Pure functions over plain data; docs/tournaments.md states the rules in prose.

Matchpoints (duplicate field): on each deal a board earns 2 matchpoints for
each other board it beats and 1 for each tie; the top on a deal played by n
entrants is 2(n-1). When a deal was played by only n of the N entrants (some
missed it), every result on it is scaled by Neuberg's formula to the full
field, M' = (M + 1) * N / n - 1, so a deal counts the same for everybody; an
entrant who missed a deal has no result on it, and its percentage is taken
over the tops of the deals it played.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


def matchpoints(scores: Mapping[str, int], field_size: int | None = None) -> dict[str, float]:
    """Matchpoints of each entrant on one deal, Neuberg-scaled to ``field_size``."""
    n = len(scores)
    big_n = field_size if field_size is not None else n
    if big_n < n:
        raise ValueError("the field cannot be smaller than the entrants who played")
    out: dict[str, float] = {}
    for who, score in scores.items():
        m = sum(2 if score > other else 1 if score == other else 0 for other in scores.values())
        m -= 1  # the board ties with itself once
        out[who] = float(m) if n == big_n else (m + 1) * big_n / n - 1
    return out


@dataclass(frozen=True)
class DuplicateStanding:
    player: str
    matchpoints: float
    top: float  # the most matchpoints available on the deals played
    points: int  # total card points, the tie-break
    deals: int

    @property
    def percentage(self) -> float:
        return 100.0 * self.matchpoints / self.top if self.top else 0.0


def duplicate_standings(
    deals: Sequence[Mapping[str, int]], entrants: Sequence[str]
) -> list[DuplicateStanding]:
    """Standings of a duplicate field: matchpoint percentage, then total points."""
    field = len(entrants)
    top_per_deal = 2.0 * (field - 1)
    mp = dict.fromkeys(entrants, 0.0)
    top = dict.fromkeys(entrants, 0.0)
    points = dict.fromkeys(entrants, 0)
    played = dict.fromkeys(entrants, 0)
    for deal in deals:
        for who, value in matchpoints(deal, field).items():
            mp[who] += value
            top[who] += top_per_deal
            points[who] += deal[who]
            played[who] += 1
    table = [DuplicateStanding(p, mp[p], top[p], points[p], played[p]) for p in entrants]
    table.sort(key=lambda s: (-s.percentage, -s.points, s.player))
    return table


@dataclass(frozen=True)
class Game:
    """One head-to-head game of a Swiss round: ``score_a`` is 1, 0.5 or 0."""

    a: str
    b: str | None  # None: a bye
    score_a: float


def swiss_scores(games: Sequence[Game]) -> dict[str, float]:
    scores: dict[str, float] = {}
    for g in games:
        scores[g.a] = scores.get(g.a, 0.0) + g.score_a
        if g.b is not None:
            scores[g.b] = scores.get(g.b, 0.0) + 1.0 - g.score_a
    return scores


def buchholz(games: Sequence[Game]) -> dict[str, float]:
    """Sum of the final scores of each player's opponents (byes count nothing)."""
    scores = swiss_scores(games)
    out = dict.fromkeys(scores, 0.0)
    for g in games:
        if g.b is not None:
            out[g.a] += scores[g.b]
            out[g.b] += scores[g.a]
    return out


def sonneborn_berger(games: Sequence[Game]) -> dict[str, float]:
    """Sum of beaten opponents' scores plus half of drawn opponents' scores."""
    scores = swiss_scores(games)
    out = dict.fromkeys(scores, 0.0)
    for g in games:
        if g.b is None:
            continue
        out[g.a] += g.score_a * scores[g.b]
        out[g.b] += (1.0 - g.score_a) * scores[g.a]
    return out


def swiss_standings(games: Sequence[Game], players: Sequence[str]) -> list[str]:
    """Players ordered by score, then Buchholz, then Sonneborn–Berger, then name."""
    scores = swiss_scores(games)
    bh = buchholz(games)
    sb = sonneborn_berger(games)
    return sorted(
        players,
        key=lambda p: (-scores.get(p, 0.0), -bh.get(p, 0.0), -sb.get(p, 0.0), p),
    )
