"""Exceptions raised by the rules engine.

Every rule error is also a :class:`ValueError` so that plain callers can catch
it generically, and carries a stable ``code`` that the server puts on the wire
unchanged.

The tree::

    EngineError (ValueError)
    ├── CardError               code "bad_card"        unparsable card text
    ├── DuplicateCardError      code "duplicate_card"  the same card twice
    ├── HandSizeError           code "bad_count"       wrong number of cards
    ├── CellError               code "bad_cell"        unparsable or off-grid cell
    ├── IllegalPlacementError   code "illegal_cell"    a rule forbids that cell
    │   └── OccupiedCellError   code "occupied_cell"   the cell already holds a card
    ├── GridFullError           code "grid_full"       no card may be placed any more
    └── SeedError               code "bad_seed"        unusable seed text
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every rule error; ``code`` is stable and machine-readable."""

    code = "engine_error"


class CardError(EngineError):
    code = "bad_card"


class DuplicateCardError(EngineError):
    code = "duplicate_card"


class HandSizeError(EngineError):
    code = "bad_count"


class CellError(EngineError):
    code = "bad_cell"


class IllegalPlacementError(EngineError):
    code = "illegal_cell"


class OccupiedCellError(IllegalPlacementError):
    code = "occupied_cell"


class GridFullError(EngineError):
    code = "grid_full"


class SeedError(EngineError):
    code = "bad_seed"
