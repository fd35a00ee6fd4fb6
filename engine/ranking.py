"""Ranks and game scores, one rule for every table of results.

:func:`competition_ranks` ranks as sports do ("1224"): everyone whose key is
equal shares a rank, and the next rank skips as many places. A lower key is
better. :func:`game_score` is one game's score for a player, the way ratings
and Swiss standings count it: a win 1, a draw 0.5, a loss 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Protocol, TypeVar

WIN: Final = 1.0
DRAW: Final = 0.5
LOSS: Final = 0.0


class _Ordered(Protocol):
    def __lt__(self, other: Any, /) -> bool: ...


K = TypeVar("K", bound=_Ordered)


def competition_ranks(keys: Sequence[K]) -> list[int]:
    """The rank of each key, in the keys' order: 1 + how many keys are strictly better."""
    return [1 + sum(1 for k in keys if k < key) for key in keys]


def game_score(winner: str | None, player: str) -> float:
    """``player``'s score of a game won by ``winner`` (None: a draw)."""
    if winner is None:
        return DRAW
    return WIN if winner == player else LOSS
