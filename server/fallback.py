"""Where the server puts a card its player did not place in time.

The rule is deterministic, documented in docs/server.md, and the same for
everyone: the engine's ``engine.bots.fallback_cell(grid, card)`` (the greedy
bot's choice, ties to the lowest cell) when the engine provides it, otherwise —
or should it ever fail — the first legal cell in reading order (a1, b1, c1, d1,
a2, ...). Bot seats use the strategy they were given instead (server.bots).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from engine.cards import Card
from engine.grid import Grid

log = logging.getLogger(__name__)

CellChooser = Callable[[Grid, Card], int]


def first_legal_cell(grid: Grid, card: Card) -> int:
    """The first legal cell in reading order: a1, b1, c1, d1, a2, ..."""
    return grid.legal_cells()[0]


def _engine_fallback() -> CellChooser | None:
    try:
        from engine.bots import fallback_cell as engine_rule
    except Exception:  # the engine without bots: the server's own rule applies
        return None
    return engine_rule


def fallback_cell(grid: Grid, card: Card) -> int:
    """The cell the server places ``card`` on for a late or absent player."""
    if _ENGINE is not None:
        try:
            cell = _ENGINE(grid.copy(), card)
        except Exception:
            log.exception("the engine's fallback rule failed; using the first legal cell")
        else:
            if isinstance(cell, int) and grid.why_illegal(cell) is None:
                return cell
    return first_legal_cell(grid, card)


_ENGINE = _engine_fallback()
