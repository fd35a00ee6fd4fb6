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

from typing import Final

from engine.deal import commitment, room_seed
from server import visibility

DAY_MS: Final = 86_400_000
AHEAD: Final = 7  # the commitments of this many days after today are published


def day_number(ms: int) -> int:
    """The day that ``ms`` (milliseconds since the epoch, UTC) falls in."""
    return ms // DAY_MS


# The proleptic Gregorian calendar by arithmetic (H. Hinnant's days_from_civil and
# civil_from_days, eras of 400 years that begin on March 1st): the desk is a state
# machine that imports no datetime (pyproject.toml, the import contracts), and
# tests/server/daily/test_rules.py holds these two to datetime.date over centuries.


def _civil(number: int) -> tuple[int, int, int]:
    """(year, month, day of month) of day ``number``."""
    z = number + 719_468
    era = z // 146_097
    doe = z - era * 146_097  # the day of the era, 0..146096
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)  # the day of the year from March 1st
    mp = (5 * doy + 2) // 153
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, doy - (153 * mp + 2) // 5 + 1


def _number(year: int, month: int, day: int) -> int:
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146_097 + doe - 719_468


def day_name(number: int) -> str:
    """``2026-03-14``: the ISO date of day ``number`` (day 0 is 1970-01-01)."""
    year, month, day = _civil(number)
    return f"{year:04d}-{month:02d}-{day:02d}"


def no_deal(number: int) -> str:
    """What every surface answers (``daily_not_found``) for a day with no deal."""
    return f"no daily deal on that day: {day_name(number)}"


def parse_day(text: str) -> int:
    """The number of the day named ``text`` (``YYYY-MM-DD``); ValueError otherwise."""
    parts = text.split("-")
    if (
        len(text) != 10
        or [len(p) for p in parts] != [4, 2, 2]
        or not all(p.isascii() and p.isdigit() for p in parts)
    ):
        raise ValueError(f"{text!r} is not a day: give YYYY-MM-DD")
    year, month, day = (int(p) for p in parts)
    valid = year >= 1 and 1 <= month <= 12 and 1 <= day <= 31
    number = _number(year, month, day) if valid else None
    if number is None or _civil(number) != (year, month, day):  # 2024-02-30, 2023-02-29
        raise ValueError(f"{text!r} is not a day: give YYYY-MM-DD")
    return number


def asked(text: str | None, today: int) -> int:
    """The day a request names (``YYYY-MM-DD``; None: ``today``); ValueError, saying
    why, if it is not a day or lies more than AHEAD days ahead (not drawn yet)."""
    if text is None:
        return today
    number = parse_day(text)
    if number > today + AHEAD:
        raise ValueError(f"{text} is more than {AHEAD} days ahead: not drawn yet")
    return number


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
