"""The grid: cell names, the touch rule, and refusals that change nothing."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from engine.cards import DECK, Card
from engine.errors import (
    CellError,
    DuplicateCardError,
    EngineError,
    GridFullError,
    IllegalPlacementError,
    OccupiedCellError,
)
from engine.grid import CELLS, Grid, cell_from_row_col, cell_name, legal_mask, parse_cell


def test_cell_names_and_indices() -> None:
    names = [f"{col}{row}" for row in "1234" for col in "abcd"]
    assert [cell_name(i) for i in range(CELLS)] == names
    for i, name in enumerate(names):
        assert parse_cell(name) == i
        assert parse_cell(name.upper()) == i
        assert parse_cell(f" {name} ") == i
        assert cell_from_row_col(i // 4, i % 4) == i
    assert parse_cell("b3") == 9  # row 3, column b


@pytest.mark.parametrize("text", ["", "b", "e1", "a0", "a5", "3b", "bb", "b33", "b-3"])
def test_bad_cell_names(text: str) -> None:
    with pytest.raises(CellError) as caught:
        parse_cell(text)
    assert caught.value.code == "bad_cell"


def test_cell_index_out_of_range() -> None:
    with pytest.raises(CellError):
        cell_name(16)
    with pytest.raises(CellError):
        cell_from_row_col(4, 0)


@pytest.mark.parametrize("cell", range(CELLS))
def test_first_card_goes_anywhere(cell: int) -> None:
    grid = Grid()
    assert grid.legal_cells() == list(range(CELLS))
    grid.place(cell, DECK[0])
    assert grid[cell] == DECK[0]
    assert grid.count == 1


def _touching(cell: int) -> set[str]:
    row, col = divmod(cell, 4)
    return {
        cell_name(4 * r + c)
        for r in range(row - 1, row + 2)
        for c in range(col - 1, col + 2)
        if 0 <= r < 4 and 0 <= c < 4 and (r, c) != (row, col)
    }


def test_touch_rule_includes_diagonals() -> None:
    grid = Grid()
    grid.place(parse_cell("b2"), Card.parse("5H"))
    legal = {cell_name(i) for i in grid.legal_cells()}
    assert legal == {"a1", "b1", "c1", "a2", "c2", "a3", "b3", "c3"}
    corner = Grid()
    corner.place(parse_cell("a1"), Card.parse("5H"))
    assert {cell_name(i) for i in corner.legal_cells()} == {"b1", "a2", "b2"}
    for cell in range(CELLS):
        one = Grid()
        one.place(cell, DECK[0])
        assert {cell_name(i) for i in one.legal_cells()} == _touching(cell)


def test_placing_far_away_is_refused_with_the_reason() -> None:
    grid = Grid()
    grid.place(parse_cell("a1"), Card.parse("5H"))
    with pytest.raises(IllegalPlacementError) as caught:
        grid.place(parse_cell("c3"), Card.parse("6H"))
    assert caught.value.code == "illegal_cell"
    assert "c3" in str(caught.value) and "touch" in str(caught.value)
    with pytest.raises(OccupiedCellError) as occupied:
        grid.place(parse_cell("a1"), Card.parse("6H"))
    assert occupied.value.code == "occupied_cell"
    assert "5H" in str(occupied.value)
    with pytest.raises(DuplicateCardError):
        grid.place(parse_cell("b1"), Card.parse("5H"))
    with pytest.raises(CellError):
        grid.place(16, Card.parse("6H"))
    assert grid.count == 1


@given(st.permutations(DECK), st.lists(st.integers(0, 15), min_size=16, max_size=16))
def test_random_legal_play_fills_the_grid(deck: list[Card], picks: list[int]) -> None:
    grid = Grid()
    placements = []
    for card, pick in zip(deck[:16], picks, strict=True):
        legal = grid.legal_cells()
        assert legal, "a grid that is not full always has a legal cell"
        cell = legal[pick % len(legal)]
        grid.place(cell, card)
        placements.append((cell, card))
    assert grid.is_full
    assert grid.legal_cells() == []
    assert sorted(grid.cards()) == sorted(deck[:16])
    assert Grid.replay(placements).cells() == grid.cells()
    with pytest.raises(GridFullError):
        grid.place(0, deck[16])


@given(
    st.permutations(DECK),
    st.lists(st.integers(0, 15), min_size=16, max_size=16),
    st.integers(0, 16),
    st.integers(-3, 20),
)
def test_an_illegal_placement_leaves_the_grid_unchanged(
    deck: list[Card], picks: list[int], steps: int, cell: int
) -> None:
    grid = Grid()
    for card, pick in zip(deck[:steps], picks[:steps], strict=True):
        legal = grid.legal_cells()
        grid.place(legal[pick % len(legal)], card)
    legal_now = grid.legal_cells()
    before = (grid.cells(), grid.filled_mask, legal_now)
    assume(cell not in legal_now)  # the refusals: off the grid, occupied, not touching, full
    reason = grid.why_illegal(cell)
    assert isinstance(reason, EngineError)
    with pytest.raises(EngineError) as caught:
        grid.place(cell, deck[16])
    assert type(caught.value) is type(reason)
    assert str(caught.value)
    assert (grid.cells(), grid.filled_mask, grid.legal_cells()) == before


@given(st.permutations(DECK), st.lists(st.integers(0, 15), min_size=1, max_size=15))
def test_placing_a_card_already_on_the_grid_changes_nothing(
    deck: list[Card], picks: list[int]
) -> None:
    grid = Grid()
    for card, pick in zip(deck, picks, strict=False):
        legal = grid.legal_cells()
        grid.place(legal[pick % len(legal)], card)
    before = (grid.cells(), grid.filled_mask)
    with pytest.raises(DuplicateCardError):
        grid.place(grid.legal_cells()[0], deck[0])
    assert (grid.cells(), grid.filled_mask) == before


def test_legal_mask_of_full_and_empty() -> None:
    assert legal_mask(0) == (1 << CELLS) - 1
    assert legal_mask((1 << CELLS) - 1) == 0


def test_render_marks_cells_by_name() -> None:
    grid = Grid()
    grid.place(parse_cell("a1"), Card.parse("TD"))
    assert grid.render(marks=grid.legal_cells()).splitlines() == [
        "   a   b   c   d",
        "1  TD  b1  ..  ..",
        "2  a2  b2  ..  ..",
        "3  ..  ..  ..  ..",
        "4  ..  ..  ..  ..",
    ]
    assert repr(grid) == "<Grid a1=TD>"


@given(st.integers(0, (1 << CELLS) - 1))
def test_legal_mask_is_the_cells_touching_a_filled_one(filled: int) -> None:
    """The table-driven mask is the rule itself: an empty cell is legal if it touches a
    filled one across, down or diagonally (any cell, on an empty grid)."""
    from engine.grid import NEIGHBOURS

    expected = 0
    for cell in range(CELLS):
        empty = not filled >> cell & 1
        touches = any(
            filled >> other & 1 for other in range(CELLS) if NEIGHBOURS[cell] >> other & 1
        )
        if empty and (touches or filled == 0):
            expected |= 1 << cell
    assert legal_mask(filled) == expected
