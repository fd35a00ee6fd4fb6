"""The daily standings, streaks and where the field put each card. Pure.

* **Rank**: the finished attempts by score, highest first; equal scores share
  a rank (1, 2, 2, 4). The pace and the time used do not count: everyone had
  the same cards, and the paces differ.
* **Percentile**: the share of the *other* finished players whose score is
  below yours, in percent, rounded down: the best is 100, the worst 0, and a
  player alone on the day 100. Equal scores get the same percentile.
* **Streak**: the number of consecutive days, ending with the day in question,
  on each of which the player began an attempt (an attempt counts once it
  begins, finished or forfeited). A player's *current* streak is the streak of
  today if it played today, else of yesterday (it may still play today and
  keep it), else 0.
* **The field**: for each turn, how many players put that turn's card in each
  of the 16 cells (cells a1..d4 in the grid's order).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

TURNS = 16
CELLS = 16


@dataclass(frozen=True, slots=True)
class Ranked:
    player_id: str
    score: int
    rank: int
    percentile: int


def rank(scores: Mapping[str, int]) -> list[Ranked]:
    """The finished attempts (player id -> score), best first (then by player id)."""
    values = sorted(scores.values())
    n = len(values)
    rows: list[Ranked] = []
    ordered = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    for pid, score in ordered:
        above = sum(1 for v in values if v > score)
        below = sum(1 for v in values if v < score)
        percentile = 100 if n == 1 else (100 * below) // (n - 1)
        rows.append(Ranked(pid, score, 1 + above, percentile))
    return rows


def streak(days: Iterable[int], upto: int) -> int:
    """Consecutive days played ending with day ``upto`` (0 if it was not played)."""
    played = set(days)
    count = 0
    while upto - count in played:
        count += 1
    return count


def current_streak(days: Iterable[int], today: int) -> int:
    """The streak a player holds today: today's, or else yesterday's, or else 0."""
    played = set(days)
    return streak(played, today) if today in played else streak(played, today - 1)


def longest_streak(days: Iterable[int]) -> int:
    played = sorted(set(days))
    best = run = 0
    for i, d in enumerate(played):
        run = run + 1 if i and played[i - 1] == d - 1 else 1
        best = max(best, run)
    return best


def turn_cells(cards: Sequence[str], cells: Sequence[str | None]) -> list[int | None]:
    """For each turn, the cell (0..15) its card went to on a board (``cells`` is the
    finished grid: the card in each cell, or None); None where it is not there."""
    where = {card: i for i, card in enumerate(cells) if card}
    return [where.get(card) for card in cards[:TURNS]]


def field(cards: Sequence[str], boards: Iterable[Sequence[str | None]]) -> list[list[int]]:
    """How many boards put each turn's card in each cell: ``field[turn - 1][cell]``."""
    counts = [[0] * CELLS for _ in range(TURNS)]
    for cells in boards:
        for turn, cell in enumerate(turn_cells(cards, cells)):
            if cell is not None:
                counts[turn][cell] += 1
    return counts
