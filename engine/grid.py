"""The 4x4 grid and the placement rule.

Cells are numbered 0..15 row by row (``index = 4 * row + col``, zero-based)
and have a human name: column letter ``a``-``d`` then row number ``1``-``4``,
so ``b3`` is row 3, column b (index 9). The first card may go anywhere; each
later card must go in an empty cell touching a filled one across, down or
diagonally. A placed card never moves.

:meth:`Grid.place` is one move (checks everything, raises and leaves the grid
unchanged); :meth:`Grid.replay` rebuilds a grid from a sequence of moves, each
checked the same way, so a stored or typed-in game that does not replay raises
at its first illegal move rather than building a grid the rules never allow.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

from engine.cards import Card
from engine.errors import (
    CellError,
    DuplicateCardError,
    GridFullError,
    IllegalPlacementError,
    OccupiedCellError,
)

SIZE: Final = 4
CELLS: Final = 16
COLUMN_LETTERS: Final = "abcd"
FULL_MASK: Final = (1 << CELLS) - 1


def _neighbour_mask(index: int) -> int:
    row, col = divmod(index, SIZE)
    mask = 0
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            r, c = row + dr, col + dc
            if (dr or dc) and 0 <= r < SIZE and 0 <= c < SIZE:
                mask |= 1 << (SIZE * r + c)
    return mask


NEIGHBOURS: Final[tuple[int, ...]] = tuple(_neighbour_mask(i) for i in range(CELLS))


def cell_name(index: int) -> str:
    """``9`` -> ``'b3'``."""
    if not 0 <= index < CELLS:
        raise CellError(f"cell index out of range: {index}")
    row, col = divmod(index, SIZE)
    return f"{COLUMN_LETTERS[col]}{row + 1}"


def parse_cell(text: str) -> int:
    """``'b3'`` or ``'B3'`` -> ``9``; raise :class:`CellError` otherwise."""
    if not isinstance(text, str):
        raise CellError(f"a cell is a name like 'b3', not {type(text).__name__}")
    raw = text.strip().lower()
    if len(raw) != 2 or raw[0] not in COLUMN_LETTERS or raw[1] not in "1234":
        raise CellError(f"unknown cell {text!r}: columns a-d, rows 1-4, like 'b3'")
    return SIZE * (int(raw[1]) - 1) + COLUMN_LETTERS.index(raw[0])


def cell_from_row_col(row: int, col: int) -> int:
    """Zero-based (row, col) -> index."""
    if not (0 <= row < SIZE and 0 <= col < SIZE):
        raise CellError(f"cell ({row}, {col}) is off the 4x4 grid")
    return SIZE * row + col


def _touching(filled: int) -> int:
    """The cells touching any cell of ``filled`` (themselves included or not)."""
    touching = 0
    rest = filled
    while rest:
        low = rest & -rest
        touching |= NEIGHBOURS[low.bit_length() - 1]
        rest ^= low
    return touching


# The cells touching each set of the grid's first two rows, and of its last two: a
# filled mask's touching cells are one of each, OR-ed (512 entries, made at import).
_TOUCHING_LOW: Final[tuple[int, ...]] = tuple(_touching(bits) for bits in range(256))
_TOUCHING_HIGH: Final[tuple[int, ...]] = tuple(_touching(bits << 8) for bits in range(256))


def legal_mask(filled: int) -> int:
    """Bit mask of the cells where the next card may go, given the filled mask."""
    if filled == 0:
        return FULL_MASK
    touching = _TOUCHING_LOW[filled & 0xFF] | _TOUCHING_HIGH[filled >> 8 & 0xFF]
    return touching & ~filled & FULL_MASK


def mask_cells(mask: int) -> list[int]:
    return [i for i in range(CELLS) if mask >> i & 1]


class Grid:
    """One player's board: 16 cells, each empty (``None``) or holding a card."""

    __slots__ = ("_cards", "_cells", "_filled")

    def __init__(self) -> None:
        self._cells: list[Card | None] = [None] * CELLS
        self._filled = 0  # bit i: cell i holds a card
        self._cards = 0  # bit i: the card of index i is on the grid

    @classmethod
    def replay(cls, placements: Iterable[tuple[int, Card]]) -> Grid:
        """A grid rebuilt from (cell, card) placements in order, each checked as
        :meth:`place` checks it (raises at the first illegal one)."""
        grid = cls()
        for cell, card in placements:
            grid.place(cell, card)
        return grid

    def copy(self) -> Grid:
        other = Grid()
        other._cells = list(self._cells)
        other._filled = self._filled
        other._cards = self._cards
        return other

    @property
    def filled_mask(self) -> int:
        return self._filled

    @property
    def count(self) -> int:
        return self._filled.bit_count()

    @property
    def is_full(self) -> bool:
        return self._filled == FULL_MASK

    def __getitem__(self, index: int) -> Card | None:
        return self._cells[index]

    def __iter__(self) -> Iterator[Card | None]:
        return iter(self._cells)

    def cells(self) -> tuple[Card | None, ...]:
        return tuple(self._cells)

    def cards(self) -> list[Card]:
        """The 16 cards row by row; raise if the grid is not full."""
        if not self.is_full:
            raise GridFullError("the grid is not full yet")
        return [c for c in self._cells if c is not None]

    def legal_cells(self) -> list[int]:
        return mask_cells(legal_mask(self._filled))

    def why_illegal(self, cell: int) -> IllegalPlacementError | CellError | GridFullError | None:
        """The error placing on ``cell`` would raise, or ``None`` if it is legal."""
        if not isinstance(cell, int) or isinstance(cell, bool) or not 0 <= cell < CELLS:
            return CellError(f"no cell {cell!r}: cells are 0..15 or names a1..d4")
        if self.is_full:
            return GridFullError("the grid is full")
        if self._filled >> cell & 1:
            return OccupiedCellError(f"cell {cell_name(cell)} already holds {self._cells[cell]}")
        if not legal_mask(self._filled) >> cell & 1:
            return IllegalPlacementError(
                f"cell {cell_name(cell)} does not touch a placed card (across, down or diagonally)"
            )
        return None

    def place(self, cell: int, card: Card) -> None:
        """Place ``card`` on ``cell``; raise and change nothing if illegal."""
        error = self.why_illegal(cell)
        if error is not None:
            raise error
        if self._cards >> card.index & 1:
            raise DuplicateCardError(f"card {card} is already on the grid")
        self._cells[cell] = card
        self._filled |= 1 << cell
        self._cards |= 1 << card.index

    def render(self, *, empty: str = "..", marks: Iterable[int] = ()) -> str:
        """Plain-text picture of the grid, column letters above, row numbers left.

        An empty cell shows ``empty``, or its own name if it is in ``marks``
        (say, the legal cells), so a player sees exactly what to type:

        >>> grid = Grid()
        >>> grid.place(parse_cell("b2"), Card.parse("5H"))
        >>> print(grid.render(marks=grid.legal_cells()))
           a   b   c   d
        1  a1  b1  c1  ..
        2  a2  5H  c2  ..
        3  a3  b3  c3  ..
        4  ..  ..  ..  ..
        """
        marked = set(marks)
        lines = ["   " + "   ".join(COLUMN_LETTERS)]
        for row in range(SIZE):
            parts = []
            for col in range(SIZE):
                i = SIZE * row + col
                card = self._cells[i]
                if card is not None:
                    parts.append(str(card))
                elif i in marked:
                    parts.append(cell_name(i))
                else:
                    parts.append(empty)
            lines.append(f"{row + 1}  " + "  ".join(parts))
        return "\n".join(lines)

    def __repr__(self) -> str:
        placed = ", ".join(
            f"{cell_name(i)}={c}" for i, c in enumerate(self._cells) if c is not None
        )
        return f"<Grid {placed or 'empty'}>"
