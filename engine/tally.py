"""The distribution of scores over every (4-card hand, starter) pair.

There are C(52, 4) * 48 = 12,994,800 pairs. Enumerating them one by one is
slow in Python, so :func:`tally` counts them by structure instead:

* fifteens, pairs and runs depend only on the multiset of the five ranks, so
  each of the 6,175 five-rank multisets is scored once (``RANK_TABLE``);
* for each multiset and each choice of the starter's rank, the number of ways
  to give the cards suits, and how many of those ways earn a flush (4 or 5) or
  nobs, depends only on a small *pattern* (how many of each rank, how many
  jacks, whether the starter is a jack), which is enumerated once and cached.

:func:`brute_force_tally` does the naive enumeration over a subset of starters
so tests can check the fast one against it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from math import comb
from typing import Final

from engine.cards import DECK, JACK
from engine.totals import RANK_TABLE, hand_total, rank_multisets

TOTAL_PAIRS: Final = comb(52, 4) * 48
MAX_HAND: Final = 29


@dataclass(frozen=True)
class Tally:
    counts: tuple[int, ...]  # counts[s] = pairs scoring s, s = 0..29

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def mean(self) -> float:
        return sum(s * n for s, n in enumerate(self.counts)) / self.pairs

    @property
    def maximum(self) -> int:
        return max(s for s, n in enumerate(self.counts) if n)


@cache
def _suit_bonus_counts(
    other_counts: tuple[int, ...], jacks: int, starter_rank_count: int, starter_is_jack: bool
) -> tuple[tuple[int, int], ...]:
    """(bonus, ways) for one pattern: flush and nobs points over all suitings."""
    # Build representative ranks: jack = 11, starter rank = 1 unless a jack,
    # the other hand ranks 2, 3, ... with their counts.
    hand_ranks: list[tuple[int, int]] = []
    if jacks:
        hand_ranks.append((JACK, jacks))
    starter_rank = JACK if starter_is_jack else 1
    if not starter_is_jack and starter_rank_count:
        hand_ranks.append((1, starter_rank_count))
    hand_ranks.extend((2 + k, c) for k, c in enumerate(other_counts))

    choices = [list(combinations(range(4), c)) for _, c in hand_ranks]
    ways: Counter[int] = Counter()

    def walk(k: int, suits: list[tuple[int, int]]) -> None:
        if k == len(hand_ranks):
            used = {s for r, s in suits if r == starter_rank}
            hand_suits = {s for _, s in suits}
            for ss in range(4):
                if ss in used:
                    continue
                bonus = 0
                if len(hand_suits) == 1:
                    bonus += 5 if ss in hand_suits else 4
                if not starter_is_jack and any(r == JACK and s == ss for r, s in suits):
                    bonus += 1
                ways[bonus] += 1
            return
        rank = hand_ranks[k][0]
        for subset in choices[k]:
            walk(k + 1, suits + [(rank, s) for s in subset])

    walk(0, [])
    return tuple(sorted(ways.items()))


def tally() -> Tally:
    """Count the (hand, starter) pairs scoring 0..29, by structure."""
    counts = [0] * (MAX_HAND + 1)
    for ranks in rank_multisets(5):
        base = RANK_TABLE[sum(5 ** (r - 1) for r in ranks)]
        multiplicity = Counter(ranks)
        for starter_rank in multiplicity:
            hand = multiplicity.copy()
            hand[starter_rank] -= 1
            jacks = hand[JACK]
            starter_is_jack = starter_rank == JACK
            srank_count = 0 if starter_is_jack else hand[starter_rank]
            others = tuple(
                sorted(c for r, c in hand.items() if c and r != JACK and r != starter_rank)
            )
            for bonus, ways in _suit_bonus_counts(others, jacks, srank_count, starter_is_jack):
                counts[base + bonus] += ways
    return Tally(tuple(counts))


def brute_force_tally(starters: Iterable[int] = range(52)) -> Tally:
    """Score every hand for each given starter index, one by one (slow)."""
    counts = [0] * (MAX_HAND + 1)
    for s in starters:
        starter = DECK[s]
        rest = [c for c in DECK if c is not starter]
        for hand in combinations(rest, 4):
            counts[hand_total(hand, starter)] += 1
    return Tally(tuple(counts))
