"""The bots: legal moves only, determinism, budgets, and the strength ordering."""

from __future__ import annotations

import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.bots import (
    STRATEGIES,
    BotView,
    Budget,
    ExpertStrategy,
    fallback_cell,
    make_strategy,
)
from engine.bots.fast import FastBoard, board_score, greedy_cell, rollout
from engine.bots.prng import SplitMix64
from engine.cards import DECK
from engine.deal import deal
from engine.grid import Grid
from engine.totals import board_total_indices

FAST = Budget(simulations=64)


def play(name: str, seed: str, budget: Budget = FAST) -> tuple[list[int], int]:
    d = deal(seed)
    bot = make_strategy(name, f"bot/{seed}")
    grid = Grid()
    cells = []
    for card in d.cards:
        cell = bot.choose(BotView.from_grid(grid, card), budget)
        grid.place(cell, card)  # raises if the bot broke a rule
        cells.append(cell)
    return cells, board_total_indices([c.index for c in grid.cards()], d.starter.index)


@st.composite
def positions(draw: st.DrawFn) -> tuple[Grid, int]:
    """A grid after some legal placements, and the card to place next."""
    cards = draw(st.permutations(range(52)))
    moves = draw(st.integers(0, 15))
    grid = Grid()
    for i in range(moves):
        legal = grid.legal_cells()
        grid.place(legal[draw(st.integers(0, len(legal) - 1))], DECK[cards[i]])
    return grid, cards[moves]


@pytest.mark.parametrize("name", sorted(STRATEGIES))
@settings(max_examples=25, deadline=None)
@given(position=positions(), seed=st.integers(0, 2**64))
def test_strategies_choose_legal_cells(name: str, position: tuple[Grid, int], seed: int) -> None:
    grid, card = position
    view = BotView.from_grid(grid, DECK[card])
    cell = make_strategy(name, seed).choose(view, Budget(simulations=40))
    assert grid.why_illegal(cell) is None


@settings(max_examples=40, deadline=None)
@given(position=positions())
def test_fallback_is_legal_and_greedy(position: tuple[Grid, int]) -> None:
    grid, card = position
    cell = fallback_cell(grid, DECK[card])
    assert grid.why_illegal(cell) is None
    assert cell == make_strategy("greedy").choose(BotView.from_grid(grid, DECK[card]))


def test_view_hides_nothing_it_should_not_and_knows_the_turn() -> None:
    d = deal("view")
    grid = Grid()
    grid.place(5, d.cards[0])
    view = BotView.from_grid(grid, d.cards[1])
    assert view.turn == 2
    assert view.seen == (d.cards[0], d.cards[1])


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_same_seed_same_game_other_seed_may_differ(name: str) -> None:
    assert play(name, "det-1") == play(name, "det-1")


def test_random_and_expert_depend_on_the_seed() -> None:
    d = deal("seeds")
    grid = Grid()
    for card, cell in zip(d.cards[:6], (5, 6, 9, 10, 4, 1), strict=True):
        grid.place(cell, card)
    view = BotView.from_grid(grid, d.cards[6])
    picks = {make_strategy("random", s).choose(view) for s in range(40)}
    assert len(picks) > 3
    estimates = {
        tuple(make_strategy("expert", s).decide(view, FAST).estimates.items()) for s in range(3)
    }
    assert len(estimates) == 3


def test_work_budget_is_respected_and_used() -> None:
    d = deal("budget")
    grid = Grid()
    grid.place(5, d.cards[0])
    view = BotView.from_grid(grid, d.cards[1])
    bot = ExpertStrategy("b")
    for sims in (0, 7, 50, 333):
        decision = bot.decide(view, Budget(simulations=sims))
        assert decision.simulations <= sims
        assert decision.simulations > sims - len(bot.candidate_cells(view))
        assert grid.why_illegal(decision.cell) is None


def test_time_budget_stops_on_the_callers_clock() -> None:
    ticks = iter(range(1000))
    clock = lambda: float(next(ticks))  # noqa: E731 - one tick per reading
    d = deal("clock")
    view = BotView.from_grid(Grid(), d.cards[0])
    decision = ExpertStrategy().decide(view, Budget(simulations=10_000, seconds=2.5, clock=clock))
    assert decision.simulations == 3 * 3  # three rounds over the three first-move cells


def test_budget_needs_both_seconds_and_clock() -> None:
    with pytest.raises(ValueError):
        Budget(seconds=1.0)


def test_rollout_scores_exactly_and_leaves_the_board_alone() -> None:
    rng = SplitMix64(1)
    deck = list(range(52))
    rng.shuffle_prefix(deck, 17)
    board = FastBoard.from_cells([*deck[:4], *([-1] * 12)])
    before = board.cells[:]
    from engine.bots import line_values

    score = rollout(board, deck[4:16], deck[16], line_values())
    assert board.cells == before
    slow = board.copy()
    for card in deck[4:16]:
        slow.place(greedy_cell(slow, card, line_values()), card)
    assert score == board_total_indices(slow.cells, deck[16])
    assert board_score(deck[:16], deck[16]) == board_total_indices(deck[:16], deck[16])


def test_prng_is_deterministic_and_spread() -> None:
    a, b = SplitMix64("x"), SplitMix64("x")
    assert [a.next64() for _ in range(5)] == [b.next64() for _ in range(5)]
    counts = [0] * 6
    rng = SplitMix64(3)
    for _ in range(6000):
        counts[rng.below(6)] += 1
    assert all(900 < c < 1100 for c in counts)


SEEDS = [f"strength-{i}" for i in range(30)]


def test_expert_beats_greedy_beats_random() -> None:
    """On 30 fixed deals (deterministic, so never flaky).

    Measured: random 39.7, greedy 58.1, expert (200 simulations) 60.3. The
    greedy-over-random margin is huge; expert-over-greedy is about 2 points,
    as on 200 deals (docs/bots.md), so the last check allows no slack but
    needs no luck either.
    """
    scores = {
        name: [play(name, seed, Budget(simulations=200))[1] for seed in SEEDS]
        for name in ("random", "greedy", "expert")
    }
    mean = {name: statistics.mean(s) for name, s in scores.items()}
    assert mean["greedy"] > mean["random"] + 10
    assert mean["expert"] > mean["random"] + 10
    assert mean["expert"] > mean["greedy"] + 1
