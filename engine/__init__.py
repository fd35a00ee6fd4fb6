"""The pure rules of Cribbage Squares.

Cards, deals from seeds, the 4x4 grid and its placement rule, the scorer and
the bots. Deterministic; imports nothing from asyncio, aiohttp, aiosqlite,
pydantic or any other I/O library, and never reads the clock or ``random``
without a seed the caller gives.

The names below are loaded from their modules when first used, so that a
program needing one part of the engine (``cribsquares hand`` needs the cards
and the itemized scorer) does not build the rest (the fast totals' tables).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# ``deal`` is both a module and its main function: importing the module binds the
# module to the package's name, so the function is bound here, after it, once.
from engine.deal import deal

if TYPE_CHECKING:
    from engine.cards import DECK, Card, parse_cards
    from engine.deal import Deal, commitment, room_seed, verify
    from engine.errors import EngineError
    from engine.grid import Grid, cell_name, parse_cell
    from engine.scoring import WIN_SCORE, BoardScore, HandScore, score_board, score_hand
    from engine.totals import board_total, hand_total

    parse_card = Card.parse

_WHERE = {
    "DECK": "cards",
    "Card": "cards",
    "parse_cards": "cards",
    "Deal": "deal",
    "commitment": "deal",
    "room_seed": "deal",
    "verify": "deal",
    "EngineError": "errors",
    "Grid": "grid",
    "cell_name": "grid",
    "parse_cell": "grid",
    "WIN_SCORE": "scoring",
    "BoardScore": "scoring",
    "HandScore": "scoring",
    "score_board": "scoring",
    "score_hand": "scoring",
    "board_total": "totals",
    "hand_total": "totals",
}

__all__ = [
    "DECK",
    "WIN_SCORE",
    "BoardScore",
    "Card",
    "Deal",
    "EngineError",
    "Grid",
    "HandScore",
    "board_total",
    "cell_name",
    "commitment",
    "deal",
    "hand_total",
    "parse_card",
    "parse_cards",
    "parse_cell",
    "room_seed",
    "score_board",
    "score_hand",
    "verify",
]


def __getattr__(name: str) -> Any:
    if name == "parse_card":
        return importlib.import_module("engine.cards").Card.parse
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"engine.{where}"), name)
    globals()[name] = value  # found once: later lookups are plain attribute reads
    return value
