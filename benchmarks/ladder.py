"""Rating the bot levels against each other with the server's own Glicko-2.

Every level plays the same fixed deals; on each deal, each pair of levels is
one head-to-head match as the server scores one (best of 1: the higher total
wins, equal totals are a draw) and is rated the way the server rates a series,
one :meth:`server.ratings.RatingBook.rate` per match, every level starting
where a new player starts (1500, deviation 350). Matches are rated deal by
deal, the pairs of a deal in a fixed order, so the table is deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from server.ratings import Rating, RatingBook

PACE = "lockstep"


@dataclass(frozen=True)
class Standing:
    name: str
    rating: Rating
    games: int
    score: float  # points from its matches: 1 a win, 0.5 a draw


def rate(scores: Mapping[str, Sequence[int]]) -> list[Standing]:
    """Glicko-2 standings of the players whose per-deal totals are ``scores``, best first."""
    names = list(scores)
    deals = {len(s) for s in scores.values()}
    if len(deals) != 1:
        raise ValueError("every player must have played the same deals")
    book = RatingBook()
    points = dict.fromkeys(names, 0.0)
    for deal in range(deals.pop()):
        for a, b in combinations(names, 2):
            sa, sb = scores[a][deal], scores[b][deal]
            result = 1.0 if sa > sb else 0.0 if sa < sb else 0.5
            book.rate(PACE, (a, a), (b, b), result)
            points[a] += result
            points[b] += 1.0 - result
    standings = [
        Standing(e.player_id, e.rating, e.games, points[e.player_id]) for e in book.board(PACE)
    ]
    return standings


def win_share(a: Sequence[int], b: Sequence[int]) -> float:
    """The share of points ``a`` takes from ``b`` on the same deals (draws count half)."""
    won = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x, y in zip(a, b, strict=True))
    return won / len(a)
