"""The daily deal's pure rules: days, the schedule, the derivation, standings, streaks."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from engine.deal import commitment, deal, room_seed
from server.daily import days, standings
from server.daily.desk import Streak

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


def test_ranks_share_equal_scores_and_percentiles_count_the_others_below() -> None:
    rows = standings.rank({"a": 40, "b": 31, "c": 31, "d": 12, "e": 55})
    assert [(r.player_id, r.rank, r.percentile) for r in rows] == [
        ("e", 1, 100), ("a", 2, 75), ("b", 3, 25), ("c", 3, 25), ("d", 5, 0),
    ]  # fmt: skip
    assert standings.rank({"solo": 20})[0].percentile == 100
    assert [r.percentile for r in standings.rank({"x": 9, "y": 9})] == [0, 0]
    assert standings.rank({}) == []


def test_streaks_count_consecutive_days_played() -> None:
    played = {10, 11, 12, 14, 15}
    assert standings.streak(played, 12) == 3
    assert standings.streak(played, 13) == 0
    assert standings.streak(played, 15) == 2
    assert standings.current_streak(played, 15) == 2  # played today
    assert standings.current_streak(played, 16) == 2  # not yet today: still held
    assert standings.current_streak(played, 17) == 0  # a day missed
    assert standings.longest_streak(played) == 3
    assert standings.longest_streak(()) == 0


def test_the_desks_folded_streak_agrees_with_the_rule() -> None:
    played = [3, 4, 5, 7, 8, 9, 10, 12]
    fold = Streak(played[0], 1, 1)
    for d in played[1:]:
        fold.add(d)
    fold.add(12)  # the same day twice counts once
    assert fold.longest == standings.longest_streak(played) == 4
    for today in range(12, 16):  # the server's today is never before a day played
        assert fold.held(today).current == standings.current_streak(played, today)
    assert fold.on(12) == 1 and fold.on(11) == 0


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
