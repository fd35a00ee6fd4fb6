"""Glicko-2 ratings, as specified by Mark Glickman ("Example of the Glicko-2
system", 2013). Pure arithmetic: no I/O, no clock.

Parameters (documented in docs/ratings.md):

* a new player starts at rating 1500, deviation 350, volatility 0.06;
* the system constant tau is 0.5;
* one rating period is one match: each match updates both players at once;
* a player is *provisional* while its deviation is above 110;
* a week without a rated match at a pace is one empty rating period: the
  deviation grows as Glicko-2's step 6 says (sqrt(phi^2 + sigma^2) a week),
  applied when the player is next rated;
* deviation never exceeds 500, even after a long absence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

SCALE: Final = 173.7178
DEFAULT_RATING: Final = 1500.0
DEFAULT_DEVIATION: Final = 350.0
MAX_DEVIATION: Final = 500.0
DEFAULT_VOLATILITY: Final = 0.06
TAU: Final = 0.5
PROVISIONAL_DEVIATION: Final = 110.0
EPSILON: Final = 1e-6
RATING_PERIOD_MS: Final = 7 * 24 * 3600 * 1000  # an empty period: a week without a rated match


@dataclass(frozen=True)
class Rating:
    rating: float = DEFAULT_RATING
    deviation: float = DEFAULT_DEVIATION
    volatility: float = DEFAULT_VOLATILITY

    @property
    def provisional(self) -> bool:
        return self.deviation > PROVISIONAL_DEVIATION


@dataclass(frozen=True)
class Result:
    """One game against one opponent: score 1 win, 0.5 draw, 0 loss."""

    opponent: Rating
    score: float


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(player: Rating, results: Sequence[Result], *, tau: float = TAU) -> Rating:
    """The player's rating after one rating period with ``results``."""
    mu = (player.rating - DEFAULT_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility

    if not results:
        # Step 6 only: the deviation grows with inactivity.
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, min(phi_star * SCALE, MAX_DEVIATION), sigma)

    v_inv = 0.0
    delta_sum = 0.0
    for r in results:
        mu_j = (r.opponent.rating - DEFAULT_RATING) / SCALE
        phi_j = r.opponent.deviation / SCALE
        g = _g(phi_j)
        e = _e(mu, mu_j, phi_j)
        v_inv += g * g * e * (1.0 - e)
        delta_sum += g * (r.score - e)
    v = 1.0 / v_inv
    delta = v * delta_sum

    sigma_new = _new_volatility(delta, phi, v, sigma, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * delta_sum
    return Rating(
        mu_new * SCALE + DEFAULT_RATING,
        min(phi_new * SCALE, MAX_DEVIATION),
        sigma_new,
    )


def _new_volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Step 5: the Illinois algorithm on f(x), as in Glickman's example."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        num = ex * (delta * delta - phi * phi - v - ex)
        den = 2.0 * (phi * phi + v + ex) ** 2
        return num / den - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def aged(player: Rating, periods: int) -> Rating:
    """``player`` after ``periods`` empty rating periods (step 6 each, in closed form)."""
    if periods <= 0:
        return player
    phi = player.deviation / SCALE
    grown = math.sqrt(phi * phi + periods * player.volatility * player.volatility) * SCALE
    return Rating(player.rating, min(grown, MAX_DEVIATION), player.volatility)


def rate_match(a: Rating, b: Rating, score_a: float) -> tuple[Rating, Rating]:
    """Both players' new ratings after one head-to-head match (a scored ``score_a``)."""
    return (
        update(a, [Result(b, score_a)]),
        update(b, [Result(a, 1.0 - score_a)]),
    )


@dataclass(frozen=True)
class Entry:
    """One player's standing at one pace."""

    player_id: str
    name: str
    rating: Rating
    games: int = 0
    updated_ms: int = 0  # when it was last rated


@dataclass(frozen=True)
class Change:
    player_id: str
    opponent_id: str
    score: float
    before: Rating
    after: Rating
    games: int


class RatingBook:
    """Every rated player's rating per pace, in memory (the database keeps a copy).

    Pure bookkeeping: :meth:`rate` applies one head-to-head match, :meth:`board`
    ranks a pace. A player with no rated match yet has the default rating.
    """

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], Entry] = {}

    def load(self, entries: Sequence[tuple[str, Entry]], *, replace: bool = False) -> None:
        """(pace, entry) pairs, as the database stored them (``replace``: and nothing else)."""
        if replace:
            self._entries.clear()
        for pace, entry in entries:
            self._entries[(entry.player_id, pace)] = entry

    def get(self, player_id: str, pace: str) -> Rating:
        entry = self._entries.get((player_id, pace))
        return entry.rating if entry is not None else Rating()

    def entry(self, player_id: str, pace: str) -> Entry | None:
        return self._entries.get((player_id, pace))

    def current(self, player_id: str, pace: str, now_ms: int) -> Rating:
        """The rating at ``now_ms``: its deviation grown by the weeks since it was last rated."""
        entry = self._entries.get((player_id, pace))
        if entry is None:
            return Rating()
        return aged(entry.rating, (now_ms - entry.updated_ms) // RATING_PERIOD_MS)

    def rate(
        self, pace: str, a: tuple[str, str], b: tuple[str, str], score_a: float, now_ms: int = 0
    ) -> tuple[Change, Change]:
        """Rate one match between players ``a`` and ``b`` ((id, name) each) at ``now_ms``."""
        before_a = self.current(a[0], pace, now_ms)
        before_b = self.current(b[0], pace, now_ms)
        after_a, after_b = rate_match(before_a, before_b, score_a)
        changes = []
        for (pid, name), before, after, score, other in (
            (a, before_a, after_a, score_a, b[0]),
            (b, before_b, after_b, 1.0 - score_a, a[0]),
        ):
            old = self._entries.get((pid, pace))
            games = (old.games if old is not None else 0) + 1
            self._entries[(pid, pace)] = Entry(pid, name, after, games, now_ms)
            changes.append(Change(pid, other, score, before, after, games))
        return changes[0], changes[1]

    def board(self, pace: str) -> list[Entry]:
        """The players rated at ``pace``, best first (ties: more games, then name)."""
        rows = [e for (_, p), e in self._entries.items() if p == pace]
        rows.sort(key=lambda e: (-e.rating.rating, -e.games, e.name.lower()))
        return rows
