"""Rating the bot levels against each other with the server's own Glicko-2.

Every level plays the same fixed deals; on each deal, each pair of levels is
one head-to-head match as the server scores one (best of 1: the higher total
wins, equal totals are a draw). The ratings are Glicko-2's (server/ratings.py,
the same function and parameters that rate people), with every match in one
rating period, as Glicko-2 intends a period to hold many games: every level
starts at 1500, and in each pass each level is updated from all its results
against the others at their ratings of the pass before, starting from its own
rating with a new period's deviation (350); the passes go on until no rating
moves by a hundredth of a point. A level's rating is then the one at which its
results are what Glicko-2 expects of it against the others, its deviation what
one period of all those games leaves; the levels' mean stays at 1500 (every
point one level gains from another, the other loses), and the result does not
depend on the order of the deals.

Rating the matches one at a time instead, as the server rates people's
series, leaves each level's rating wandering about its value by the
deviation's floor (about 70 points: the volatility keeps adding uncertainty
back) and the last few hundred deals decide where it stops; that ordered
level 5 below level 4 although it takes more points from every other level.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from server.ratings import DEFAULT_DEVIATION, DEFAULT_VOLATILITY, Rating, Result, update

MAX_PASSES = 200
SETTLED = 0.01  # rating points


@dataclass(frozen=True)
class Standing:
    name: str
    rating: Rating
    games: int
    score: float  # points from its matches: 1 a win, 0.5 a draw


def results(scores: Mapping[str, Sequence[int]]) -> dict[str, list[tuple[str, float]]]:
    """Each player's (opponent, result) for every deal and every other player."""
    deals = {len(s) for s in scores.values()}
    if len(deals) != 1:
        raise ValueError("every player must have played the same deals")
    games: dict[str, list[tuple[str, float]]] = {name: [] for name in scores}
    for deal in range(deals.pop()):
        for a, b in combinations(scores, 2):
            sa, sb = scores[a][deal], scores[b][deal]
            result = 1.0 if sa > sb else 0.0 if sa < sb else 0.5
            games[a].append((b, result))
            games[b].append((a, 1.0 - result))
    return games


def rate(scores: Mapping[str, Sequence[int]]) -> list[Standing]:
    """Glicko-2 standings of the players whose per-deal totals are ``scores``, best first."""
    games = results(scores)
    ratings = {name: Rating() for name in games}
    for _ in range(MAX_PASSES):
        new = {
            name: update(
                Rating(ratings[name].rating, DEFAULT_DEVIATION, DEFAULT_VOLATILITY),
                [Result(ratings[opp], s) for opp, s in played],
            )
            for name, played in games.items()
        }
        moved = max(abs(new[n].rating - ratings[n].rating) for n in games)
        ratings = new
        if moved < SETTLED:
            break
    standings = [
        Standing(name, ratings[name], len(played), sum(s for _, s in played))
        for name, played in games.items()
    ]
    standings.sort(key=lambda st: -st.rating.rating)
    return standings


def win_share(a: Sequence[int], b: Sequence[int]) -> float:
    """The share of points ``a`` takes from ``b`` on the same deals (draws count half)."""
    won = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x, y in zip(a, b, strict=True))
    return won / len(a)
