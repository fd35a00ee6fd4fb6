"""A day of the daily deal as the ``daily`` message shows it, to a player or to anyone.

Pure. The desk (from memory, for ``get_daily``) and the HTTP API (from the
database, for any day) gather the same facts (:class:`DayFacts`) and this
module makes the one view of them, so that both show the same thing.
What may be shown is :mod:`server.visibility`'s to say: who played at any time,
the standings' numbers to whoever can no longer play the day (one's own attempt
over, a guest, the day over; to anyone once it is revealed), one's own board
once one's attempt is over, and the day's secret, deal and where the field put
each card only once the day's embargo is lifted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.deal import deal
from protocol.daily import Daily, DailyCommitment, DailyDeal, DailyEntry, DailyYou
from protocol.fields import Pace, PlayerInfo
from server import visibility
from server.daily import days, standings


@dataclass(slots=True)
class Attempt:
    """One player's attempt at one day's deal; ``score`` once it is over."""

    day: int
    player: PlayerInfo
    room_id: str
    match_id: str
    pace: Pace
    started_ms: int
    score: int | None = None
    time_used_ms: int | None = None
    cells: tuple[str | None, ...] | None = None  # the finished board (never shown to others)

    @property
    def finished(self) -> bool:
        return self.score is not None


@dataclass(frozen=True, slots=True)
class Streaks:
    """A player's days played, as streaks: as of the day viewed, held now, longest."""

    on_day: int = 0
    current: int = 0
    longest: int = 0


@dataclass(frozen=True, slots=True)
class DayFacts:
    day: int
    today: int
    secret: str | None  # the day's stored secret: shown only once revealed
    commitment: str | None
    revealed: bool  # the day's embargo is lifted
    attempts: Sequence[Attempt]
    streaks: Mapping[str, Streaks]  # by player id, for the players of ``attempts``
    schedule: Sequence[DailyCommitment] = field(default_factory=tuple)


def schedule_entry(number: int, secret: str, commitment: str, revealed: bool) -> DailyCommitment:
    shown = secret if visibility.daily_shown(revealed) else None
    return DailyCommitment(day=days.day_name(number), commitment=commitment, secret=shown)


def status(facts: DayFacts) -> str:
    if facts.day > facts.today:
        return "upcoming"
    if facts.day == facts.today:
        return "open"
    return "over" if visibility.daily_shown(facts.revealed) else "closing"


def entries(facts: DayFacts) -> list[DailyEntry]:
    """Every attempt of the day: the finished ones ranked, best first, then those
    being played in the order they began (the numbers, for :func:`held_back` to keep
    from a viewer who may still play the day)."""
    done = {a.player.id: a for a in facts.attempts if a.finished}
    ranked = standings.rank({pid: a.score or 0 for pid, a in done.items()})
    rows = [
        DailyEntry(
            rank=r.rank,
            player=done[r.player_id].player,
            status="finished",
            score=r.score,
            percentile=r.percentile,
            time_used_ms=done[r.player_id].time_used_ms,
            pace=done[r.player_id].pace,
            streak=facts.streaks.get(r.player_id, Streaks()).on_day,
        )
        for r in ranked
    ]
    playing = sorted((a for a in facts.attempts if not a.finished), key=lambda a: a.started_ms)
    rows += [
        DailyEntry(
            player=a.player,
            status="playing",
            pace=a.pace,
            streak=facts.streaks.get(a.player.id, Streaks()).on_day,
        )
        for a in playing
    ]
    return rows


def held_back(rows: Sequence[DailyEntry], facts: DayFacts) -> list[DailyEntry]:
    """The standings without their numbers (rank, score, percentile, time used), in
    the order the attempts began: the order of the ranks would tell them too."""
    began = {a.player.id: a.started_ms for a in facts.attempts}
    bare = [
        r.model_copy(update={"rank": None, "score": None, "percentile": None, "time_used_ms": None})
        for r in rows
    ]
    return sorted(bare, key=lambda r: began.get(r.player.id, 0))


def the_deal(facts: DayFacts) -> DailyDeal | None:
    """The day's deal and the field's cells, once they may be shown."""
    if not visibility.daily_shown(facts.revealed) or facts.secret is None:
        return None
    seed = days.seed(facts.secret, facts.day)
    dealt = deal(seed)
    cards = [str(c) for c in dealt.cards]
    boards = [a.cells for a in facts.attempts if a.cells is not None]
    return DailyDeal(
        secret=facts.secret,
        seed=seed,
        contribution=days.contribution(facts.day),
        cards=cards,
        starter=str(dealt.starter),
        field=standings.field(cards, boards),
    )


def you(facts: DayFacts, player_id: str, rows: Sequence[DailyEntry], held: Streaks) -> DailyYou:
    """``player_id``'s own attempt at the day (its board once it is over: its own)."""
    mine = next((a for a in facts.attempts if a.player.id == player_id), None)
    if mine is None:
        return DailyYou(status="none", streak=held.current, longest_streak=held.longest)
    row = next((r for r in rows if r.player.id == player_id), None)
    return DailyYou(
        status="finished" if mine.finished else "playing",
        room_id=mine.room_id,
        match_id=mine.match_id,
        pace=mine.pace,
        rank=row.rank if row else None,
        score=mine.score,
        percentile=row.percentile if row else None,
        cells=list(mine.cells) if mine.finished and mine.cells is not None else None,
        streak=held.current,
        longest_streak=held.longest,
    )


def daily(
    facts: DayFacts,
    *,
    top: int,
    now_ms: int,
    player_id: str | None = None,
    may_play: bool = True,
    held: Streaks | None = None,
    ref: str | None = None,
) -> Daily:
    """The ``daily`` message of ``facts``: for ``player_id`` (with its own attempt and
    the streaks it ``held``; ``may_play``: not a guest), or for anyone (``player_id``
    None), at ``now_ms`` of the daily deal's calendar. Its standings' numbers only to
    a viewer server.visibility.daily_scores_shown lets see them."""
    rows = entries(facts)
    finished = sum(1 for a in facts.attempts if a.finished)
    mine = you(facts, player_id, rows, held or Streaks()) if player_id is not None else None
    shown = visibility.daily_scores_shown(
        facts.revealed, status(facts) == "open", may_play, mine.status if mine else None
    )
    if not shown:
        rows = held_back(rows, facts)
    return Daily(
        day=days.day_name(facts.day),
        today=days.day_name(facts.today),
        status=status(facts),  # type: ignore[arg-type]
        starts_ms=days.starts_ms(facts.day),
        ends_ms=days.ends_ms(facts.day),
        left_ms=max(0, days.ends_ms(facts.day) - now_ms),
        commitment=facts.commitment,
        schedule=list(facts.schedule),
        players=len(facts.attempts),
        finished=finished,
        standings=rows[:top],
        scores_shown=shown,
        you=mine,
        deal=the_deal(facts),
        ref=ref,
    )
