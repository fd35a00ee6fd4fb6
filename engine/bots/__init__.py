"""Bots for Cribbage Squares and the auto-placement fallback.

``STRATEGIES`` maps a name ("random", "greedy", "expert") to a factory taking a
seed; every strategy answers ``choose(view, budget) -> cell``. ``LEVELS`` is
the ladder of opponents built from them (``make_bot("level-3", seed)``), each
bot with a seeded style of its own. See docs/bots.md for how they play and how
strong they are. Pure: no I/O beyond reading the package's own data files
(``line_values.json``, ``level_ratings.json``), no clock unless the caller
passes one, no ``random``.
"""

from engine.bots.levels import (
    ALIASES,
    LEVELS,
    Level,
    LevelBot,
    LevelRating,
    get_level,
    level_names,
    level_ratings,
    make_bot,
)
from engine.bots.strategies import (
    STRATEGIES,
    BotView,
    Budget,
    Decision,
    ExpertStrategy,
    GreedyStrategy,
    RandomStrategy,
    Strategy,
    expert_values,
    fallback_cell,
    line_values,
    make_strategy,
)
from engine.bots.style import Style

__all__ = [
    "ALIASES",
    "LEVELS",
    "STRATEGIES",
    "BotView",
    "Budget",
    "Decision",
    "ExpertStrategy",
    "GreedyStrategy",
    "Level",
    "LevelBot",
    "LevelRating",
    "RandomStrategy",
    "Strategy",
    "Style",
    "expert_values",
    "fallback_cell",
    "get_level",
    "level_names",
    "level_ratings",
    "line_values",
    "make_bot",
    "make_strategy",
]
