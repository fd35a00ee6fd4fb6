"""Ratings and leaderboards as text, for every front end and command.

The leaderboard comes over the WebSocket (``leaderboard`` message) to the play
client, and from ``GET /api/leaderboard/{pace}`` to ``cribsquares
leaderboard``; a player's ratings and their history from ``GET
/api/players/{name}/ratings`` to ``cribsquares ratings``. This module parses
and formats; :func:`fetch_json` is the one blocking HTTP call, for the
one-shot commands only (the play client uses its session).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlencode

from pydantic import BaseModel, ConfigDict, ValidationError

from client_cli.reach import unreachable
from protocol.fields import Pace, PlayerInfo
from protocol.head_to_head import Leaderboard, LeaderboardEntry


class RatingsError(Exception):
    """A failure to say in one line: unreachable server, unknown player, bad answer."""


# ---------------------------------------------------------------------------
# Shapes of the HTTP answers (docs/cli.md lists them field by field)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class PaceRating(_Strict):
    rating: float
    deviation: float
    volatility: float
    games: int
    provisional: bool


class RatingEvent(_Strict):
    pace: Pace
    room_id: str
    series_id: str | None = None
    at_ms: int
    before: int
    after: int
    deviation_before: int
    deviation_after: int
    opponent: str
    result: str  # "win", "loss" or "draw"


class PlayerRatings(_Strict):
    player: PlayerInfo
    ratings: dict[str, PaceRating]
    history: list[RatingEvent] = []
    # How many series the player abandoned, by how: "left" (left the room) and
    # "timeout" (away past the grace period); a bare number counts as "left".
    abandoned: dict[str, int] | int = {}

    @property
    def abandoned_counts(self) -> dict[str, int]:
        if isinstance(self.abandoned, int):
            return {"left": self.abandoned} if self.abandoned else {}
        return {k: v for k, v in self.abandoned.items() if v}


def parse_leaderboard(data: Any) -> Leaderboard:
    """``GET /api/leaderboard/{pace}`` -> the same object the WebSocket sends."""
    if not isinstance(data, dict):
        raise RatingsError("the server's leaderboard is not an object")
    try:
        return Leaderboard.model_validate(
            {k: data[k] for k in ("pace", "top", "around", "players")}
        )
    except (KeyError, ValidationError) as exc:
        raise RatingsError(f"the server's leaderboard is not readable: {exc}") from None


def parse_ratings(data: Any) -> PlayerRatings:
    try:
        return PlayerRatings.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RatingsError(
            f"the server's ratings are not readable: {where}: {first['msg']}"
        ) from None


# ---------------------------------------------------------------------------
# Text


HEADER = "rank  player                    rating    ±  games"


def entry_line(entry: LeaderboardEntry, me: str | None = None) -> str:
    """``"   3  ada                         1712   62     31"``, marked for oneself."""
    rank = str(entry.rank) if entry.rank else "-"
    name = entry.player.name + (" [bot]" if entry.player.bot else "")
    line = f"{rank:>4}  {name:<24}  {entry.rating:>6} {entry.deviation:>4}  {entry.games:>5}"
    notes = []
    if entry.provisional:
        notes.append("provisional")
    if me is not None and entry.player.id == me:
        notes.append("you")
    return line + (f"  ({', '.join(notes)})" if notes else "")


def leaderboard_lines(board: Leaderboard, me: str | None = None) -> list[str]:
    """The whole leaderboard as lines: the top, then the players around one."""
    ranked = f"{board.players} ranked player{'s' if board.players != 1 else ''}"
    lines = [f"{board.pace.value} leaderboard: {ranked}"]
    if not board.top:
        lines.append("nobody is rated at this pace yet")
        return lines
    lines.append(HEADER)
    lines += [entry_line(e, me) for e in board.top]
    shown = {e.player.id for e in board.top}
    around = [e for e in board.around if e.player.id not in shown]
    if around:
        lines.append("...")
        lines += [entry_line(e, me) for e in around]
    lines.append(
        "provisional players (rank -) are listed but not ranked until their rating settles"
    )
    return lines


def _when(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M")


def ratings_lines(data: PlayerRatings, limit: int = 20) -> list[str]:
    """A player's rating per pace, then the latest changes, newest first."""
    who = data.player.name + (" [bot]" if data.player.bot else "")
    lines = [f"{who} ({data.player.id})"]
    if not data.ratings:
        lines.append("no rated games yet")
    for pace, r in sorted(data.ratings.items()):
        note = ", provisional" if r.provisional else ""
        lines.append(
            f"  {pace:<9} rating {round(r.rating)} ±{round(r.deviation)}, {r.games} game"
            f"{'s' if r.games != 1 else ''}{note}"
        )
    counts = data.abandoned_counts
    if counts:
        how = {"left": "left", "timeout": "away too long", "idle": "never moved"}
        parts = ", ".join(f"{how.get(k, k)} {n}" for k, n in sorted(counts.items()))
        lines.append(f"  series abandoned: {sum(counts.values())} ({parts})")
    history = sorted(data.history, key=lambda e: e.at_ms, reverse=True)[:limit]
    if history:
        lines.append("latest changes:")
    for e in history:
        lines.append(
            f"  {_when(e.at_ms)}  {e.pace.value:<8} {e.result:<4} vs {e.opponent:<24} "
            f"{e.before} -> {e.after} ({e.after - e.before:+d})"
        )
    return lines


# ---------------------------------------------------------------------------
# HTTP, for the one-shot commands


def leaderboard_path(pace: str) -> str:
    return f"/api/leaderboard/{quote(pace, safe='')}"


def ratings_path(name: str) -> str:
    return f"/api/players/{quote(name, safe='')}/ratings"


def fetch_json(base: str, path: str, params: Sequence[tuple[str, str]] = ()) -> Any:
    """GET ``base + path`` and parse its JSON; :class:`RatingsError` on any failure."""
    url = base + path + (f"?{urlencode(list(params))}" if params else "")
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return json.loads(resp.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            raise RatingsError(f"not found: {path}") from None
        raise RatingsError(f"{path}: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise RatingsError(unreachable(base, exc)) from None
    except ValueError as exc:
        raise RatingsError(f"{path}: the answer is not JSON ({exc})") from None
