"""Post-game analysis: the hindsight search against brute force, and the move review."""

from __future__ import annotations

from itertools import permutations

import pytest

from engine.analysis import (
    analyse_game,
    hindsight_best,
    is_reachable,
    partition_bound,
    review_moves,
)
from engine.bots import BotView, Budget, make_strategy
from engine.deal import deal
from engine.errors import IllegalPlacementError
from engine.grid import Grid, parse_cell
from engine.scoring import score_board

READING_ORDER = list(range(16))


def played(name: str, seed: str, sims: int = 64) -> list[int]:
    d = deal(seed)
    bot = make_strategy(name, seed)
    grid = Grid()
    cells = []
    for card in d.cards:
        cell = bot.choose(BotView.from_grid(grid, card), Budget(simulations=sims))
        grid.place(cell, card)
        cells.append(cell)
    return cells


def score_of(order: list[int], seed: str) -> int:
    d = deal(seed)
    board = [d.cards[0]] * 16
    for card, cell in zip(d.cards, order, strict=True):
        board[cell] = card
    return score_board(board, d.starter).total


def test_reachability_is_the_touch_rule() -> None:
    assert is_reachable(READING_ORDER)
    assert not is_reachable([0, 15, *range(1, 15)])
    assert is_reachable([5, 0, 15 - 5, 15, *[c for c in range(16) if c not in (5, 0, 10, 15)]])
    with pytest.raises(IllegalPlacementError):
        hindsight_best(deal("x").cards, deal("x").starter, fixed=[0, 15])


@pytest.mark.parametrize("seed", ["brute-1", "brute-2", "brute-3"])
def test_exhaustive_search_matches_brute_force(seed: str) -> None:
    """Fix the first 10 cards where a bot put them; brute-force the last 6."""
    d = deal(seed)
    prefix = played("greedy", seed)[:10]
    free = [c for c in range(16) if c not in prefix]
    brute = max(
        score_of(prefix + list(rest), seed)
        for rest in permutations(free)
        if is_reachable(prefix + list(rest))
    )
    best = hindsight_best(d.cards, d.starter, fixed=prefix)
    assert best.optimal and best.method == "exhaustive"
    assert best.score == brute
    assert list(best.placements[:10]) == prefix
    assert is_reachable(best.placements)
    assert score_board(list(best.cells), d.starter).total == best.score


def test_partition_bound_is_an_upper_bound_and_tight_for_one_partition() -> None:
    d = deal("bound")
    idx = [c.index for c in d.cards]
    best_rows = partition_bound(idx, d.starter.index)
    rows = sum(score_board(list(d.cards), d.starter).rows[i].total for i in range(4))
    assert best_rows >= rows


@pytest.mark.parametrize("seed", ["hind-1", "hind-2"])
def test_hindsight_beats_the_game_and_is_reachable(seed: str) -> None:
    d = deal(seed)
    cells = played("greedy", seed)
    actual = score_of(cells, seed)
    best = hindsight_best(d.cards, d.starter, placements=cells, budget=20_000)
    assert best.score >= actual
    assert best.score > actual or best.optimal
    assert is_reachable(best.placements)
    assert score_board(list(best.cells), d.starter).total == best.score
    assert best.upper_bound is not None and best.score <= best.upper_bound
    assert best.optimal == (best.score == best.upper_bound)
    assert best.work <= 20_000
    again = hindsight_best(d.cards, d.starter, placements=cells, budget=20_000)
    assert again == best


def test_the_bots_own_moves_lose_nothing_and_random_moves_do() -> None:
    seed = "review"
    d = deal(seed)
    bot_cells = played("expert", seed, sims=64)
    review = review_moves(d.cards, bot_cells, seed=seed, simulations=64)
    assert [m.bot_cell for m in review] == bot_cells
    assert all(m.loss == 0 for m in review)
    random_cells = played("random", seed)
    review = review_moves(d.cards, random_cells, seed=seed, simulations=64)
    assert all(m.loss >= 0 for m in review)
    assert sum(m.loss for m in review) > 5
    for m in review:
        assert m.played in m.estimates or len(m.estimates) == 0
        assert m.loss == pytest.approx(
            max(m.estimates.values(), default=0) - m.estimates.get(m.played, 0)
        )


def test_analyse_game_to_dict() -> None:
    seed = "dict"
    d = deal(seed)
    cells = played("greedy", seed)
    analysis = analyse_game(d.cards, d.starter, cells, simulations=32, search_budget=3000)
    data = analysis.to_dict()
    assert data["score"] == score_of(cells, seed)
    assert data["placements"] == [analysis.moves[i].to_dict()["played"] for i in range(16)]
    assert parse_cell(str(data["placements"][0])) == cells[0]
    hindsight = data["hindsight"]
    assert isinstance(hindsight, dict) and hindsight["score"] >= data["score"]
    with pytest.raises(IllegalPlacementError):
        analyse_game(d.cards, d.starter, [0, 15, *range(1, 15)])
