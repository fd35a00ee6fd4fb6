"""The daily deal's pure rules: days, the schedule, the derivation, standings, streaks."""

from __future__ import annotations

import hashlib
from datetime import date, timedelta
from pathlib import Path

import pytest

from engine.deal import commitment, deal, room_seed
from server.daily import days, standings
from server.daily.standings import Streak

DAY = days.DAY_MS


def test_days_are_utc_dates_and_their_bounds() -> None:
    assert days.day_name(0) == "1970-01-01"
    assert days.day_number(20_000 * DAY) == 20_000
    assert days.day_name(20_000) == "2024-10-04"
    assert days.parse_day("2024-10-04") == 20_000
    assert days.day_number(days.ends_ms(20_000) - 1) == 20_000
    assert days.day_number(days.ends_ms(20_000)) == 20_001
    assert days.starts_ms(20_001) == days.ends_ms(20_000)
    for bad in ("2024-13-01", "2024-10-4", "20241004", "yesterday", "2024-02-30"):
        with pytest.raises(ValueError):
            days.parse_day(bad)


def test_day_names_agree_with_datetime_over_the_whole_of_its_range() -> None:
    epoch = date(1970, 1, 1)
    first, last = (date(1, 1, 1) - epoch).days, (date(9999, 12, 31) - epoch).days
    for number in [*range(first, last + 1, 97), *range(-1000, 30_000), last]:
        name = (epoch + timedelta(days=number)).isoformat()
        assert days.day_name(number) == name
        assert days.parse_day(name) == number
    for bad in ("0000-03-01", "2023-02-29", "1900-02-29", "2024-04-31", "2024-00-10",
                "2024-01-00", "２０２４-01-01", "+024-01-01", "2024-1-001"):  # fmt: skip
        with pytest.raises(ValueError):
            days.parse_day(bad)
    assert days.parse_day("2000-02-29") == (date(2000, 2, 29) - epoch).days


def test_the_window_is_today_and_seven_days_ahead() -> None:
    assert list(days.window(100)) == list(range(100, 108))
    assert days.missing(100, {100, 101, 104}) == [102, 103, 105, 106, 107]
    assert days.missing(100, set(range(90, 110))) == []


def test_the_deal_of_a_day_is_a_room_seed_of_its_secret_and_name() -> None:
    secret = "7d1f0c2a9be34e55"
    seed = days.seed(secret, 20_000)
    by_hand = hashlib.sha256(
        b"cribsquares/room-seed/v1" + (16).to_bytes(4, "big") + secret.encode()
        + (10).to_bytes(4, "big") + b"2024-10-04"
    ).hexdigest()  # fmt: skip
    assert seed == by_hand == room_seed(secret, ["2024-10-04"])
    assert days.verify(secret, commitment(secret).upper(), 20_000, seed)
    assert not days.verify(secret, commitment(secret), 20_001, seed)  # another day's deal
    assert not days.verify("other", commitment(secret), 20_000, seed)
    assert days.embargo(20_000) == "daily/2024-10-04"
    # two days with the same secret would still deal differently
    assert deal(days.seed(secret, 1)).cards != deal(days.seed(secret, 2)).cards


def test_ranks_share_equal_scores_and_percentiles_count_the_others_below_and_half_level() -> None:
    rows = standings.rank({"a": 40, "b": 31, "c": 31, "d": 12, "e": 55})
    assert [(r.player_id, r.rank, r.percentile) for r in rows] == [
        ("e", 1, 100), ("a", 2, 75), ("b", 3, 37), ("c", 3, 37), ("d", 5, 0),
    ]  # fmt: skip
    assert standings.rank({"solo": 20})[0].percentile == 100
    assert [r.percentile for r in standings.rank({"x": 9, "y": 9})] == [50, 50]
    assert [r.percentile for r in standings.rank({"x": 9, "y": 9, "z": 9})] == [50, 50, 50]
    assert [r.percentile for r in standings.rank({"x": 9, "y": 9, "z": 1})] == [75, 75, 0]
    assert standings.rank({}) == []


def streak(played: set[int], upto: int) -> int:
    """The rule, as docs/daily.md says it: consecutive days played ending with ``upto``."""
    count = 0
    while upto - count in played:
        count += 1
    return count


def test_the_folded_streak_is_the_rule() -> None:
    played = [3, 4, 5, 7, 8, 9, 10, 12]
    fold = Streak.of(played[:1])
    for d in played[1:]:
        fold.add(d)
    fold.add(12)  # the same day twice counts once
    assert fold == Streak.of(reversed(played))
    assert fold.longest == 4
    assert [fold.held(today) for today in range(12, 16)] == [(1, 4), (1, 4), (0, 4), (0, 4)]
    assert [fold.on(d) for d in (12, 11)] == [1, 0]
    # What the desk asks: a day of the run that ends with the last day folded.
    upto_10 = Streak.of(d for d in played if d <= 10)
    assert [upto_10.on(d) for d in (10, 9, 8, 7)] == [streak(set(played), d) for d in (10, 9, 8, 7)]
    assert Streak.of([14, 15]).held(15) == (2, 2)  # played today
    assert Streak.of([14, 15]).held(16) == (2, 2)  # not yet today: still held
    assert Streak.of([14, 15]).held(17) == (0, 2)  # a day missed


def test_the_field_counts_where_each_turns_card_went() -> None:
    cards = [f"{r}C" for r in "A23456789TJQK"] + ["AD", "2D", "3D"]
    one = [None] * 16
    one[5] = "AC"  # turn 1 in b2
    one[0] = "2C"  # turn 2 in a1
    two = [None] * 16
    two[5] = "AC"
    two[6] = "2C"
    counts = standings.field(cards, [one, two])
    assert counts[0][5] == 2 and sum(counts[0]) == 2
    assert counts[1][0] == 1 and counts[1][6] == 1
    assert sum(counts[2]) == 0
    assert standings.turn_cells(cards, one)[:3] == [5, 0, None]


def test_the_worked_example_and_the_code_of_fairness_md() -> None:
    doc = (Path(__file__).resolve().parents[3] / "docs" / "fairness.md").read_text()
    section = doc.split("## The daily deal")[1].split("\n## ")[0]
    flat = " ".join(section.split())
    secret = "3f6c0a9e41d7b28c5e0f9a6d13b7c4e2a8f05d196e3b7c2a4d8e1f0b9c6a5d37"
    day = days.parse_day("2026-03-14")
    seed = days.seed(secret, day)
    dealt = deal(seed)
    assert f"S_d = {secret}" in flat
    assert f"its commitment `{commitment(secret)}`" in flat
    assert f"the seed is `{seed}`" in flat
    cards = " ".join(str(c) for c in dealt.cards)
    assert f"which deals `{cards}`, starter `{dealt.starter}`" in flat
    # The page's own Python, run as a reader would: the same seed.
    code = section.split("```python\n")[1].split("```")[0]
    scope: dict[str, object] = {}
    exec(code, scope)
    assert scope["daily_seed"](secret, "2026-03-14") == seed  # type: ignore[operator]
