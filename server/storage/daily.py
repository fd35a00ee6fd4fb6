"""The daily deal in the database: each day's secret, each attempt, and the reads
behind the desk's memory at start and ``/api/daily`` (its tables: migration 2,
server.storage.migrations).

Like the rest of :mod:`server.storage`, it only persists what was decided and
reads it back, on either engine. A day's secret is written once (``ON CONFLICT
DO NOTHING``): a secret already stored
is never replaced, so a commitment once published stays the day's. The attempts
are rows of their own; their boards are the ordinary matches and results of
their rooms, and the day's embargo is stored in ``embargoes`` like a
tournament round's. Nothing read here for the HTTP API shows a secret or a
board before :mod:`server.visibility` allows it: :mod:`server.daily.views`
makes the view, and :func:`day_facts` hands it the facts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from engine.deal import commitment
from protocol.fields import Pace, PlayerInfo
from server.daily import days, standings
from server.daily.views import Attempt, DayFacts, Streaks, schedule_entry
from server.events import DailyAttemptBegan
from server.records import DeskState, Draw
from server.storage.sql import Reader, Row, Tx, in_list


def apply(db: Tx, write: object) -> bool:
    """Write ``write`` if it is the daily deal's; False if it is not."""
    if isinstance(write, Draw):
        db.insert(
            "daily_secrets", ("day", "secret", "commitment", "drawn_ms"),
            [(days.day_name(d), s, commitment(s), write.at_ms) for d, s in write.secrets],
            skip_existing=True,
        )  # fmt: skip
        return True
    if isinstance(write, DailyAttemptBegan):
        db.insert(
            "daily_attempts",
            ("day", "player_id", "room_id", "match_id", "pace", "clock_ms", "started_ms"),
            [(write.day, write.player_id, write.room_id, write.match_id, write.pace,
              write.clock_ms, write.at_ms)],
        )  # fmt: skip
        return True
    return False


# ----------------------------------------------------------------------
# Reading


async def secrets(db: Reader, since: int) -> dict[int, str]:
    """The stored secrets of day ``since`` and after (the server's own, never shown)."""
    rows = await db.fetch(
        "SELECT day, secret FROM daily_secrets WHERE day >= {day}", {"day": days.day_name(since)}
    )
    return {days.parse_day(r["day"]): r["secret"] for r in rows}


async def lifted(db: Reader) -> set[int]:
    """The days whose embargo is lifted."""
    rows = await db.fetch(
        "SELECT id FROM embargoes WHERE id LIKE {daily} AND lifted_ms IS NOT NULL",
        {"daily": "daily/%"},
    )
    return {days.parse_day(r["id"].removeprefix("daily/")) for r in rows}


async def unlifted_secret_days(db: Reader, before: int) -> dict[int, str]:
    """Secrets of days before ``before`` whose embargo was never lifted (the server
    was down when they ended): the desk lifts them at its first look."""
    rows = await db.fetch(
        "SELECT s.day, s.secret FROM daily_secrets s LEFT JOIN embargoes e"
        " ON e.id = 'daily/' || s.day WHERE s.day < {day} AND e.lifted_ms IS NULL",
        {"day": days.day_name(before)},
    )
    return {days.parse_day(r["day"]): r["secret"] for r in rows}


_ATTEMPTS_SQL = (
    "SELECT a.*, p.name, p.guest, p.bot, r.score, r.time_used_ms, r.cells FROM daily_attempts a"
    " JOIN players p ON p.id = a.player_id"
    " LEFT JOIN results r ON r.match_id = a.match_id AND r.player_id = a.player_id"
)


def _attempt(row: Row) -> Attempt:
    cells = json.loads(row["cells"]) if row["cells"] is not None else None
    return Attempt(
        day=days.parse_day(row["day"]),
        player=PlayerInfo(
            id=row["player_id"], name=row["name"], guest=bool(row["guest"]), bot=bool(row["bot"])
        ),
        room_id=row["room_id"],
        match_id=row["match_id"],
        pace=Pace(row["pace"]),
        started_ms=row["started_ms"],
        score=row["score"],
        time_used_ms=row["time_used_ms"],
        cells=tuple(c or None for c in cells) if cells is not None else None,
    )


async def attempts(db: Reader, day_numbers: Sequence[int]) -> list[Attempt]:
    """The attempts of the days given, with their scores and boards once over."""
    if not day_numbers:
        return []
    names = [days.day_name(d) for d in day_numbers]
    listed, args = in_list("day", names)
    rows = await db.fetch(f"{_ATTEMPTS_SQL} WHERE a.day IN ({listed})", args)
    return [_attempt(r) for r in rows]


async def played(db: Reader, player_ids: Sequence[str] | None = None,
                 upto: int | None = None) -> list[tuple[str, int]]:  # fmt: skip
    """(player id, day) of every attempt (of those players; up to day ``upto``)."""
    sql = "SELECT player_id, day FROM daily_attempts WHERE 1 = 1"
    args: dict[str, Any] = {}
    if player_ids is not None:
        if not player_ids:
            return []
        listed, ids = in_list("player", player_ids)
        sql += f" AND player_id IN ({listed})"
        args |= ids
    if upto is not None:
        sql += " AND day <= {upto}"
        args["upto"] = days.day_name(upto)
    return [(r["player_id"], days.parse_day(r["day"])) for r in await db.fetch(sql, args)]


async def day_facts(db: Reader, day: int, today: int) -> DayFacts:
    """Everything stored of ``day``, for :func:`server.daily.views.daily` to show."""
    found = await db.fetch(
        "SELECT secret FROM daily_secrets WHERE day = {day}", {"day": days.day_name(day)}
    )
    secret = found[0]["secret"] if found else None
    revealed = day in await lifted(db)
    kept = await attempts(db, [day])
    by_player: dict[str, list[int]] = {}
    for pid, d in await played(db, [a.player.id for a in kept], day):
        by_player.setdefault(pid, []).append(d)
    streaks = {
        pid: Streaks(on_day=standings.Streak.of(ds).on(day)) for pid, ds in by_player.items()
    }
    window = await db.fetch(
        "SELECT s.day, s.secret, s.commitment, e.lifted_ms FROM daily_secrets s"
        " LEFT JOIN embargoes e ON e.id = 'daily/' || s.day"
        " WHERE s.day BETWEEN {first} AND {last} ORDER BY s.day",
        {"first": days.day_name(today - 1), "last": days.day_name(today + days.AHEAD)},
    )
    schedule = [
        schedule_entry(
            days.parse_day(r["day"]), r["secret"], r["commitment"], r["lifted_ms"] is not None
        )
        for r in window
    ]
    return DayFacts(
        day=day,
        today=today,
        secret=secret,
        commitment=commitment(secret) if secret else None,
        revealed=revealed,
        attempts=kept,
        streaks=streaks,
        schedule=schedule,
    )


async def desk_state(db: Reader, today: int) -> DeskState:
    """The secrets of yesterday on and of every day never lifted, the lifted days,
    the attempts of those days, and every (player, day) played."""
    found = await secrets(db, today - 1)
    found.update(await unlifted_secret_days(db, today - 1))
    done = await lifted(db)
    kept = [d for d in found if d >= today - 1 or d not in done]
    return DeskState(found, done, await attempts(db, kept), await played(db))
