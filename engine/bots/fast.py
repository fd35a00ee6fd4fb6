"""The bots' inner loop: a board as plain ints, line keys, greedy steps, rollouts.

Everything here works on card indices (0..51, see engine.cards) and cell
indices (0..15) so that a Monte Carlo rollout costs microseconds, not
milliseconds. Lines are numbered 0..3 for the rows and 4..7 for the columns.

A *line key* summarises what a bot needs to know about a partial line: the
multiset of its ranks (the additive base-5 weight of engine.scoring's
``RANK_WEIGHT``, which also fixes how many cards it holds) and whether a flush
is still possible (every card so far of one suit)::

    key = 2 * rank_weight + flushable          (an empty line has key 0)

A :data:`LineValues` table maps, for each number of cards still to come
(0..16), a line key to the expected final score of that line (with the
starter, flush and nobs; heels is not a line's). Tables are learned by
self-play (engine.bots.training) and shipped in ``line_values.json``.

Nothing here does I/O or reads a clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.bots.prng import SplitMix64
from engine.grid import CELLS, FULL_MASK, NEIGHBOURS

__all__ = ["CELLS", "LINE_CELLS", "FastBoard", "LineValues", "board_score", "rollout"]
from engine.scoring import HEELS_POINTS
from engine.totals import CARD_SUIT, NOBS_JACK, RANK_TABLE, RANK_WEIGHT

LineValues = list[dict[int, float]]
"""``values[remaining][key]``: expected final score of a line."""

ROW_OF: Final[tuple[int, ...]] = tuple(i >> 2 for i in range(CELLS))
COL_OF: Final[tuple[int, ...]] = tuple(4 + (i & 3) for i in range(CELLS))
LINE_CELLS: Final[tuple[tuple[int, ...], ...]] = tuple(
    [tuple(range(4 * r, 4 * r + 4)) for r in range(4)] + [tuple(range(c, 16, 4)) for c in range(4)]
)
MIXED: Final = 4
EMPTY: Final = -1
JACK_RANK_INDEX: Final = 10  # rank - 1 of a jack

_CELLS_OF: dict[int, tuple[int, ...]] = {}


def cells_of(mask: int) -> tuple[int, ...]:
    """The cell indices set in ``mask``, ascending (memoised)."""
    cells = _CELLS_OF.get(mask)
    if cells is None:
        cells = tuple(i for i in range(CELLS) if mask >> i & 1)
        _CELLS_OF[mask] = cells
    return cells


def legal_from(filled: int, touch: int) -> int:
    """Legal cells given the filled mask and the union of their neighbourhoods."""
    return FULL_MASK if filled == 0 else touch & ~filled


def line_key(rank_weight: int, suit_state: int) -> int:
    return 2 * rank_weight + (1 if 0 <= suit_state < MIXED else 0)


class FastBoard:
    """A grid as ints: cells (card index or -1), masks and per-line summaries."""

    __slots__ = ("cells", "filled", "rank_weight", "suit_state", "touch")

    def __init__(self) -> None:
        self.cells: list[int] = [EMPTY] * CELLS
        self.filled = 0
        self.touch = 0
        self.rank_weight: list[int] = [0] * 8
        self.suit_state: list[int] = [EMPTY] * 8

    @classmethod
    def from_cells(cls, cells: Sequence[int]) -> FastBoard:
        """From 16 card indices, -1 for empty (no legality checks)."""
        board = cls()
        for i, card in enumerate(cells):
            if card >= 0:
                board.place(i, card)
        return board

    def copy(self) -> FastBoard:
        other = FastBoard.__new__(FastBoard)
        other.cells = self.cells[:]
        other.filled = self.filled
        other.touch = self.touch
        other.rank_weight = self.rank_weight[:]
        other.suit_state = self.suit_state[:]
        return other

    @property
    def count(self) -> int:
        return self.filled.bit_count()

    def legal(self) -> int:
        return legal_from(self.filled, self.touch)

    def place(self, cell: int, card: int) -> None:
        self.cells[cell] = card
        self.filled |= 1 << cell
        self.touch |= NEIGHBOURS[cell]
        suit = CARD_SUIT[card]
        weight = RANK_WEIGHT[card]
        for line in (ROW_OF[cell], COL_OF[cell]):
            self.rank_weight[line] += weight
            state = self.suit_state[line]
            self.suit_state[line] = suit if state in (EMPTY, suit) else MIXED

    def keys(self) -> list[int]:
        return [line_key(w, s) for w, s in zip(self.rank_weight, self.suit_state, strict=True)]

    def value(self, values: LineValues) -> float:
        """Sum of the 8 lines' expected final scores (heels excluded)."""
        table = values[CELLS - self.count]
        return sum(table[k] for k in self.keys())


def greedy_deltas(board: FastBoard, card: int, values: LineValues) -> list[tuple[float, int]]:
    """(gain in expected line value, cell) for each legal cell, best first, ties by cell."""
    table = values[CELLS - 1 - board.count]
    weight = RANK_WEIGHT[card]
    suit = CARD_SUIT[card]
    rw = board.rank_weight
    ss = board.suit_state
    out: list[tuple[float, int]] = []
    for i in cells_of(board.legal()):
        r = i >> 2
        c = 4 + (i & 3)
        sr = ss[r]
        sc = ss[c]
        gain = (
            table[2 * (rw[r] + weight) + (1 if sr in (suit, EMPTY) else 0)]
            - table[2 * rw[r] + (1 if 0 <= sr < MIXED else 0)]
            + table[2 * (rw[c] + weight) + (1 if sc in (suit, EMPTY) else 0)]
            - table[2 * rw[c] + (1 if 0 <= sc < MIXED else 0)]
        )
        out.append((gain, i))
    out.sort(key=lambda gc: (-gc[0], gc[1]))
    return out


def greedy_cell(board: FastBoard, card: int, values: LineValues) -> int:
    return greedy_deltas(board, card, values)[0][1]


def rollout(
    board: FastBoard,
    future: Sequence[int],
    starter: int,
    values: LineValues,
    depth: int = CELLS,
) -> float:
    """Play ``future`` greedily on a copy of ``board`` and value the result.

    After at most ``depth`` cards: a full board is scored exactly with
    ``starter``; an unfinished one is worth its lines' table values. The hot
    loop of the expert bot: ``board`` is left untouched.
    """
    future = future[:depth]
    cells = board.cells[:]
    filled = board.filled
    touch = board.touch
    rw = board.rank_weight[:]
    ss = board.suit_state[:]
    weights = RANK_WEIGHT
    suits = CARD_SUIT
    neighbours = NEIGHBOURS
    remaining = CELLS - filled.bit_count()
    for card in future:
        remaining -= 1
        table = values[remaining]
        weight = weights[card]
        suit = suits[card]
        old = [table[2 * rw[k] + (1 if 0 <= ss[k] < MIXED else 0)] for k in range(8)]
        best = -1e18
        best_cell = -1
        legal = FULL_MASK if filled == 0 else touch & ~filled
        for i in cells_of(legal):
            r = i >> 2
            c = 4 + (i & 3)
            sr = ss[r]
            sc = ss[c]
            gain = (
                table[2 * (rw[r] + weight) + (1 if sr in (suit, EMPTY) else 0)]
                - old[r]
                + table[2 * (rw[c] + weight) + (1 if sc in (suit, EMPTY) else 0)]
                - old[c]
            )
            if gain > best:
                best = gain
                best_cell = i
        i = best_cell
        cells[i] = card
        filled |= 1 << i
        touch |= neighbours[i]
        r = i >> 2
        c = 4 + (i & 3)
        rw[r] += weight
        rw[c] += weight
        sr = ss[r]
        ss[r] = suit if sr in (EMPTY, suit) else MIXED
        sc = ss[c]
        ss[c] = suit if sc in (EMPTY, suit) else MIXED
    if remaining:
        table = values[remaining]
        return sum(table[2 * rw[k] + (1 if 0 <= ss[k] < MIXED else 0)] for k in range(8))
    return board_score(cells, starter)


def board_score(cells: Sequence[int], starter: int) -> int:
    """Exact total of a full board of card indices (row by row) with ``starter``."""
    sw = RANK_WEIGHT[starter]
    nj = NOBS_JACK[starter]
    st = CARD_SUIT[starter]
    w = RANK_WEIGHT
    su = CARD_SUIT
    table = RANK_TABLE
    total = HEELS_POINTS if starter % 13 == JACK_RANK_INDEX else 0
    for a, b, c, d in (
        (cells[0], cells[1], cells[2], cells[3]),
        (cells[4], cells[5], cells[6], cells[7]),
        (cells[8], cells[9], cells[10], cells[11]),
        (cells[12], cells[13], cells[14], cells[15]),
        (cells[0], cells[4], cells[8], cells[12]),
        (cells[1], cells[5], cells[9], cells[13]),
        (cells[2], cells[6], cells[10], cells[14]),
        (cells[3], cells[7], cells[11], cells[15]),
    ):
        total += table[w[a] + w[b] + w[c] + w[d] + sw]
        s = su[a]
        if s == su[b] == su[c] == su[d]:
            total += 5 if s == st else 4
        if nj in (a, b, c, d):
            total += 1
    return total


def line_score(cards: Sequence[int], starter: int) -> int:
    """Exact score of one full line (4 card indices) with ``starter`` (no heels)."""
    a, b, c, d = cards
    su = CARD_SUIT
    total = RANK_TABLE[
        RANK_WEIGHT[a] + RANK_WEIGHT[b] + RANK_WEIGHT[c] + RANK_WEIGHT[d] + RANK_WEIGHT[starter]
    ]
    if su[a] == su[b] == su[c] == su[d]:
        total += 5 if su[a] == CARD_SUIT[starter] else 4
    if NOBS_JACK[starter] in (a, b, c, d):
        total += 1
    return total


def unseen_cards(seen: Sequence[int]) -> list[int]:
    taken = set(seen)
    return [c for c in range(52) if c not in taken]


def sample_future(rng: SplitMix64, unseen: list[int], count: int) -> list[int]:
    """``count`` distinct cards from ``unseen`` in random order (``unseen`` is reordered)."""
    rng.shuffle_prefix(unseen, count)
    return unseen[:count]
