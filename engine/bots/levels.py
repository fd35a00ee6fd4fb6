"""The ladder of computer opponents: eight levels from a beginner to the expert at full budget.

A level is one of the three strategies (engine.bots.strategies) with a work
budget and a style (engine.bots.style): the weak levels are the greedy player
straying freely among its moves, the strong ones the Monte Carlo expert with
more and more simulations, each choosing only among moves it rates as good as
equal. Every bot of a level has a style of its own, seeded, so bots of one
level make different boards on one deal.

``level-1`` .. ``level-8`` are the stable names; ``random``, ``greedy`` and
``expert`` name levels 1, 5 and 7 (:data:`ALIASES`; level 7 is the budget the
server's expert always played). A level's rating, measured by playing the
levels against each other on fixed deals with the server's Glicko-2
(``benchmarks/rate_levels.py``), is read from the package's own
``level_ratings.json``.

Determinism: with a work budget only, a level bot's move is a pure function
of (seed, position, budget), like every strategy's.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Final

from engine.bots.fast import LineValues
from engine.bots.prng import SplitMix64
from engine.bots.strategies import (
    BotView,
    Budget,
    Decision,
    ExpertStrategy,
    GreedyStrategy,
    RandomStrategy,
)
from engine.bots.style import Style

RATINGS_FILE: Final = "level_ratings.json"


@dataclass(frozen=True)
class Level:
    """One rung of the ladder: a strategy, its budget and its style."""

    number: int
    title: str
    strategy: str  # "random", "greedy" or "expert"
    simulations: int = 0  # the expert's budget per card
    temperature: float = 0.0  # the style's softmax temperature, in points
    margin: float = math.inf  # the style considers moves within this many points of the best

    @property
    def name(self) -> str:
        return f"level-{self.number}"

    def describe(self) -> str:
        """One line: how this level plays."""
        if self.strategy == "random":
            return "any legal cell, at random"
        if self.strategy == "greedy":
            if self.margin == math.inf:
                return f"the greedy table's moves, loosely (temperature {self.temperature:g})"
            return "the greedy table's best move, or one as good as equal"
        return f"Monte Carlo search, {self.simulations:,} simulations a card"


LEVELS: Final[tuple[Level, ...]] = (
    Level(1, "beginner", "random"),
    Level(2, "novice", "greedy", temperature=3.0),
    Level(3, "casual", "greedy", temperature=1.5),
    Level(4, "club", "greedy", temperature=0.6),
    Level(5, "greedy", "greedy", temperature=0.15, margin=0.5),
    Level(6, "strong", "expert", simulations=200, temperature=0.1, margin=0.3),
    Level(7, "expert", "expert", simulations=400, temperature=0.1, margin=0.3),
    Level(8, "master", "expert", simulations=3000, temperature=0.1, margin=0.3),
)
"""The ladder, weakest first."""

ALIASES: Final[dict[str, str]] = {"random": "level-1", "greedy": "level-5", "expert": "level-7"}
"""The strategy names bots were asked for before the ladder, and the level each now names."""

_BY_NAME: Final[dict[str, Level]] = {lv.name: lv for lv in LEVELS}


def level_names() -> list[str]:
    """Every name a level answers to: ``level-1`` .. ``level-8`` and the aliases."""
    return [*_BY_NAME, *ALIASES]


def get_level(name: str) -> Level:
    """The level called ``name`` (a level name or an alias); ValueError if none is."""
    found = _BY_NAME.get(ALIASES.get(name, name))
    if found is None:
        known = ", ".join(level_names())
        raise ValueError(f"no level {name!r}: choose from {known}")
    return found


@dataclass(frozen=True)
class LevelRating:
    """A level's Glicko-2 rating from the ladder benchmark."""

    rating: float
    deviation: float


@cache
def level_ratings() -> dict[str, LevelRating]:
    """Each level's measured rating (empty if the file is absent)."""
    try:
        text = resources.files("engine.bots").joinpath(RATINGS_FILE).read_text("utf-8")
    except FileNotFoundError:
        return {}
    data = json.loads(text)
    assert isinstance(data, dict)
    raw = data.get("ratings", {})
    assert isinstance(raw, dict)
    return {
        name: LevelRating(float(r["rating"]), float(r["deviation"]))
        for name, r in raw.items()
        if name in _BY_NAME
    }


class LevelBot:
    """A bot playing ``level`` with the style its ``seed`` gives it."""

    def __init__(
        self,
        level: Level,
        seed: int | str = 0,
        *,
        values: LineValues | None = None,
        vectorized: bool | None = None,
    ) -> None:
        self.level = level
        self.seed = seed
        self.style = Style.seeded(seed, level.temperature, level.margin)
        self._random = RandomStrategy(seed)
        self._greedy = GreedyStrategy(seed, values=values)
        self._expert = ExpertStrategy(seed, values=values, vectorized=vectorized)

    @property
    def name(self) -> str:
        return self.level.name

    def budget(self, budget: Budget | None) -> Budget:
        """The level's own budget, within the caller's (a time limit is kept)."""
        sims = self.level.simulations
        if budget is None:
            return Budget(simulations=sims)
        return Budget(min(sims, budget.simulations), budget.seconds, budget.clock)

    def decide(self, view: BotView, budget: Budget | None = None) -> Decision:
        strategy = self.level.strategy
        if strategy == "random":
            return self._random.decide(view)
        if strategy == "greedy":
            base = self._greedy.decide(view)
            order = list(base.estimates)  # greedy_deltas' order: best first, ties by cell
        else:
            base = self._expert.decide(view, self.budget(budget))
            if not base.estimates:
                return base
            greedy_rank = {c: i for i, c in enumerate(self._expert.candidate_cells(view))}
            order = sorted(base.estimates, key=lambda c: (-base.estimates[c], greedy_rank[c]))
        ranked = [(base.estimates[c], c) for c in order]
        rng = SplitMix64(f"style/{self.seed}/{view.key()}")
        return Decision(self.style.pick(ranked, rng), base.estimates, base.simulations)

    def choose(self, view: BotView, budget: Budget | None = None) -> int:
        return self.decide(view, budget).cell

    def __repr__(self) -> str:
        return f"LevelBot({self.level.name!r}, seed={self.seed!r})"


def make_bot(
    name: str,
    seed: int | str = 0,
    *,
    values: LineValues | None = None,
    vectorized: bool | None = None,
) -> LevelBot:
    """A bot of the level ``name`` (``level-N`` or an alias), seeded; ValueError if unknown.

    ``values``: another line-value table; ``vectorized``: force the expert's rollouts
    with numpy or without (None: with, when numpy is there; the moves are the same).
    """
    return LevelBot(get_level(name), seed, values=values, vectorized=vectorized)
