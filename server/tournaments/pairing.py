"""Pairings: Swiss rounds and seeded knockout brackets. Pure functions.

Swiss: players are ordered by score, then rating; the lowest-ranked player who
has not had a bye sits out with a bye when the field is odd; the rest are paired
top-down, each with the highest-ranked remaining player of the nearest score
that it has not met, backtracking when that leaves someone unpairable, so
nobody meets the same opponent twice. :class:`PairingError` when impossible.

Knockout: a bracket of the next power of two, seeds placed in the standard
order (1 meets 16, 8 meets 9, ... so the top two seeds can only meet in the
final); the missing entrants are byes, which fall to the top seeds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


class PairingError(ValueError):
    code = "pairing_impossible"


@dataclass(frozen=True)
class SwissRound:
    pairs: list[tuple[str, str]]
    bye: str | None


def swiss_pairings(
    players: Sequence[str],
    scores: Mapping[str, float],
    ratings: Mapping[str, float],
    played: set[frozenset[str]],
    had_bye: set[str],
) -> SwissRound:
    order = sorted(players, key=lambda p: (-scores.get(p, 0.0), -ratings.get(p, 0.0), p))
    bye: str | None = None
    if len(order) % 2:
        candidates = [p for p in reversed(order) if p not in had_bye] or list(reversed(order))
        # Try byes from the bottom up until the rest can be paired.
        for candidate in candidates:
            rest = [p for p in order if p != candidate]
            pairs = _pair(rest, played)
            if pairs is not None:
                return SwissRound(pairs, candidate)
        raise PairingError("no bye leaves a field that can be paired without repeats")
    pairs = _pair(order, played)
    if pairs is None:
        raise PairingError("every pairing would repeat a game already played")
    return SwissRound(pairs, bye)


def _pair(order: list[str], played: set[frozenset[str]]) -> list[tuple[str, str]] | None:
    if not order:
        return []
    first, rest = order[0], order[1:]
    for i, other in enumerate(rest):
        if frozenset((first, other)) in played:
            continue
        tail = _pair(rest[:i] + rest[i + 1 :], played)
        if tail is not None:
            return [(first, other), *tail]
    return None


def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket position order for a power-of-two size."""
    if size < 1 or size & (size - 1):
        raise ValueError("a bracket size is a power of two")
    order = [1]
    while len(order) < size:
        n = 2 * len(order)
        order = [s for seed in order for s in (seed, n + 1 - seed)]
    return order


def knockout_first_round(seeded: Sequence[str]) -> list[tuple[str, str | None]]:
    """First-round matches of a bracket for players in seed order (best first).

    A match with ``None`` is a bye: that player goes through.
    """
    if not seeded:
        return []
    size = 2
    while size < len(seeded):
        size *= 2
    slots = [seeded[s - 1] if s <= len(seeded) else None for s in bracket_order(size)]
    matches: list[tuple[str, str | None]] = []
    for i in range(0, size, 2):
        a, b = slots[i], slots[i + 1]
        if a is None:
            a, b = b, a
        if a is not None:
            matches.append((a, b))
    return matches
