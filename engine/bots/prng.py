"""A small deterministic pseudo-random generator for the bots.

The engine never touches Python's ``random`` module: every random choice a bot
makes comes from a :class:`SplitMix64` seeded from an int or a text, so the
same seed and the same position always give the same move. SplitMix64 (Steele,
Lea and Flood, 2014) is tiny, fast in pure Python and statistically good enough
for Monte Carlo play. It is *not* for deals: those follow docs/fairness.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence
from typing import Final, TypeVar

_MASK: Final = (1 << 64) - 1
_GOLDEN: Final = 0x9E3779B97F4A7C15

T = TypeVar("T")


def seed_to_int(seed: int | str) -> int:
    """A 64-bit state from an int or a text (texts through SHA-256)."""
    if isinstance(seed, str):
        return int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest()[:8], "big")
    return seed & _MASK


class SplitMix64:
    """SplitMix64: ``next64`` gives 64-bit outputs, ``below`` integers in 0..n-1."""

    __slots__ = ("_state",)

    def __init__(self, seed: int | str = 0) -> None:
        self._state = seed_to_int(seed)

    def next64(self) -> int:
        self._state = z = (self._state + _GOLDEN) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    @property
    def state(self) -> int:
        """The 64-bit state: the next output is a function of it alone (for batch sampling)."""
        return self._state

    def skip(self, count: int) -> None:
        """Move on as ``count`` calls of :meth:`next64` would (each adds the same constant)."""
        self._state = (self._state + count * _GOLDEN) & _MASK

    def below(self, n: int) -> int:
        """An integer in ``0..n-1``; bias at most n / 2**64, irrelevant for play."""
        return (self.next64() * n) >> 64

    def shuffle_prefix(self, items: MutableSequence[T], count: int) -> None:
        """Fisher-Yates on the first ``count`` positions: a uniform sample, in order."""
        n = len(items)
        for i in range(min(count, n - 1)):
            j = i + self.below(n - i)
            items[i], items[j] = items[j], items[i]
