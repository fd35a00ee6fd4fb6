"""The pure rules of Cribbage Squares.

Cards, deals from seeds, the 4x4 grid and its placement rule, the scorer and
the bots. Deterministic; imports nothing from asyncio, aiohttp, aiosqlite,
pydantic or any other I/O library, and never reads the clock or ``random``
without a seed the caller gives.
"""

from engine.cards import DECK, Card, parse_cards
from engine.deal import Deal, commitment, deal, room_seed, verify
from engine.errors import EngineError
from engine.grid import Grid, cell_name, parse_cell
from engine.scoring import (
    WIN_SCORE,
    BoardScore,
    HandScore,
    board_total,
    hand_total,
    score_board,
    score_hand,
)

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

parse_card = Card.parse
