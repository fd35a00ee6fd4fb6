"""Bots for Cribbage Squares and the auto-placement fallback.

``STRATEGIES`` maps a name ("random", "greedy", "expert") to a factory taking a
seed; every strategy answers ``choose(view, budget) -> cell``. See
docs/bots.md for how they play and how strong they are. Pure: no I/O beyond
reading the package's own ``line_values.json``, no clock unless the caller
passes one, no ``random``.
"""

from engine.bots.strategies import (
    STRATEGIES,
    BotView,
    Budget,
    Decision,
    ExpertStrategy,
    GreedyStrategy,
    RandomStrategy,
    Strategy,
    fallback_cell,
    line_values,
    make_strategy,
)

__all__ = [
    "STRATEGIES",
    "BotView",
    "Budget",
    "Decision",
    "ExpertStrategy",
    "GreedyStrategy",
    "RandomStrategy",
    "Strategy",
    "fallback_cell",
    "line_values",
    "make_strategy",
]
