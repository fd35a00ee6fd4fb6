"""A bot's style: which of its near-best moves it plays, seeded per bot.

Two bots of one strategy that always play the best-rated cell make the same
board on the same deal. A style breaks that without costing strength: among
the moves rated within ``margin`` points of the best, a bot picks at random
with probability proportional to ``exp((estimate - best) / temperature)``, a
softmax. Each bot's temperature is its level's times a factor between 1/√2
and √2 drawn from the bot's seed, so bots of one level differ in how freely
they stray, not only in their luck. A wide margin and a high temperature make
a weak player (a beginner's mistakes are plausible moves, not random ones); a
narrow margin and a low one only choose between moves that are as good as
equal.

Pure: the pick is a function of the seed, the position and the estimates.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.bots.prng import SplitMix64

_UNIT = float(1 << 64)


def unit(rng: SplitMix64) -> float:
    """A float uniform in [0, 1) from ``rng``."""
    return rng.next64() / _UNIT


@dataclass(frozen=True)
class Style:
    """Softmax over the moves within ``margin`` of the best (temperature 0: the best)."""

    temperature: float = 0.0
    margin: float = math.inf

    def __post_init__(self) -> None:
        if self.temperature < 0 or self.margin < 0:
            raise ValueError("a style's temperature and margin are >= 0")

    @classmethod
    def seeded(cls, seed: int | str, temperature: float, margin: float = math.inf) -> Style:
        """The style of the bot seeded ``seed``: ``temperature`` scaled by its own factor."""
        factor = 2.0 ** (unit(SplitMix64(f"style/{seed}")) - 0.5)
        return cls(temperature * factor, margin)

    def pick(self, ranked: Sequence[tuple[float, int]], rng: SplitMix64) -> int:
        """A cell from ``ranked`` ((estimate, cell), best first; ties in the order given)."""
        if not ranked:
            raise ValueError("no move to pick from")
        best = ranked[0][0]
        if self.temperature <= 0:
            return ranked[0][1]
        near = [(e, c) for e, c in ranked if e >= best - self.margin]
        if len(near) == 1:
            return near[0][1]
        weights = [math.exp((e - best) / self.temperature) for e, _ in near]
        u = unit(rng) * math.fsum(weights)
        for weight, (_, cell) in zip(weights, near, strict=True):
            u -= weight
            if u < 0:
                return cell
        return near[-1][1]
