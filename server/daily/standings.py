"""The daily standings, streaks and where the field put each card. Pure.

* **Rank**: the finished attempts by score, highest first; equal scores share
  a rank (1, 2, 2, 4). The pace and the time used do not count: everyone had
  the same cards, and the paces differ.
* **Percentile**: the share of the *other* finished players whose score is
  below yours, those level with you counting half, in percent, rounded down:
  the best alone is 100, the worst alone 0, two level alone 50 each, and a
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
        level = n - above - below - 1  # the others with the same score
        percentile = 100 if n == 1 else (100 * (2 * below + level)) // (2 * (n - 1))
        rows.append(Ranked(pid, score, 1 + above, percentile))
    return rows


@dataclass(slots=True)
class Streak:
    """A player's days played, folded as they come (in order): the last one, the
    run of consecutive days ending there, the longest run."""

    last: int
    run: int
    longest: int

    @classmethod
    def of(cls, days: Iterable[int]) -> Streak:
        """The fold of ``days`` (at least one)."""
        ordered = sorted(set(days))
        fold = cls(ordered[0], 1, 1)
        for day in ordered[1:]:
            fold.add(day)
        return fold

    def add(self, day: int) -> None:
        """One more day played (the same day again counts once)."""
        if day == self.last:
            return
        self.run = self.run + 1 if day == self.last + 1 else 1
        self.last = day
        self.longest = max(self.longest, self.run)

    def held(self, today: int) -> tuple[int, int]:
        """(current, longest) as of ``today``: the current streak is today's, or
        else yesterday's (it may still be kept today), or else 0."""
        return (self.run if self.last >= today - 1 else 0), self.longest

    def on(self, day: int) -> int:
        """The streak ending with ``day``, the last day folded or one of its run
        (0 for a day not played)."""
        return max(0, self.run - (self.last - day)) if self.last >= day else 0


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
