"""Fast totals: the score of a hand or a board as a number, through lookup tables.

The rank-dependent part of a hand (fifteens, pairs, runs) depends only on the
multiset of its five ranks, so it is tabulated once, when this module is first
imported, over the 6,175 possible multisets; flush and nobs are added from the
suits. :func:`hand_total` and :func:`board_total` always agree with the itemized
:func:`engine.scoring.score_hand` and :func:`engine.scoring.score_board` (a
property test checks); they skip the checks, for bots and benchmarks that need
millions of evaluations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.cards import DECK, JACK, Card
from engine.scoring import HEELS_POINTS

# A multiset of ranks is keyed by the sum of 5**(rank-1): at most 4 of a rank,
# so base 5 never carries and the key is unique and additive.
RANK_WEIGHT: Final[tuple[int, ...]] = tuple(5 ** (c.rank - 1) for c in DECK)
RANK_KEY: Final[tuple[int, ...]] = (0, *(5 ** (r - 1) for r in range(1, 14)))  # by rank
CARD_SUIT: Final[tuple[int, ...]] = tuple(c.suit for c in DECK)
NOBS_JACK: Final[tuple[int, ...]] = tuple(13 * c.suit + JACK - 1 for c in DECK)


def rank_points(ranks: Sequence[int]) -> int:
    """Fifteens + pairs + runs of a multiset of ranks (suits play no part)."""
    values = [min(r, 10) for r in ranks]
    # Count subsets summing to 15 by dynamic programming over the values.
    ways = [1] + [0] * 15
    for v in values:
        for s in range(15, v - 1, -1):
            ways[s] += ways[s - v]
    points = 2 * ways[15]
    counts = [0] * 15
    for r in ranks:
        counts[r] += 1
    points += sum(c * (c - 1) for c in counts)  # 2 points per pair: 2 * C(c, 2)
    # Runs: the longest stretch of consecutive present ranks, if 3 or more,
    # scores its length times the number of ways to pick one card per rank.
    r = 1
    while r <= 13:
        if counts[r]:
            start, mult = r, 1
            while r <= 13 and counts[r]:
                mult *= counts[r]
                r += 1
            length = r - start
            if length >= 3:
                points += length * mult
        r += 1
    return points


def _build_rank_table() -> dict[int, int]:
    """:func:`rank_points` of every multiset of five ranks, keyed by its weight.

    Built as the multisets are enumerated, rank by rank, so that the work shared
    by multisets with a common prefix is done once: the number of ways to make
    each sum (for the fifteens), the pairs, and which ranks are present (for the
    runs). It gives the same table as calling :func:`rank_points` on each (a test
    checks), in a fraction of the time: it is built at import, by every command
    that needs a total.
    """
    table: dict[int, int] = {}
    counts = [0] * 15
    stretches: dict[int, tuple[tuple[int, int], ...]] = {}

    def runs(present: int) -> tuple[tuple[int, int], ...]:
        """The stretches of 3 or more consecutive ranks present, as (low, high)."""
        found = []
        r = 1
        while r <= 13:
            if present >> r & 1:
                low = r
                while r <= 13 and present >> r & 1:
                    r += 1
                if r - low >= 3:
                    found.append((low, r - 1))
            r += 1
        return tuple(found)

    def extend(size: int, low: int, key: int, ways: list[int], pairs: int, present: int) -> None:
        for r in range(low, 14):
            if counts[r] == 4:
                continue
            v = r if r < 10 else 10
            more = pairs + counts[r]  # the new card pairs with each of its rank
            counts[r] += 1
            if size == 4:
                points = 2 * (ways[15] + ways[15 - v]) + 2 * more
                mask = present | 1 << r
                found = stretches.get(mask)
                if found is None:
                    found = stretches[mask] = runs(mask)
                for a, b in found:
                    ways_to_pick = 1
                    for q in range(a, b + 1):
                        ways_to_pick *= counts[q]
                    points += (b - a + 1) * ways_to_pick
                table[key + RANK_KEY[r]] = points
            else:
                grown = ways[:]
                for t in range(15, v - 1, -1):
                    grown[t] += ways[t - v]
                extend(size + 1, r, key + RANK_KEY[r], grown, more, present | 1 << r)
            counts[r] -= 1

    extend(0, 1, 0, [1] + [0] * 15, 0, 0)
    return table


def rank_multisets(size: int) -> list[tuple[int, ...]]:
    """Every multiset of ``size`` ranks with at most 4 of any rank, sorted."""
    out: list[tuple[int, ...]] = []

    def extend(prefix: tuple[int, ...], low: int) -> None:
        if len(prefix) == size:
            out.append(prefix)
            return
        for r in range(low, 14):
            if prefix.count(r) < 4:
                extend((*prefix, r), r)

    extend((), 1)
    return out


RANK_TABLE: Final[dict[int, int]] = _build_rank_table()


def hand_total(hand: Sequence[Card], starter: Card) -> int:
    """The total of :func:`score_hand`, computed from the tables (no checks)."""
    a, b, c, d = (x.index for x in hand)
    s = starter.index
    return _line_total(a, b, c, d, s, RANK_WEIGHT[s], NOBS_JACK[s], CARD_SUIT[s])


def _line_total(a: int, b: int, c: int, d: int, s: int, sw: int, nj: int, ss: int) -> int:
    w = RANK_WEIGHT
    total = RANK_TABLE[w[a] + w[b] + w[c] + w[d] + sw]
    su = CARD_SUIT
    if su[a] == su[b] == su[c] == su[d]:
        total += 5 if su[a] == ss else 4
    if nj in (a, b, c, d):
        total += 1
    return total


def board_total(cards: Sequence[Card], starter: Card) -> int:
    """The total of :func:`score_board` (16 cards row by row), from the tables."""
    i = [c.index for c in cards]
    return board_total_indices(i, starter.index)


def board_total_indices(i: Sequence[int], s: int) -> int:
    """:func:`board_total` on card indices (0..51), for bots and benchmarks."""
    sw, nj, ss = RANK_WEIGHT[s], NOBS_JACK[s], CARD_SUIT[s]
    lt = _line_total
    total = HEELS_POINTS if s % 13 == JACK - 1 else 0
    for r in (0, 4, 8, 12):
        total += lt(i[r], i[r + 1], i[r + 2], i[r + 3], s, sw, nj, ss)
    for c in (0, 1, 2, 3):
        total += lt(i[c], i[c + 4], i[c + 8], i[c + 12], s, sw, nj, ss)
    return total
