"""Post-game analysis of one finished deal: the hindsight best board and a move review.

Given the 16 cards in deal order, the starter and the cells a player chose:

* :func:`hindsight_best` searches for the highest-scoring board the player
  could have built knowing all 17 cards. The touch rule makes the *order*
  matter: an arrangement is reachable iff, filling the cells in deal order,
  each cell touches one filled before it. When few cards are free (a fixed
  prefix of placements is given) every reachable completion is enumerated and
  the result is proved optimal. Otherwise an iterated local search over
  reachable arrangements (swap two cards' cells, keep the swap if the order is
  still reachable and the score does not drop; random kicks at local optima)
  runs for a work budget, and the result is proved optimal only if it meets an
  upper bound: the rows and the columns each partition the 16 cards into four
  hands, so neither can beat the best partition (found by dynamic programming
  over card subsets); the bound is twice that plus heels.
* :func:`review_moves` replays the game and asks the expert bot, at every turn,
  which cell it would have chosen and what each cell is worth in expectation
  (its own seeded Monte Carlo evaluation, without knowledge of the future);
  the expected loss of a move is the best estimate minus the estimate of the
  cell actually played, on the same simulated futures.

Everything is deterministic given the seed and the budgets. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Final

from engine.bots.fast import board_score, line_score
from engine.bots.prng import SplitMix64
from engine.bots.strategies import DEFAULT_SIMULATIONS, BotView, ExpertStrategy
from engine.cards import DECK, Card, ensure_distinct
from engine.errors import HandSizeError, IllegalPlacementError
from engine.grid import CELLS, NEIGHBOURS, Grid, cell_name
from engine.scoring import heels_points

EXHAUSTIVE_FREE_CARDS: Final = 8
DEFAULT_SEARCH_BUDGET: Final = 60_000
KICK_SWAPS: Final = 3


@dataclass(frozen=True)
class HindsightBoard:
    """The best board found knowing every card, and how it was found."""

    cells: tuple[Card, ...]
    placements: tuple[int, ...]
    score: int
    upper_bound: int | None
    optimal: bool
    method: str
    work: int

    def to_dict(self) -> dict[str, object]:
        return {
            "cells": [str(c) for c in self.cells],
            "placements": [cell_name(i) for i in self.placements],
            "score": self.score,
            "upper_bound": self.upper_bound,
            "optimal": self.optimal,
            "method": self.method,
            "work": self.work,
        }


@dataclass(frozen=True)
class MoveReview:
    """One turn: the card, the cell played, the bot's choice and the expected loss."""

    turn: int
    card: Card
    played: int
    bot_cell: int
    best_cell: int
    estimates: dict[int, float]
    loss: float

    def to_dict(self) -> dict[str, object]:
        return {
            "turn": self.turn,
            "card": str(self.card),
            "played": cell_name(self.played),
            "bot": cell_name(self.bot_cell),
            "best": cell_name(self.best_cell),
            "estimates": {cell_name(c): round(v, 3) for c, v in sorted(self.estimates.items())},
            "loss": round(self.loss, 3),
        }


@dataclass(frozen=True)
class GameAnalysis:
    cards: tuple[Card, ...]
    starter: Card
    placements: tuple[int, ...]
    score: int
    hindsight: HindsightBoard
    moves: tuple[MoveReview, ...]

    @property
    def total_loss(self) -> float:
        return sum(m.loss for m in self.moves)

    def to_dict(self) -> dict[str, object]:
        return {
            "cards": [str(c) for c in self.cards],
            "starter": str(self.starter),
            "placements": [cell_name(i) for i in self.placements],
            "score": self.score,
            "hindsight": self.hindsight.to_dict(),
            "moves": [m.to_dict() for m in self.moves],
            "total_loss": round(self.total_loss, 3),
        }


# --------------------------------------------------------------------------
# Reachability and scoring of arrangements


def is_reachable(order: Sequence[int]) -> bool:
    """True if filling ``order[0], order[1], ...`` obeys the touch rule."""
    touch = NEIGHBOURS[order[0]]
    for cell in order[1:]:
        if not touch >> cell & 1:
            return False
        touch |= NEIGHBOURS[cell]
    return True


def _score(order: Sequence[int], cards: Sequence[int], starter: int) -> int:
    cells = [0] * CELLS
    for card, cell in zip(cards, order, strict=True):
        cells[cell] = card
    return board_score(cells, starter)


def partition_bound(cards: Sequence[int], starter: int) -> int:
    """The best total of four hands partitioning the 16 ``cards`` (with ``starter``)."""
    hand = {
        sum(1 << i for i in combo): line_score([cards[i] for i in combo], starter)
        for combo in combinations(range(CELLS), 4)
    }
    best: dict[int, int] = {}

    def solve(mask: int) -> int:
        if mask.bit_count() == 4:
            return hand[mask]
        known = best.get(mask)
        if known is not None:
            return known
        bits = [i for i in range(CELLS) if mask >> i & 1]
        low = 1 << bits[0]
        top = 0
        for a, b, c in combinations(bits[1:], 3):
            group = low | 1 << a | 1 << b | 1 << c
            value = hand[group] + solve(mask ^ group)
            if value > top:
                top = value
        best[mask] = top
        return top

    return solve((1 << CELLS) - 1)


# --------------------------------------------------------------------------
# The hindsight search


def _check_deal(cards: Sequence[Card], starter: Card) -> None:
    if len(cards) != CELLS:
        raise HandSizeError(f"a deal has {CELLS} cards before the starter, got {len(cards)}")
    ensure_distinct((*cards, starter))


def _exhaustive(
    fixed: Sequence[int], cards: Sequence[int], starter: int
) -> tuple[list[int], int, int]:
    """Every reachable completion of ``fixed``: (best order, score, leaves visited)."""
    order = list(fixed)
    filled = 0
    touch = 0
    for cell in order:
        filled |= 1 << cell
        touch |= NEIGHBOURS[cell]
    best_order: list[int] = []
    best_score = -1
    leaves = 0

    def extend(filled: int, touch: int) -> None:
        nonlocal best_order, best_score, leaves
        if len(order) == CELLS:
            leaves += 1
            score = _score(order, cards, starter)
            if score > best_score:
                best_score, best_order = score, order[:]
            return
        legal = (1 << CELLS) - 1 if filled == 0 else touch & ~filled
        for cell in range(CELLS):
            if legal >> cell & 1:
                order.append(cell)
                extend(filled | 1 << cell, touch | NEIGHBOURS[cell])
                order.pop()

    extend(filled, touch)
    return best_order, best_score, leaves


def _local_search(
    starts: Sequence[list[int]],
    free: Sequence[int],
    cards: Sequence[int],
    starter: int,
    budget: int,
    rng: SplitMix64,
    target: int | None,
) -> tuple[list[int], int, int]:
    """Iterated local search over reachable orders: (best order, score, moves tried)."""
    best_order = list(starts[0])
    best_score = _score(best_order, cards, starter)
    pairs = list(combinations(free, 2))
    work = 0
    share = budget // len(starts)
    for start in starts:
        order = list(start)
        score = _score(order, cards, starter)
        spent = 0
        while spent < share:
            improved = False
            rng.shuffle_prefix(pairs, len(pairs))
            for a, b in pairs:
                spent += 1
                order[a], order[b] = order[b], order[a]
                if is_reachable(order):
                    new = _score(order, cards, starter)
                    if new > score:
                        score = new
                        improved = True
                        continue
                order[a], order[b] = order[b], order[a]
                if spent >= share:
                    break
            if score > best_score:
                best_score, best_order = score, order[:]
                if target is not None and best_score >= target:
                    return best_order, best_score, work + spent
            if improved:
                continue
            # A local optimum: restart from the best order with a few random swaps
            # that keep it reachable (the plateau moves of equal score included).
            order = best_order[:]
            kicks = 0
            while kicks < KICK_SWAPS and spent < share:
                a, b = pairs[rng.below(len(pairs))]
                spent += 1
                order[a], order[b] = order[b], order[a]
                if is_reachable(order):
                    kicks += 1
                else:
                    order[a], order[b] = order[b], order[a]
            score = _score(order, cards, starter)
        work += spent
    return best_order, best_score, work


def hindsight_best(
    cards: Sequence[Card],
    starter: Card,
    *,
    fixed: Sequence[int] = (),
    placements: Sequence[int] | None = None,
    budget: int = DEFAULT_SEARCH_BUDGET,
    seed: int | str = "hindsight",
) -> HindsightBoard:
    """The best reachable board for this deal, knowing all 17 cards.

    ``fixed`` pins the first cards' cells (analysing "from this turn on");
    ``placements``, a full reachable order such as the one actually played,
    seeds the local search. ``budget`` counts swaps tried.
    """
    _check_deal(cards, starter)
    idx = [c.index for c in cards]
    s = starter.index
    Grid.replay(zip(fixed, cards, strict=False))  # raises if the prefix is illegal
    free_cards = CELLS - len(fixed)
    if free_cards <= EXHAUSTIVE_FREE_CARDS:
        order, score, work = _exhaustive(fixed, idx, s)
        return _result(order, score, idx, None, True, "exhaustive", work)
    bound = 2 * partition_bound(idx, s) + heels_points(starter)
    starts: list[list[int]] = []
    if (
        placements is not None
        and list(placements[: len(fixed)]) == list(fixed)
        and len(set(placements)) == CELLS
        and is_reachable(placements)
    ):
        starts.append(list(placements))
    reading = list(fixed) + [c for c in _fill_order(fixed) if c not in fixed]
    starts.append(reading)
    rng = SplitMix64(seed)
    order, score, work = _local_search(starts, range(len(fixed), CELLS), idx, s, budget, rng, bound)
    proved = score >= bound
    method = "local search, meets the upper bound" if proved else "local search, best found"
    return _result(order, score, idx, bound, proved, method, work)


def _fill_order(fixed: Sequence[int]) -> list[int]:
    """A reachable way to fill the rest of the grid: grow from the filled cells."""
    filled = 0
    touch = 0
    order: list[int] = []
    for cell in fixed:
        filled |= 1 << cell
        touch |= NEIGHBOURS[cell]
    while len(order) + len(fixed) < CELLS:
        legal = (1 << CELLS) - 1 if filled == 0 else touch & ~filled
        cell = next(i for i in range(CELLS) if legal >> i & 1)
        order.append(cell)
        filled |= 1 << cell
        touch |= NEIGHBOURS[cell]
    return order


def _result(
    order: Sequence[int],
    score: int,
    cards: Sequence[int],
    bound: int | None,
    optimal: bool,
    method: str,
    work: int,
) -> HindsightBoard:
    cells = [0] * CELLS
    for card, cell in zip(cards, order, strict=True):
        cells[cell] = card
    return HindsightBoard(
        tuple(DECK[c] for c in cells), tuple(order), score, bound, optimal, method, work
    )


# --------------------------------------------------------------------------
# Move by move


def review_moves(
    cards: Sequence[Card],
    placements: Sequence[int],
    *,
    seed: int | str = "analysis",
    simulations: int = DEFAULT_SIMULATIONS,
) -> tuple[MoveReview, ...]:
    """The expert's view of every move: its choice, estimates and the expected loss.

    At each turn the expert evaluates its candidate cells with ``simulations``
    rollouts in all (as when it plays with that seed and budget); the cell
    actually played, if not a candidate, is evaluated on the very same
    simulated futures. So the loss is 0 whenever the player did what the bot
    would have done, and never negative.
    """
    if len(placements) != len(cards):
        raise HandSizeError("one placement per card")
    bot = ExpertStrategy(seed)
    grid = Grid()
    reviews: list[MoveReview] = []
    for turn, (card, played) in enumerate(zip(cards, placements, strict=True), start=1):
        error = grid.why_illegal(played)
        if error is not None:
            raise error
        view = BotView.from_grid(grid, card)
        legal = list(view.legal_cells())
        if len(legal) == 1:
            reviews.append(MoveReview(turn, card, played, played, played, {}, 0.0))
        else:
            candidates = bot.candidate_cells(view)
            rounds = max(1, simulations // len(candidates))
            decision = bot.evaluate(view, candidates, rounds)
            estimates = dict(decision.estimates)
            if played not in estimates:
                estimates.update(bot.evaluate(view, [played], rounds).estimates)
            best = max(estimates, key=lambda c: (estimates[c], c == decision.cell))
            loss = max(0.0, estimates[best] - estimates[played])
            reviews.append(MoveReview(turn, card, played, decision.cell, best, estimates, loss))
        grid.place(played, card)
    return tuple(reviews)


def analyse_game(
    cards: Sequence[Card],
    starter: Card,
    placements: Sequence[int],
    *,
    seed: int | str = "analysis",
    simulations: int = DEFAULT_SIMULATIONS,
    search_budget: int = DEFAULT_SEARCH_BUDGET,
) -> GameAnalysis:
    """Hindsight best board and move review of one finished game."""
    _check_deal(cards, starter)
    if len(placements) != CELLS or len(set(placements)) != CELLS:
        raise IllegalPlacementError("a finished game places 16 cards on 16 different cells")
    grid = Grid.replay(zip(placements, cards, strict=True))
    score = board_score([c.index for c in grid.cards()], starter.index)
    hindsight = hindsight_best(
        cards, starter, placements=placements, budget=search_budget, seed=seed
    )
    moves = review_moves(cards, placements, seed=seed, simulations=simulations)
    return GameAnalysis(tuple(cards), starter, tuple(placements), score, hindsight, moves)
