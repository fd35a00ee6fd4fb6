"""The scorer: rules from a data file, then invariants as properties.

``data/hands.txt`` holds hands whose scores were worked out by hand, each with
the reason; the properties check that the itemized and the table-driven entry
points always agree, and that the itemization matches a naive reading of the
rules written out below.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import DECK, Card, parse_cards
from engine.errors import DuplicateCardError, HandSizeError
from engine.scoring import (
    WIN_SCORE,
    HandScore,
    heels_points,
    score_board,
    score_hand,
)
from engine.totals import board_total, board_total_indices, hand_total

DATA = Path(__file__).parent / "data" / "hands.txt"


@dataclass(frozen=True)
class Case:
    hand: tuple[str, ...]
    starter: str
    total: int
    fifteens: int
    pairs: int
    runs: tuple[int, int]  # (how many, length)
    flush: int
    nobs: int
    why: str
    line: int


def _load_cases() -> list[Case]:
    cases = []
    for number, raw in enumerate(DATA.read_text(encoding="utf-8").splitlines(), start=1):
        text, _, why = raw.partition("#")
        fields = text.split()
        if not fields:
            continue
        assert why.strip(), f"hands.txt line {number}: every hand needs a reason"
        hand, starter, total, items = fields[:4], fields[4], int(fields[5]), fields[6:]
        counts = {"fifteens": 0, "pairs": 0, "flush": 0, "nobs": 0}
        runs = (0, 0)
        for item in items:
            if item == "-":
                continue
            key, _, value = item.partition("=")
            if key == "runs":
                many, _, length = value.partition("x")
                runs = (int(many), int(length))
            else:
                assert key in counts, f"hands.txt line {number}: unknown item {key!r}"
                counts[key] = int(value)
        cases.append(
            Case(tuple(hand), starter, total, runs=runs, why=why.strip(), line=number, **counts)
        )
    return cases


CASES = _load_cases()


def cards(text: str) -> list[Card]:
    return parse_cards(text.split())


def _ids(case: Case) -> str:
    return f"{' '.join(case.hand)}+{case.starter}"


def test_data_file_is_consistent() -> None:
    """Each line's items add up to its total, so a typo in the file cannot hide."""
    assert len(CASES) >= 25
    for case in CASES:
        points = (
            2 * case.fifteens
            + 2 * case.pairs
            + case.runs[0] * case.runs[1]
            + case.flush
            + case.nobs
        )
        assert points == case.total, f"hands.txt line {case.line}"


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_hand_scores_from_data(case: Case) -> None:
    hand = parse_cards(case.hand, count=4)
    starter = Card.parse(case.starter)
    score = score_hand(hand, starter)
    assert score.total == case.total, case.why
    assert hand_total(hand, starter) == case.total, case.why
    assert len(score.fifteens) == case.fifteens, case.why
    assert len(score.pairs) == case.pairs, case.why
    assert (len(score.runs), len(score.runs[0]) if score.runs else 0) == case.runs, case.why
    assert len(score.flush) == case.flush, case.why
    assert score.nobs_points == case.nobs, case.why


def test_the_29_hand_itemized() -> None:
    score = score_hand(cards("5H 5D 5S JC"), Card.parse("5C"))
    as_text = {" ".join(str(c) for c in combo) for combo in score.fifteens}
    assert as_text == {
        "5H JC", "5D JC", "5S JC", "JC 5C",
        "5H 5D 5S", "5H 5D 5C", "5H 5S 5C", "5D 5S 5C",
    }  # fmt: skip
    assert score.nobs == Card.parse("JC")
    assert score.to_dict()["points"] == {
        "fifteens": 16,
        "pairs": 12,
        "runs": 0,
        "flush": 0,
        "nobs": 1,
    }


# --------------------------------------------------------------------------
# A naive reading of the rules, for comparison with the engine's itemization.


def reference_score(hand: list[Card], starter: Card) -> HandScore:
    five = (*hand, starter)
    fifteens = tuple(
        combo
        for size in range(2, 6)
        for combo in combinations(five, size)
        if sum(min(c.rank, 10) for c in combo) == 15
    )
    pairs = tuple((a, b) for a, b in combinations(five, 2) if a.rank == b.rank)
    runs: tuple[tuple[Card, ...], ...] = ()
    for size in (5, 4, 3):  # only the longest runs count
        runs = tuple(
            tuple(sorted(combo, key=lambda c: (c.rank, c.suit)))
            for combo in combinations(five, size)
            if _consecutive(sorted(c.rank for c in combo))
        )
        if runs:
            break
    flush: tuple[Card, ...] = ()
    if len({c.suit for c in hand}) == 1:
        flush = five if starter.suit == hand[0].suit else tuple(hand)
    nobs = next((c for c in hand if c.rank == 11 and c.suit == starter.suit), None)
    return HandScore(tuple(hand), starter, fifteens, pairs, runs, flush, nobs)


def _consecutive(ranks: list[int]) -> bool:
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


five_cards = st.lists(st.sampled_from(DECK), min_size=5, max_size=5, unique=True)
board_cards = st.lists(st.sampled_from(DECK), min_size=17, max_size=17, unique=True)


@given(five_cards)
@settings(max_examples=400)
def test_itemization_matches_the_rules(cards: list[Card]) -> None:
    hand, starter = cards[:4], cards[4]
    assert score_hand(hand, starter) == reference_score(hand, starter)


@given(five_cards, st.randoms(use_true_random=False))
def test_score_does_not_depend_on_card_order(cards: list[Card], rnd: random.Random) -> None:
    hand, starter = cards[:4], cards[4]
    shuffled = list(hand)
    rnd.shuffle(shuffled)
    first, second = score_hand(hand, starter), score_hand(shuffled, starter)
    assert first.total == second.total
    assert hand_total(shuffled, starter) == hand_total(hand, starter)
    for kind in ("fifteens", "pairs", "runs"):
        assert {frozenset(c) for c in getattr(first, kind)} == {
            frozenset(c) for c in getattr(second, kind)
        }


@given(five_cards)
@settings(max_examples=400)
def test_hand_total_equals_itemized_total(cards: list[Card]) -> None:
    hand, starter = cards[:4], cards[4]
    score = score_hand(hand, starter)
    assert hand_total(hand, starter) == score.total
    data = score.to_dict()
    assert data["total"] == score.total
    assert sum(data["points"].values()) == score.total  # type: ignore[attr-defined]


@given(board_cards)
def test_board_totals_agree(cards: list[Card]) -> None:
    board, starter = cards[:16], cards[16]
    score = score_board(board, starter)
    lines = [board[4 * r : 4 * r + 4] for r in range(4)] + [board[c::4] for c in range(4)]
    by_lines = sum(hand_total(line, starter) for line in lines) + heels_points(starter)
    assert board_total(board, starter) == score.total == by_lines
    assert board_total_indices([c.index for c in board], starter.index) == score.total
    assert [h.hand for h in score.rows] == [tuple(line) for line in lines[:4]]
    assert [h.hand for h in score.columns] == [tuple(line) for line in lines[4:]]
    assert score.win == (score.total >= WIN_SCORE)
    data = score.to_dict()
    assert data["total"] == score.total
    assert data["win"] == score.win


def test_heels_two_points_for_a_jack_starter() -> None:
    board = cards("AC 2C 3C 4C 5C 6C 7C 8C 9C TC QC KC AD 2D 3D 4D")
    with_jack = score_board(board, Card.parse("JH"))
    assert with_jack.heels == 2
    assert with_jack.total == sum(h.total for h in with_jack.lines) + 2
    assert score_board(board, Card.parse("5H")).heels == 0


def test_a_board_scored_by_hand() -> None:
    """Rows and columns worked out from the rules; the starter is 5C."""
    board = cards(
        """5H 5D 5S JC
           TH JD QS KH
           AH 2S 3D 4C
           9C 8D 7H 6S"""
    )
    score = score_board(board, Card.parse("5C"))
    # Row 1 is the 29 hand. Row 2: 5C with each of four ten-cards (8) and the
    # run T-J-Q-K (4) = 12. Row 3: A-2-3-4-5 run (5) and all five make 15 (2) = 7.
    # Row 4: 9-8-7-6-5 run (5); fifteens 9+6 and 8+7 (4) = 9.
    assert [h.total for h in score.rows] == [29, 12, 7, 9]
    # Column a 5H TH AH 9C + 5C: 5H+TH, TH+5C, 5H+9C+AH, 9C+AH+5C, pair 5H 5C = 10.
    # Column b 5D JD 2S 8D + 5C: 5D+JD, JD+5C, 2S+8D+5D, 2S+8D+5C, pair 5D 5C = 10.
    # Column c 5S QS 3D 7H + 5C: 5S+QS, QS+5C, 3D+7H+5S, 3D+7H+5C, pair 5S 5C = 10.
    # Column d JC KH 4C 6S + 5C: JC+5C, KH+5C, 4C+6S+5C (6), run 4-5-6 (3), nobs JC (1) = 10.
    assert [h.total for h in score.columns] == [10, 10, 10, 10]
    assert score.heels == 0
    assert score.total == 97
    assert score.win


def test_hand_size_and_duplicates_are_refused() -> None:
    three = cards("5H 5D 5S")
    with pytest.raises(HandSizeError):
        score_hand(three, Card.parse("5C"))
    with pytest.raises(DuplicateCardError):
        score_hand(cards("5H 5D 5S JC"), Card.parse("JC"))
    with pytest.raises(HandSizeError):
        score_board(list(DECK[:15]), DECK[20])
    with pytest.raises(DuplicateCardError):
        score_board(list(DECK[:16]), DECK[3])


def test_the_rank_table_is_rank_points_of_every_multiset() -> None:
    """The table built rank by rank holds exactly what rank_points gives each multiset."""
    from engine.totals import RANK_TABLE, _build_rank_table, rank_multisets, rank_points

    expected = {sum(5 ** (r - 1) for r in ranks): rank_points(ranks) for ranks in rank_multisets(5)}
    assert _build_rank_table() == expected == RANK_TABLE
    assert len(expected) == 6175
