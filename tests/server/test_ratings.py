"""Glicko-2 against Glickman's published worked example, plus invariants."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.ratings import Rating, Result, rate_match, update


def test_glickman_worked_example() -> None:
    # "Example of the Glicko-2 system", Mark E. Glickman, 2013: tau = 0.5.
    player = Rating(1500, 200, 0.06)
    results = [
        Result(Rating(1400, 30), 1.0),
        Result(Rating(1550, 100), 0.0),
        Result(Rating(1700, 300), 0.0),
    ]
    new = update(player, results)
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.deviation == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=1e-5)


def test_inactivity_grows_deviation_up_to_cap() -> None:
    r = Rating(1600, 60, 0.06)
    later = update(r, [])
    assert later.rating == 1600
    assert later.deviation > 60
    assert update(Rating(1500, 499.9, 0.5), []).deviation == 500


def test_new_players_are_provisional_until_deviation_drops() -> None:
    a, b = Rating(), Rating()
    assert a.provisional
    a, b = rate_match(a, b, 1.0)
    assert a.rating > 1500 > b.rating
    assert a.provisional
    for game in range(30):
        a, b = rate_match(a, b, float(game % 2))
    assert not a.provisional and not b.provisional


ratings = st.builds(
    Rating,
    st.floats(800, 2400),
    st.floats(30, 350),
    st.floats(0.03, 0.09),
)


@given(ratings, ratings)
def test_winner_gains_loser_loses(a: Rating, b: Rating) -> None:
    new_a, new_b = rate_match(a, b, 1.0)
    assert new_a.rating > a.rating
    assert new_b.rating < b.rating


@given(ratings, ratings)
def test_draw_moves_toward_each_other(a: Rating, b: Rating) -> None:
    new_a, _ = rate_match(a, b, 0.5)
    if a.rating < b.rating - 1:
        assert new_a.rating > a.rating
    elif a.rating > b.rating + 1:
        assert new_a.rating < a.rating


def test_weeks_without_a_rated_match_grow_the_deviation_to_at_most_500() -> None:
    from server.ratings import MAX_DEVIATION, RATING_PERIOD_MS, RatingBook, aged, update

    settled = Rating(1700.0, 60.0, 0.06)
    # Closed form of step 6 repeated: the same as three empty periods one by one.
    stepped = update(update(update(settled, []), []), [])
    assert aged(settled, 3).deviation == pytest.approx(stepped.deviation)
    assert aged(settled, 0) == settled
    assert aged(settled, 100_000).deviation == MAX_DEVIATION
    book = RatingBook()
    book.rate("race", ("a", "ann"), ("b", "bea"), 1.0, now_ms=0)
    just_after = book.current("a", "race", 1_000)
    a_year_on = book.current("a", "race", 52 * RATING_PERIOD_MS)
    assert a_year_on.rating == just_after.rating
    assert just_after.deviation < a_year_on.deviation <= MAX_DEVIATION
    # The next match is rated from the grown deviation: it moves the rating further.
    fresh = RatingBook()
    fresh.rate("race", ("a", "ann"), ("b", "bea"), 1.0, now_ms=0)
    soon = fresh.rate("race", ("a", "ann"), ("b", "bea"), 1.0, now_ms=1_000)[0]
    late = book.rate("race", ("a", "ann"), ("b", "bea"), 1.0, now_ms=52 * RATING_PERIOD_MS)[0]
    assert late.after.rating - late.before.rating > soon.after.rating - soon.before.rating
