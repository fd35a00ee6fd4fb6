"""Server-side bot seats: a strategy name becomes a cell chooser for the room.

The strategies are the engine's (``engine.bots.STRATEGIES``: name -> factory
taking a seed; each answers ``choose(view, budget) -> cell``); ``fallback`` —
the server's auto-placement rule — is always available. A room is synchronous,
so a bot's move is computed on the spot: its budget is capped at
:data:`BOT_SIMULATIONS` rollouts to keep every room responsive, and a bot that
fails places by the fallback rule rather than stall the match.
"""

from __future__ import annotations

import logging
from typing import Any

from engine.cards import Card
from engine.grid import Grid
from server.fallback import CellChooser, fallback_cell

log = logging.getLogger(__name__)

BOT_SIMULATIONS = 400


def _engine_strategies() -> dict[str, Any]:
    try:
        from engine.bots import STRATEGIES
    except Exception:
        return {}
    return dict(STRATEGIES)


def strategy_names() -> list[str]:
    return sorted({"fallback", *_engine_strategies()})


def bot_factory(strategy: str, seed: str) -> CellChooser:
    """The cell chooser of ``strategy`` seeded with ``seed``; KeyError if no bot plays it."""
    if strategy == "fallback":
        return fallback_cell
    factory = _engine_strategies()[strategy]
    from engine.bots import BotView, Budget

    bot = factory(seed)
    budget = Budget(simulations=BOT_SIMULATIONS)

    def choose(grid: Grid, card: Card) -> int:
        try:
            return int(bot.choose(BotView.from_grid(grid, card), budget))
        except Exception:
            log.exception("bot %s failed; placing by the fallback rule", strategy)
            return fallback_cell(grid, card)

    return choose
