"""The ladder of levels and the bots' styles: legal, deterministic, distinct, ordered."""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.bots import (
    ALIASES,
    LEVELS,
    BotView,
    Budget,
    Style,
    get_level,
    level_names,
    level_ratings,
    make_bot,
)
from engine.bots.prng import SplitMix64
from engine.cards import DECK
from engine.deal import deal
from engine.grid import Grid
from engine.totals import board_total
from tests.engine.test_bots import positions

# The expert levels at a small budget, so that the tests stay quick.
QUICK = Budget(simulations=48)


def board(name: str, seed: str, deal_seed: str, budget: Budget | None = QUICK) -> tuple[int, ...]:
    d = deal(deal_seed)
    bot = make_bot(name, seed)
    grid = Grid()
    cells = []
    for card in d.cards:
        cell = bot.choose(BotView.from_grid(grid, card), budget)
        grid.place(cell, card)  # raises if the bot broke a rule
        cells.append(cell)
    return tuple(cells)


def test_the_ladder_has_eight_levels_from_random_to_the_full_expert() -> None:
    assert [lv.name for lv in LEVELS] == [f"level-{n}" for n in range(1, 9)]
    assert LEVELS[0].strategy == "random"
    assert LEVELS[-1].strategy == "expert" and LEVELS[-1].simulations == 3000
    sims = [lv.simulations for lv in LEVELS if lv.strategy == "expert"]
    assert sims == sorted(sims) and len(set(sims)) == len(sims)
    assert {get_level(a).name for a in ALIASES} == {"level-1", "level-5", "level-7"}
    assert set(level_names()) == {*(lv.name for lv in LEVELS), "random", "greedy", "expert"}
    with pytest.raises(ValueError, match="no level"):
        get_level("level-9")


@pytest.mark.slow
@pytest.mark.parametrize("name", [lv.name for lv in LEVELS])
@settings(max_examples=15, deadline=None)
@given(position=positions(), seed=st.text(max_size=12))
def test_every_level_plays_legal_cells(name: str, position: tuple[Grid, int], seed: str) -> None:
    grid, card = position
    cell = make_bot(name, seed).choose(BotView.from_grid(grid, DECK[card]), QUICK)
    assert grid.why_illegal(cell) is None


@pytest.mark.parametrize("name", ["level-2", "level-5", "level-7"])
def test_a_move_is_a_pure_function_of_seed_position_and_budget(name: str) -> None:
    first = board(name, "room-1/bot-1", "pure")
    assert board(name, "room-1/bot-1", "pure") == first
    # A new bot with the same seed, asked out of order, answers the same.
    d = deal("pure")
    grid = Grid()
    for card, cell in zip(d.cards[:9], first, strict=False):
        grid.place(cell, card)
    view = BotView.from_grid(grid, d.cards[9])
    assert make_bot(name, "room-1/bot-1").choose(view, QUICK) == first[9]


@pytest.mark.parametrize("name", ["level-4", "level-5", "level-6", "level-7"])
def test_eight_bots_of_one_level_make_distinct_boards_on_one_deal(name: str) -> None:
    boards = {board(name, f"room-x/bot-{name}-{n}", "one deal") for n in range(1, 9)}
    assert len(boards) == 8


def test_the_style_of_a_bot_is_its_own() -> None:
    temps = {Style.seeded(f"bot-{n}", 1.0).temperature for n in range(20)}
    assert len(temps) == 20
    assert all(1 / math.sqrt(2) <= t <= math.sqrt(2) for t in temps)


def test_a_style_picks_only_near_moves_and_the_best_at_temperature_zero() -> None:
    ranked = [(10.0, 3), (9.9, 7), (9.0, 1), (2.0, 0)]
    rng = SplitMix64("pick")
    assert {Style(0.0).pick(ranked, rng) for _ in range(50)} == {3}
    near = {Style(0.5, margin=0.5).pick(ranked, rng) for _ in range(200)}
    assert near == {3, 7}
    loose = [Style(5.0).pick(ranked, rng) for _ in range(2000)]
    assert set(loose) == {3, 7, 1, 0}
    assert loose.count(3) > loose.count(1) > loose.count(0)
    with pytest.raises(ValueError):
        Style(-1.0)


def test_the_level_budget_is_its_own_within_the_callers() -> None:
    bot = make_bot("level-7", "b")
    assert bot.budget(None).simulations == 400
    assert bot.budget(Budget(simulations=100)).simulations == 100
    ticks = iter(range(1000))
    timed = bot.budget(Budget(seconds=2.0, clock=lambda: float(next(ticks))))
    assert timed.simulations == 400 and timed.seconds == 2.0
    d = deal("budget")
    grid = Grid()
    grid.place(5, d.cards[0])
    decision = bot.decide(BotView.from_grid(grid, d.cards[1]))
    assert 400 - 8 < decision.simulations <= 400


def test_levels_get_stronger_up_the_ladder() -> None:
    """On 20 fixed deals (deterministic): the beginner far below the greedy levels,
    the loose greedy levels below the plain one, the searching level above them."""
    seeds = [f"ladder-{i}" for i in range(20)]

    def mean(name: str, budget: Budget | None) -> float:
        totals = []
        for s in seeds:
            d = deal(s)
            cells = board(name, f"bot/{s}", s, budget)
            grid = Grid()
            for card, cell in zip(d.cards, cells, strict=True):
                grid.place(cell, card)
            totals.append(board_total(grid.cards(), d.starter))
        return statistics.mean(totals)

    level1, level2, level4, level6 = (
        mean("level-1", None),
        mean("level-2", None),
        mean("level-4", None),
        mean("level-6", None),
    )
    assert level1 + 4 < level2 < level4 < level6


def test_measured_ratings_are_shipped_for_every_level_in_order() -> None:
    ratings = level_ratings()
    assert set(ratings) == {lv.name for lv in LEVELS}
    values = [ratings[lv.name].rating for lv in LEVELS]
    assert values == sorted(values)


@pytest.mark.slow
def test_without_numpy_the_bots_play_on_in_pure_python() -> None:
    """numpy is optional: blocked from importing, the expert levels play the same moves."""
    import subprocess
    import sys
    from pathlib import Path

    program = (
        "import sys; sys.modules['numpy'] = None\n"
        "from engine.bots import BotView, Budget, make_bot\n"
        "from engine.bots.strategies import vectorized_available\n"
        "from engine.deal import deal\n"
        "from engine.grid import Grid\n"
        "assert not vectorized_available()\n"
        "d, grid, bot = deal('no numpy'), Grid(), make_bot('level-7', 'seat')\n"
        "for card in d.cards[:6]:\n"
        "    grid.place(bot.choose(BotView.from_grid(grid, card), Budget(simulations=80)), card)\n"
        "print(grid.cells())\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", program], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    d, grid, bot = deal("no numpy"), Grid(), make_bot("level-7", "seat")
    for card in d.cards[:6]:
        grid.place(bot.choose(BotView.from_grid(grid, card), Budget(simulations=80)), card)
    assert out.stdout.strip() == str(grid.cells())
