"""A row's or column's points before the starter (engine.scoring.points_so_far), checked
against the rank table's own count (engine.totals.rank_points) on every line size."""

from __future__ import annotations

import random

import pytest

from engine.cards import DECK, Card
from engine.errors import DuplicateCardError, HandSizeError
from engine.scoring import points_so_far, score_hand
from engine.totals import rank_points


def cards(*texts: str) -> list[Card]:
    return [Card.parse(t) for t in texts]


def test_examples() -> None:
    assert points_so_far([]) == 0
    assert points_so_far(cards("5H")) == 0
    assert points_so_far(cards("5H", "TD")) == 2  # fifteen two
    assert points_so_far(cards("5H", "5D", "5C")) == 2 * 1 + 3 * 2  # 15 once, three pairs
    assert points_so_far(cards("3H", "3D", "4C", "5S")) == 2 + 2 + 2 * 3  # 15, pair, double run
    assert points_so_far(cards("2H", "4H", "6H", "8H")) == 4  # a flush of four
    assert points_so_far(cards("JH", "5H")) == 2  # no nobs without a starter


def test_it_is_the_rank_count_plus_a_four_card_flush() -> None:
    rng = random.Random(7)
    for _ in range(3_000):
        line = rng.sample(DECK, rng.randint(0, 4))
        flush = 4 if len(line) == 4 and len({c.suit for c in line}) == 1 else 0
        assert points_so_far(line) == rank_points([c.rank for c in line]) + flush, line


def test_a_full_line_never_scores_more_than_with_any_starter() -> None:
    rng = random.Random(8)
    for _ in range(500):
        *line, starter = rng.sample(DECK, 5)
        assert points_so_far(line) <= score_hand(line, starter).total


def test_a_line_is_at_most_four_distinct_cards() -> None:
    with pytest.raises(HandSizeError):
        points_so_far(DECK[:5])
    with pytest.raises(DuplicateCardError):
        points_so_far([DECK[0], DECK[0]])
