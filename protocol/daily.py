"""The daily deal (docs/daily.md): asking for a day, playing one's attempt, and the
``daily`` message, which shows a day's deal only once the day is over.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from protocol.fields import Choice, Message, Pace, PlayerInfo, Ref, Request

# A day is named ``YYYY-MM-DD``; any other text of a sensible length is parsed, so
# that a day that is not a date gets the same ``daily_not_found`` as a day with no
# deal (docs/protocol.md), not a ``bad_message``.
DayName = Annotated[str, Field(min_length=1, max_length=32)]
# An attempt at the daily deal is played out even if the day ends meanwhile, and the
# day's deal is revealed only once every attempt is over: its clocks are bounded.
DailyCardClock = Annotated[int, Field(ge=5_000, le=120_000)]
DailyDealClock = Annotated[int, Field(ge=30_000, le=1_800_000)]


class GetDaily(Request):
    """The daily deal of ``day`` (a UTC day, ``YYYY-MM-DD``; default today):
    the schedule of commitments, one's own attempt, the ``top`` of the standings
    and, once the day is over, its deal and where the field put each card."""

    type: Literal["get_daily"] = "get_daily"
    day: DayName | None = None
    top: Annotated[int, Field(ge=1, le=100)] = 20
    ref: Ref = None


class PlayDaily(Request):
    """Begin one's one attempt at today's deal, alone in a room of one seat, at the
    pace chosen: lockstep times each card (5 to 120 s), a race the deal (30 s to
    30 min). Registered players only; the attempt counts once it begins."""

    type: Literal["play_daily"] = "play_daily"
    pace: Annotated[Pace, Choice] = Pace.LOCKSTEP
    card_clock_ms: DailyCardClock = 30_000
    deal_clock_ms: DailyDealClock = 300_000
    ref: Ref = None


class DailyCommitment(Message):
    """One day of the schedule: its commitment (SHA-256 of its secret), published at
    least seven days before it begins, and its secret once it is over."""

    day: str
    commitment: str
    secret: str | None = None


class DailyEntry(Message):
    """One attempt in the day's standings: numbers only, never a card."""

    rank: int | None = None  # None while it is being played, or while scores are held back
    player: PlayerInfo
    status: Literal["playing", "finished"]
    score: int | None = None
    percentile: int | None = None  # of the other finished players, the share below (level: half)
    time_used_ms: int | None = None
    pace: Pace
    streak: int  # consecutive days played, ending with this day


class DailyYou(Message):
    """One's own attempt at the day, and one's streaks."""

    status: Literal["none", "playing", "finished"]
    room_id: str | None = None
    match_id: str | None = None
    pace: Pace | None = None
    rank: int | None = None
    score: int | None = None
    percentile: int | None = None
    cells: list[str | None] | None = None  # one's own finished board
    streak: int = 0  # held today: today's, else yesterday's (still to be kept), else 0
    longest_streak: int = 0


class DailyDeal(Message):
    """A day's deal, once the day is over: its secret, seed and cards, and how many
    players put each turn's card in each cell (``field[turn - 1][cell]``, cells in
    the order a1, b1, c1, d1, a2, ...)."""

    secret: str
    seed: str
    contribution: str
    cards: list[str]
    starter: str
    field: list[list[int]]


class Daily(Message):
    """The reply to ``get_daily`` (and the content of ``GET /api/daily/{day}``).

    ``status``: ``upcoming`` (a day to come: its commitment only), ``open``
    (today: live standings, scores only), ``closing`` (over, an attempt begun
    before its end still being played), ``over`` (its secret and deal revealed)."""

    type: Literal["daily"] = "daily"
    day: str
    today: str
    status: Literal["upcoming", "open", "closing", "over"]
    starts_ms: int
    ends_ms: int
    left_ms: int = 0  # time left until the day ends (0 once it is over)
    commitment: str | None = None
    schedule: list[DailyCommitment]
    players: int  # attempts begun
    finished: int
    standings: list[DailyEntry]
    # False while the standings' ranks, scores, percentiles and times are held back
    # from this viewer, who may still play the day (docs/daily.md); added within 1
    scores_shown: bool = True
    you: DailyYou | None = None
    deal: DailyDeal | None = None
    ref: Ref = None


# This area's client messages (the daily deal: run by its desk). protocol.wire assembles the
# client's union from the areas' unions, and the server routes by them.
DailyRequest = GetDaily | PlayDaily
# This area's server message: protocol.wire assembles the server's union the same way.
DailyNews = Daily
