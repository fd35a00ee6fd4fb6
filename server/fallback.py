"""Where the server puts a card its player did not place in time.

The rule is deterministic, documented in docs/server.md, and the same for
everyone: the engine's ``engine.bots.fallback_cell(grid, card)`` when the engine
provides it, otherwise the first legal cell in reading order (a1, b1, c1, d1,
a2, ...). Bot seats use the strategy they were given instead (server.bots).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.cards import Card
from engine.grid import Grid

CellChooser = Callable[[Grid, Card], int]


def first_legal_cell(grid: Grid, card: Card) -> int:
    """The first legal cell in reading order: a1, b1, c1, d1, a2, ..."""
    return grid.legal_cells()[0]


def _engine_fallback() -> CellChooser | None:
    try:
        from engine.bots import fallback_cell  # type: ignore[attr-defined]
    except (ImportError, AttributeError):
        return None
    return fallback_cell  # type: ignore[no-any-return]


def fallback_cell(grid: Grid, card: Card) -> int:
    """The cell the server places ``card`` on for a late or absent player."""
    chooser = _ENGINE or first_legal_cell
    cell = chooser(grid, card)
    if grid.why_illegal(cell) is not None:  # never trust a helper with a player's board
        return first_legal_cell(grid, card)
    return cell


_ENGINE = _engine_fallback()
