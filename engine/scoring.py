"""The cribbage scorer: itemized scores for people, fast totals for machines.

Two entry points per shape, which must always agree (a property test checks):

* :func:`score_hand` / :func:`score_board` (here) return every scoring
  combination (which cards make each fifteen, pair and run, the flush, nobs, heels);
* :func:`~engine.totals.hand_total` / :func:`~engine.totals.board_total`
  (:mod:`engine.totals`) return only the number, through lookup tables, for bots
  and benchmarks that need millions of evaluations. The tables take a moment to
  build, so a program that only itemizes (``cribsquares hand``) never builds them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Final

from engine.cards import JACK, Card, ensure_distinct
from engine.errors import HandSizeError

WIN_SCORE: Final = 61
HEELS_POINTS: Final = 2

# --------------------------------------------------------------------------
# Itemized scoring


@dataclass(frozen=True)
class HandScore:
    """Every scoring combination of one hand (4 cards) with the starter."""

    hand: tuple[Card, ...]
    starter: Card
    fifteens: tuple[tuple[Card, ...], ...]
    pairs: tuple[tuple[Card, Card], ...]
    runs: tuple[tuple[Card, ...], ...]
    flush: tuple[Card, ...]
    nobs: Card | None

    @property
    def fifteen_points(self) -> int:
        return 2 * len(self.fifteens)

    @property
    def pair_points(self) -> int:
        return 2 * len(self.pairs)

    @property
    def run_points(self) -> int:
        return sum(len(r) for r in self.runs)

    @property
    def flush_points(self) -> int:
        return len(self.flush)

    @property
    def nobs_points(self) -> int:
        return 1 if self.nobs is not None else 0

    @property
    def total(self) -> int:
        return (
            self.fifteen_points
            + self.pair_points
            + self.run_points
            + self.flush_points
            + self.nobs_points
        )

    def to_dict(self) -> dict[str, object]:
        """The JSON form shared by the CLI's ``--json`` and the protocol."""
        return {
            "hand": [str(c) for c in self.hand],
            "starter": str(self.starter),
            "fifteens": [[str(c) for c in combo] for combo in self.fifteens],
            "pairs": [[str(c) for c in pair] for pair in self.pairs],
            "runs": [[str(c) for c in run] for run in self.runs],
            "flush": [str(c) for c in self.flush],
            "nobs": str(self.nobs) if self.nobs is not None else None,
            "points": {
                "fifteens": self.fifteen_points,
                "pairs": self.pair_points,
                "runs": self.run_points,
                "flush": self.flush_points,
                "nobs": self.nobs_points,
            },
            "total": self.total,
        }


def _check_hand(hand: Sequence[Card], starter: Card) -> tuple[Card, ...]:
    cards = tuple(hand)
    if len(cards) != 4:
        raise HandSizeError(f"a hand has 4 cards, got {len(cards)}")
    ensure_distinct((*cards, starter))
    return cards


# Subsets of the five cards (the hand, then the starter) as bit masks, listed
# in itertools.combinations order, size by size: the itemization lists
# combinations in exactly this order.
_MASKS_BY_SIZE: Final[dict[int, tuple[int, ...]]] = {
    size: tuple(sum(1 << i for i in combo) for combo in combinations(range(5), size))
    for size in range(2, 6)
}
_FIFTEEN_MASKS: Final = tuple(m for size in range(2, 6) for m in _MASKS_BY_SIZE[size])
_PAIR_INDICES: Final = tuple(combinations(range(5), 2))
_MASK_INDICES: Final = tuple(tuple(i for i in range(5) if m >> i & 1) for m in range(32))
# Each subset's sum from a smaller one's: (subset, it without its lowest card, that card).
_SUM_STEPS: Final = tuple((m, m & (m - 1), (m & -m).bit_length() - 1) for m in range(1, 32))


def score_hand(hand: Sequence[Card], starter: Card) -> HandScore:
    """Score a 4-card hand with the starter, itemizing every combination."""
    cards = _check_hand(hand, starter)
    five = (*cards, starter)
    ranks = [c.rank for c in five]

    # Sum of values of every subset, built from the subset without its lowest card.
    values = [r if r < 10 else 10 for r in ranks]
    sums = [0] * 32
    for m, rest, low in _SUM_STEPS:
        sums[m] = sums[rest] + values[low]
    fifteens = tuple(
        tuple(five[i] for i in _MASK_INDICES[m]) for m in _FIFTEEN_MASKS if sums[m] == 15
    )
    pairs = tuple((five[i], five[j]) for i, j in _PAIR_INDICES if ranks[i] == ranks[j])

    # Five cards hold at most one stretch of 3+ consecutive ranks; the runs are
    # the combinations of its length that use each of its ranks once.
    start, length = _longest_stretch(ranks)
    runs: tuple[tuple[Card, ...], ...] = ()
    if length >= 3:
        stretch = set(range(start, start + length))
        runs = tuple(
            tuple(sorted((five[i] for i in _MASK_INDICES[m]), key=_rank_then_suit))
            for m in _MASKS_BY_SIZE[length]
            if {ranks[i] for i in _MASK_INDICES[m]} == stretch
        )

    flush: tuple[Card, ...] = ()
    if len({c.suit for c in cards}) == 1:
        flush = five if starter.suit == cards[0].suit else cards

    nobs = next((c for c in cards if c.rank == JACK and c.suit == starter.suit), None)
    return HandScore(cards, starter, fifteens, pairs, runs, flush, nobs)


def _rank_then_suit(card: Card) -> tuple[int, int]:
    return (card.rank, card.suit)


def _longest_stretch(ranks: Sequence[int]) -> tuple[int, int]:
    """(lowest rank, length) of the longest run of consecutive distinct ranks."""
    present = set(ranks)
    best_start, best_length = 0, 0
    for r in present:
        if r - 1 not in present:
            length = 1
            while r + length in present:
                length += 1
            if length > best_length:
                best_start, best_length = r, length
    return best_start, best_length


@dataclass(frozen=True)
class BoardScore:
    """A whole board: the 4 rows, the 4 columns, heels, total and the win flag."""

    rows: tuple[HandScore, ...]
    columns: tuple[HandScore, ...]
    starter: Card
    heels: int = field(default=0)

    @property
    def lines(self) -> tuple[HandScore, ...]:
        return self.rows + self.columns

    @property
    def total(self) -> int:
        return sum(h.total for h in self.lines) + self.heels

    @property
    def win(self) -> bool:
        return self.total >= WIN_SCORE

    def to_dict(self) -> dict[str, object]:
        """The JSON form shared by the CLI's ``--json`` and the protocol."""
        return {
            "starter": str(self.starter),
            "rows": [h.to_dict() for h in self.rows],
            "columns": [h.to_dict() for h in self.columns],
            "heels": self.heels,
            "total": self.total,
            "win": self.win,
        }


def heels_points(starter: Card) -> int:
    return HEELS_POINTS if starter.rank == JACK else 0


def score_board(cards: Sequence[Card], starter: Card) -> BoardScore:
    """Score a full board given as 16 cards row by row (row 1 first)."""
    board = tuple(cards)
    if len(board) != 16:
        raise HandSizeError(f"a board has 16 cards, got {len(board)}")
    ensure_distinct((*board, starter))
    rows = tuple(score_hand(board[4 * r : 4 * r + 4], starter) for r in range(4))
    columns = tuple(score_hand(board[c::4], starter) for c in range(4))
    return BoardScore(rows, columns, starter, heels_points(starter))


def points_so_far(line: Sequence[Card]) -> int:
    """What the cards placed so far in a row or column score before the starter is
    turned: fifteens, pairs and runs, and a flush once all four share a suit (the
    starter can only add to it, and nobs needs the starter). A display aid: the
    line's score is :func:`score_hand` with the starter."""
    cards = tuple(line)
    if len(cards) > 4:
        raise HandSizeError(f"a row or column has at most 4 cards, got {len(cards)}")
    ensure_distinct(cards)
    ranks = [c.rank for c in cards]
    fifteens = sum(
        1
        for size in range(2, len(ranks) + 1)
        for combo in combinations(ranks, size)
        if sum(min(r, 10) for r in combo) == 15
    )
    pairs = sum(1 for a, b in combinations(ranks, 2) if a == b)
    points = 2 * fifteens + 2 * pairs
    start, length = _longest_stretch(ranks)
    if length >= 3:
        ways = 1
        for rank in range(start, start + length):
            ways *= ranks.count(rank)
        points += length * ways
    if len(cards) == 4 and len({c.suit for c in cards}) == 1:
        points += 4
    return points
