"""Days of the daily deal and how each day's deal follows from its secret. Pure.

A day is a UTC calendar day, named by its ISO date (``2026-03-14``) and
numbered from the epoch (day 0 is 1970-01-01): it begins at ``n * DAY_MS``
milliseconds after the epoch and ends ``DAY_MS`` later. Nothing here reads a
clock: every function is given the time (the desk's calendar, which the server
sets to its wall clock and a test to any time it likes).

Each day has its own **secret** ``S_d``: fresh randomness, drawn and stored
``AHEAD`` days or more before the day begins, never derived from anything
(docs/fairness.md, *The daily deal*). Its SHA-256 is the day's **commitment**,
published from the moment it is stored. The day's seed is
``room_seed(S_d, [day name])``: a solo room's seed whose one contribution is
the day's name, so that every player's attempt deals the same cards and every
client checks it as it checks any room's deal.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Final

from engine.deal import commitment, room_seed
from server import visibility

DAY_MS: Final = 86_400_000
AHEAD: Final = 7  # the commitments of this many days after today are published
EPOCH: Final = date(1970, 1, 1)


def day_number(ms: int) -> int:
    """The day that ``ms`` (milliseconds since the epoch, UTC) falls in."""
    return ms // DAY_MS


def day_name(number: int) -> str:
    """``2026-03-14``: the ISO date of day ``number``."""
    return (EPOCH + timedelta(days=number)).isoformat()


def parse_day(text: str) -> int:
    """The number of the day named ``text`` (``YYYY-MM-DD``); ValueError otherwise."""
    if len(text) != 10 or text[4] != "-" or text[7] != "-":
        raise ValueError(f"{text!r} is not a day: give YYYY-MM-DD")
    try:
        found = date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a day: give YYYY-MM-DD") from None
    return (found - EPOCH).days


def starts_ms(number: int) -> int:
    return number * DAY_MS


def ends_ms(number: int) -> int:
    """When day ``number`` is over (the first millisecond of the next day)."""
    return (number + 1) * DAY_MS


def window(today: int) -> range:
    """The days whose secret must be stored by ``today``: today and the next AHEAD."""
    return range(today, today + AHEAD + 1)


def missing(today: int, stored: set[int]) -> list[int]:
    """The days of :func:`window` with no stored secret yet, to draw now."""
    return [d for d in window(today) if d not in stored]


def embargo(number: int) -> str:
    """The embargo group (server.visibility) of every attempt of day ``number``."""
    return visibility.daily_embargo(day_name(number))


def contribution(number: int) -> str:
    """The one seat contribution of every attempt of day ``number``: its name."""
    return day_name(number)


def seed(secret: str, number: int) -> str:
    """The seed of day ``number``'s deal: ``room_seed(S_d, [day name])``."""
    return room_seed(secret, [contribution(number)])


def verify(secret: str, published: str, number: int, seen_seed: str) -> bool:
    """Does a revealed secret match the day's commitment and deal the seed seen?"""
    return commitment(secret) == published.lower() and seed(secret, number) == seen_seed
