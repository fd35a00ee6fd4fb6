"""The expert's rollouts, all at once with numpy: the same numbers as engine.bots.fast.

:func:`rollout_values` plays every (future, candidate) pair of a decision's
rollouts side by side as arrays, one card a step for all of them, instead of
one rollout after another in Python. It is an optional speed-up: the engine
uses it when numpy can be imported (:data:`AVAILABLE`) and plays exactly the
same otherwise, since every number is computed as the pure-Python loop computes
it (engine.bots.fast.rollout):

* a line's table value is read from a dense copy of the same table, indexed by
  the line's multiset of ranks (:func:`dense_tables`) instead of its base-5 key;
* a step's gains add the same four floats in the same order, and ties go to the
  lowest cell, as the loop's strict ``>`` does (``argmax`` keeps the first);
* an unfinished board's value adds its 8 line values from the first to the
  last, and a full board's exact score is an integer, as in the loop.

tests/engine/test_vectorized.py checks it decision by decision against the
loop. Pure: no I/O, no clock, no randomness of its own (the futures are given).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, Final

from engine.bots.fast import CELLS, LINE_CELLS, FastBoard, LineValues
from engine.bots.prng import SplitMix64
from engine.grid import NEIGHBOURS
from engine.scoring import HEELS_POINTS
from engine.totals import CARD_SUIT, NOBS_JACK, RANK_TABLE, RANK_WEIGHT

try:
    import numpy as np
except ImportError:  # pure Python only: engine.bots.fast plays every rollout
    np = None  # type: ignore[assignment]

AVAILABLE: Final = np is not None
EMPTY: Final = -1
MIXED: Final = 4
RANKS: Final = 13

Array = Any  # a numpy array (numpy is optional, so its types are not required)


@cache
def _multiset_ids() -> dict[int, int]:
    """Base-5 weight -> multiset id."""
    weights, _ = _multisets()
    return {w: i for i, w in enumerate(weights)}


@cache
def _multisets() -> tuple[list[int], Array]:
    """Every multiset of at most 4 ranks by id: its base-5 weight; and id -> id with a rank more."""
    weights = [0]
    index = {0: 0}
    frontier = [0]
    for _ in range(4):
        grown = []
        for w in frontier:
            for r in range(RANKS):
                nw = w + 5**r
                if nw not in index:
                    index[nw] = len(weights)
                    weights.append(nw)
                    grown.append(nw)
        frontier = grown
    add = np.full((len(weights), RANKS), -1, dtype=np.int64)
    for i, w in enumerate(weights):
        for r in range(RANKS):
            nw = w + 5**r
            if nw in index:
                add[i, r] = index[nw]
    return weights, add


def dense_tables(values: LineValues) -> tuple[Array, Array, Array]:
    """(values by [remaining, multiset id, flushable], id after a rank, points of id + a rank).

    The first is a copy of ``values`` (absent keys, which no line can have, are 0);
    the last gives fifteens, pairs and runs of a full line with the starter's rank.
    """
    weights, add = _multisets()
    table = np.zeros((len(values), len(weights), 2), dtype=np.float64)
    for remaining, stage in enumerate(values):
        for i, w in enumerate(weights):
            table[remaining, i, 0] = stage.get(2 * w, 0.0)
            table[remaining, i, 1] = stage.get(2 * w + 1, 0.0)
    five = np.zeros((len(weights), RANKS), dtype=np.int64)
    for i, w in enumerate(weights):
        for r in range(RANKS):
            five[i, r] = RANK_TABLE.get(w + 5**r, 0)
    return table, add, five


_DENSE: dict[int, tuple[LineValues, tuple[Array, Array, Array]]] = {}


def _dense(values: LineValues) -> tuple[Array, Array, Array]:
    """The dense tables of ``values``, made once per table object."""
    found = _DENSE.get(id(values))
    if found is None or found[0] is not values:
        found = (values, dense_tables(values))
        _DENSE[id(values)] = found
    return found[1]


@cache
def _constants() -> tuple[Array, Array, Array, Array, Array, Array]:
    rank = np.array([_rank_of(w) for w in RANK_WEIGHT], dtype=np.int64)  # 0..12
    suit = np.array(CARD_SUIT, dtype=np.int64)
    nobs = np.array(NOBS_JACK, dtype=np.int64)
    neighbours = np.array(NEIGHBOURS, dtype=np.int64)
    row = np.array([i >> 2 for i in range(CELLS)], dtype=np.int64)
    col = np.array([4 + (i & 3) for i in range(CELLS)], dtype=np.int64)
    return rank, suit, nobs, neighbours, row, col


def _rank_of(weight: int) -> int:
    """r from 5**r."""
    r = 0
    while weight > 1:
        weight //= 5
        r += 1
    return r


_GOLDEN: Final = 0x9E3779B97F4A7C15
_MIX1: Final = 0xBF58476D1CE4E5B9
_MIX2: Final = 0x94D049BB133111EB


def draws_below(rng: SplitMix64, bounds: Sequence[int]) -> list[int]:
    """``[rng.below(n) for n in bounds]``, computed at once: SplitMix64's k-th output
    is a function of its state plus k times a constant. ``rng`` ends where the loop would."""
    count = len(bounds)
    k = np.arange(1, count + 1, dtype=np.uint64)
    z = np.uint64(rng.state) + k * np.uint64(_GOLDEN)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(_MIX1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(_MIX2)
    z = z ^ (z >> np.uint64(31))
    n = np.asarray(bounds, dtype=np.uint64)
    # (z * n) >> 64 without 128-bit numbers: n < 2**32, so split z in halves.
    high = (z >> np.uint64(32)) * n
    low = (z & np.uint64(0xFFFFFFFF)) * n
    rng.skip(count)
    return ((high + (low >> np.uint64(32))) >> np.uint64(32)).tolist()  # type: ignore[no-any-return]


def sample_futures(rng: SplitMix64, unseen: list[int], need: int, rounds: int) -> list[list[int]]:
    """``rounds`` calls of engine.bots.fast.sample_future, the generator's draws made at once."""
    size = len(unseen)
    swaps = min(need, size - 1)
    bounds = [size - i for i in range(swaps)] * rounds
    draws = draws_below(rng, bounds)
    futures = []
    at = 0
    for _ in range(rounds):
        for i in range(swaps):
            j = i + draws[at]
            at += 1
            unseen[i], unseen[j] = unseen[j], unseen[i]
        futures.append(unseen[:need])
    return futures


def rollout_values(
    board: FastBoard,
    cells: Sequence[int],
    card: int,
    futures: Sequence[Sequence[int]],
    starters: Sequence[int],
    values: LineValues,
    depth: int,
) -> Array:
    """Values[round, candidate]: ``card`` on each of ``cells``, then ``futures[round]``
    played greedily for at most ``depth`` cards, valued as engine.bots.fast.rollout does."""
    table, add, five = _dense(values)
    rank, suit, nobs, neighbours, row_of, col_of = _constants()
    index = _multiset_ids()
    rounds, n_cells = len(futures), len(cells)
    n = rounds * n_cells
    # The boards after the candidate move, one per candidate, repeated for every round.
    lid0 = np.zeros((n_cells, 8), dtype=np.int64)
    ss0 = np.zeros((n_cells, 8), dtype=np.int64)
    filled0 = np.zeros(n_cells, dtype=np.int64)
    touch0 = np.zeros(n_cells, dtype=np.int64)
    grid0 = np.zeros((n_cells, CELLS), dtype=np.int64)
    for j, cell in enumerate(cells):
        after = board.copy()
        after.place(cell, card)
        lid0[j] = [index[w] for w in after.rank_weight]
        ss0[j] = after.suit_state
        filled0[j] = after.filled
        touch0[j] = after.touch
        grid0[j] = after.cells
    lid = np.tile(lid0, (rounds, 1))
    ss = np.tile(ss0, (rounds, 1))
    filled = np.tile(filled0, rounds)
    touch = np.tile(touch0, rounds)
    grid = np.tile(grid0, (rounds, 1))
    steps = min(depth, min((len(f) for f in futures), default=0))
    remaining = CELLS - board.count - 1
    upcoming = np.array([list(f[:steps]) for f in futures], dtype=np.int64).reshape(rounds, steps)
    everyone = np.arange(n)
    bits = np.left_shift(1, np.arange(CELLS, dtype=np.int64))
    for t in range(steps):
        remaining -= 1
        stage = table[remaining].reshape(-1)  # [2 * id + flushable]
        drawn = np.repeat(upcoming[:, t], n_cells)
        r_card, s_card = rank[drawn], suit[drawn]
        current = (ss >= 0) & (ss < MIXED)
        old = stage.take(2 * lid + current)  # [n, 8]
        free = touch & ~filled
        legal = (free[:, None] & bits[None, :]) != 0
        sr, sc = ss[:, row_of], ss[:, col_of]  # [n, 16]: each cell's row and column
        new_r = add[lid[:, row_of], r_card[:, None]]
        new_c = add[lid[:, col_of], r_card[:, None]]
        flag_r = (sr == s_card[:, None]) | (sr == EMPTY)
        flag_c = (sc == s_card[:, None]) | (sc == EMPTY)
        # Illegal cells may have a full row (-1 after one more card): masked below.
        gain = stage.take(2 * np.maximum(new_r, 0) + flag_r) - old[:, row_of]
        gain = gain + stage.take(2 * np.maximum(new_c, 0) + flag_c)
        gain = gain - old[:, col_of]
        gain = np.where(legal, gain, -np.inf)
        best = np.argmax(gain, axis=1)
        r_line, c_line = row_of[best], col_of[best]
        for line in (r_line, c_line):
            lid[everyone, line] = add[lid[everyone, line], r_card]
            state = ss[everyone, line]
            ss[everyone, line] = np.where((state == EMPTY) | (state == s_card), s_card, MIXED)
        filled |= bits[best]
        touch |= neighbours[best]
        grid[everyone, best] = drawn
    if remaining:
        stage = table[remaining].reshape(-1)
        per_line = stage.take(2 * lid + ((ss >= 0) & (ss < MIXED)))
        total = per_line[:, 0].copy()
        for k in range(1, 8):
            total = total + per_line[:, k]
        return total.reshape(rounds, n_cells)
    starter = np.repeat(np.asarray(starters, dtype=np.int64), n_cells)
    s_rank, s_suit, jack = rank[starter], suit[starter], nobs[starter]
    score = np.where(s_rank == 10, HEELS_POINTS, 0)
    for k, members in enumerate(LINE_CELLS):
        score = score + five[lid[:, k], s_rank]
        state = ss[:, k]
        flush = (state >= 0) & (state < MIXED)
        score = score + np.where(flush, np.where(state == s_suit, 5, 4), 0)
        held = grid[:, list(members)]
        score = score + (held == jack[:, None]).any(axis=1)
    return score.astype(np.float64).reshape(rounds, n_cells)
