"""The expert's numpy rollouts make the same decisions as the pure-Python loop, cell by
cell and estimate by estimate, and draw the same futures from the same generator."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.bots import BotView, Budget, make_bot
from engine.bots.fast import sample_future, unseen_cards
from engine.bots.prng import SplitMix64
from engine.bots.strategies import ExpertStrategy, vectorized_available
from engine.cards import DECK
from engine.deal import deal
from engine.grid import Grid
from tests.engine.test_bots import positions

np = pytest.importorskip("numpy")

from engine.bots.vectorized import draws_below, sample_futures  # noqa: E402


def both(view: BotView, seed: str, budget: Budget, **search: int) -> tuple[object, object]:
    loop = ExpertStrategy(seed, vectorized=False, **search).decide(view, budget)
    arrays = ExpertStrategy(seed, vectorized=True, **search).decide(view, budget)
    return loop, arrays


def test_numpy_is_used_when_it_is_there() -> None:
    assert vectorized_available()
    assert ExpertStrategy().vectorized and not ExpertStrategy(vectorized=False).vectorized


@pytest.mark.parametrize(("simulations", "depth"), [(400, 6), (120, 16), (56, 3)])
def test_whole_games_decide_the_same_cell_by_cell(simulations: int, depth: int) -> None:
    """Every decision of three games: the cell, every candidate's estimate, the work."""
    budget = Budget(simulations=simulations)
    for game in range(3):
        d = deal(f"vector-{game}")
        grid = Grid()
        for card in d.cards:
            view = BotView.from_grid(grid, card)
            loop, arrays = both(view, f"seat-{game}", budget, depth=depth)
            assert loop == arrays, (game, view.turn)
            grid.place(loop.cell, card)  # type: ignore[attr-defined]


@settings(max_examples=40, deadline=None)
@given(position=positions(), seed=st.integers(0, 2**64 - 1), depth=st.sampled_from([2, 6, 16]))
def test_any_position_decides_the_same(position: tuple[Grid, int], seed: int, depth: int) -> None:
    grid, card = position
    view = BotView.from_grid(grid, DECK[card])
    loop, arrays = both(view, str(seed), Budget(simulations=48), depth=depth)
    assert loop == arrays


def test_the_levels_play_the_same_games_either_way() -> None:
    d = deal("vector-levels")
    for name in ("level-6", "level-8"):
        boards = []
        for vectorized in (False, True):
            bot = make_bot(name, "room/bot-1", vectorized=vectorized)
            grid = Grid()
            for card in d.cards:
                grid.place(bot.choose(BotView.from_grid(grid, card), Budget(simulations=200)), card)
            boards.append(grid.cells())
        assert boards[0] == boards[1]


@given(seed=st.integers(0, 2**64 - 1), bounds=st.lists(st.integers(1, 52), max_size=60))
def test_batch_draws_are_the_generators_own(seed: int, bounds: list[int]) -> None:
    one, batch = SplitMix64(seed), SplitMix64(seed)
    assert draws_below(batch, bounds) == [one.below(n) for n in bounds]
    assert batch.next64() == one.next64()  # both generators end in the same state


@given(seed=st.text(max_size=8), seen=st.integers(1, 16), rounds=st.integers(1, 12))
def test_batch_futures_are_the_same_futures(seed: str, seen: int, rounds: int) -> None:
    need = 17 - seen
    one, batch = SplitMix64(seed), SplitMix64(seed)
    unseen_one, unseen_batch = unseen_cards(range(seen)), unseen_cards(range(seen))
    expected = [sample_future(one, unseen_one, need) for _ in range(rounds)]
    assert sample_futures(batch, unseen_batch, need, rounds) == expected
    assert unseen_batch == unseen_one and batch.state == one.state
