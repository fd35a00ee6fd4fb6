"""The tally of all (hand, starter) pairs against the published distribution."""

from __future__ import annotations

from itertools import combinations
from math import comb

import pytest

from engine.cards import DECK
from engine.scoring import score_hand
from engine.tally import TOTAL_PAIRS, Tally, brute_force_tally, tally

# The distribution of cribbage hand scores (4-card hand and starter), as
# published in cribbage references: number of pairs scoring 0, 1, ..., 29.
PUBLISHED = (
    1_009_008, 99_792, 2_813_796, 505_008, 2_855_676, 697_508, 1_800_268, 751_324,
    1_137_236, 361_224, 388_740, 51_680, 317_340, 19_656, 90_100, 9_168,
    58_248, 11_196, 2_708, 0, 8_068, 2_496, 444, 356,
    3_680, 0, 0, 0, 76, 4,
)  # fmt: skip


def test_tally_matches_the_published_distribution() -> None:
    result = tally()
    assert result.pairs == TOTAL_PAIRS == comb(52, 4) * 48 == 12_994_800
    assert result.counts[0] == 1_009_008
    assert result.counts[29] == 4
    for impossible in (19, 25, 26, 27):
        assert result.counts[impossible] == 0
    assert result.counts == PUBLISHED
    assert result.maximum == 29
    assert abs(result.mean - 4.7692) < 1e-4


@pytest.mark.slow
def test_structural_tally_matches_brute_force_over_the_clubs() -> None:
    """Suits are symmetric, so the 13 club starters, times 4, give the whole tally."""
    clubs = brute_force_tally(range(13))
    assert clubs.pairs == 13 * comb(51, 4)
    assert Tally(tuple(4 * n for n in clubs.counts)) == tally()


def test_the_four_29_hands_are_the_ones_expected() -> None:
    """Only the jack of the starter's suit with the other three fives scores 29."""
    fives = [c for c in DECK if c.rank == 5]
    found = []
    for starter in fives:
        rest = [c for c in DECK if c != starter and (c.rank == 5 or c.rank == 11)]
        for hand in combinations(rest, 4):
            if score_hand(hand, starter).total == 29:
                found.append((tuple(sorted(hand)), starter))
    assert len(found) == 4
    for hand, starter in found:
        jacks = [c for c in hand if c.rank == 11]
        assert len(jacks) == 1 and jacks[0].suit == starter.suit
