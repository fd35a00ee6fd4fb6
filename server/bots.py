"""Server-side bot seats: a strategy name becomes a cell chooser for the room.

The strategies are the engine's (``engine.bots.STRATEGIES``, name -> factory)
when the engine provides them; ``fallback`` — the server's own auto-placement
rule — is always available.
"""

from __future__ import annotations

from typing import Any

from engine.cards import Card
from engine.grid import Grid
from server.fallback import CellChooser, fallback_cell


def _engine_strategies() -> dict[str, Any]:
    try:
        from engine.bots import STRATEGIES  # type: ignore[attr-defined]
    except (ImportError, AttributeError):
        return {}
    return dict(STRATEGIES)


def strategy_names() -> list[str]:
    return sorted({"fallback", *_engine_strategies()})


def bot_factory(strategy: str) -> CellChooser:
    """The cell chooser of ``strategy``; KeyError if no bot plays it."""
    if strategy == "fallback":
        return fallback_cell
    factory = _engine_strategies()[strategy]
    bot = factory()

    def choose(grid: Grid, card: Card) -> int:
        chooser = getattr(bot, "choose", None) or getattr(bot, "place", None) or bot
        return int(chooser(grid, card))

    return choose
