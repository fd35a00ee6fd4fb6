"""Tournaments in the database: the writer's side for the tournament events, and
the read-only queries behind ``/api/tournaments`` and the exports (their tables
are in :mod:`server.storage.schema`).

Like the rest of :mod:`server.storage`, it only persists what a director decided and reads
it back; the boards themselves are the ordinary matches and results of each
table's series. What the queries return is what anyone may see
(server.visibility): no secret of a round not over, and no board of a deal
whose round is not over (the round's embargo, stored in ``embargoes``).
"""

from __future__ import annotations

import csv
import io
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from server import visibility
from server.cursors import BadCursor, Seal
from server.events import (
    Event,
    TournamentCreated,
    TournamentEntry,
    TournamentRoundBegan,
    TournamentRoundEnded,
    TournamentSnapshot,
    TournamentStatus,
    TournamentTableChanged,
)
from server.recovery import ResumableTournament
from server.storage.players import seat_players
from server.storage.sql import Reader, Row, Tx

RUNNING = "status NOT IN ('finished', 'cancelled', 'abandoned')"


@dataclass(frozen=True, slots=True)
class Abandon:
    """A tournament that cannot be resumed after a restart is over: ``abandoned``."""

    tournament_id: str
    at_ms: int  # when (its rounds' deals are no longer embargoed from then on)


def apply(db: Tx, event: Event | Abandon) -> bool:
    """Write a tournament event; False for any other event."""
    match event:
        case TournamentSnapshot():
            db.write(
                "INSERT INTO tournament_snapshots (tournament_id, state, saved_ms)"
                " VALUES ({id}, {state}, {at_ms}) ON CONFLICT (tournament_id)"
                " DO UPDATE SET state = excluded.state, saved_ms = excluded.saved_ms",
                {"id": event.tournament_id, "state": json.dumps(event.state),
                 "at_ms": event.at_ms},
            )  # fmt: skip
        case Abandon(tournament_id=tid, at_ms=at_ms):
            db.write(
                f"UPDATE tournaments SET status = 'abandoned' WHERE id = {{id}} AND {RUNNING}",
                {"id": tid},
            )
            db.write("DELETE FROM tournament_snapshots WHERE tournament_id = {id}", {"id": tid})
            # Nothing of it is played any more: its rounds' deals are no longer embargoed.
            db.write(
                "UPDATE embargoes SET lifted_ms = {at_ms}"
                " WHERE lifted_ms IS NULL AND substr(id, 1, {length}) = {prefix}",
                {"at_ms": at_ms, "length": len(tid) + 1, "prefix": tid + "/"},
            )
        case TournamentCreated():
            h = event.host
            seat_players(db, [(h.id, h.name, h.guest, h.bot)], event.at_ms)
            db.insert(
                "tournaments",
                ("id", "name", "format", "visibility", "host_id", "settings", "commitment",
                 "status", "created_ms"),
                [(event.tournament_id, event.name, event.format, event.visibility, h.id,
                  json.dumps(event.settings), event.commitment, "registering", event.at_ms)],
            )  # fmt: skip
        case TournamentEntry():
            p = event.player
            seat_players(db, [(p.id, p.name, p.guest, p.bot)], event.at_ms)
            db.write(
                "INSERT INTO tournament_entries (tournament_id, player_id, number, contribution,"
                " joined_round, status, seed) VALUES ({id}, {player_id}, {number},"
                " {contribution}, {joined_round}, {status}, {seed})"
                " ON CONFLICT (tournament_id, player_id) DO UPDATE SET status = excluded.status,"
                " seed = excluded.seed",
                {"id": event.tournament_id, "player_id": p.id, "number": event.number,
                 "contribution": event.contribution, "joined_round": event.joined_round,
                 "status": event.status, "seed": event.seed},
            )  # fmt: skip
        case TournamentRoundBegan():
            db.insert(
                "tournament_rounds",
                ("tournament_id", "round", "contribution", "contributors", "server_commitment",
                 "started_ms"),
                [(event.tournament_id, event.round, event.contribution,
                  json.dumps([list(c) for c in event.contributors]), event.server_commitment,
                  event.at_ms)],
            )  # fmt: skip
        case TournamentTableChanged():
            db.write(
                "INSERT INTO tournament_tables (tournament_id, round, table_no, room_id,"
                " series_id, players, status, winner_id, points) VALUES ({id}, {round},"
                " {table}, {room_id}, {series_id}, {players}, {status}, {winner_id}, {points})"
                " ON CONFLICT (tournament_id, round, table_no) DO UPDATE SET"
                " room_id = excluded.room_id, series_id = excluded.series_id,"
                " players = excluded.players, status = excluded.status,"
                " winner_id = excluded.winner_id, points = excluded.points",
                {"id": event.tournament_id, "round": event.round, "table": event.table,
                 "room_id": event.room_id, "series_id": event.series_id,
                 "players": json.dumps(list(event.players)), "status": event.status,
                 "winner_id": event.winner_id, "points": json.dumps(dict(event.points))},
            )  # fmt: skip
        case TournamentRoundEnded():
            db.write(
                "UPDATE tournament_rounds SET server_secret = {secret}, finished_ms = {at_ms}"
                " WHERE tournament_id = {id} AND round = {round}",
                {"secret": event.server_secret, "at_ms": event.at_ms,
                 "id": event.tournament_id, "round": event.round},
            )  # fmt: skip
        case TournamentStatus():
            status = {"started": "playing", "resumed": "playing"}.get(event.status, event.status)
            tid = event.tournament_id
            db.write(
                "UPDATE tournaments SET status = {status} WHERE id = {id}",
                {"status": status, "id": tid},
            )
            if event.status == "started":
                db.write(
                    "UPDATE tournaments SET started_ms = {at_ms} WHERE id = {id}",
                    {"at_ms": event.at_ms, "id": tid},
                )
            if event.standings is not None:
                db.write(
                    "UPDATE tournaments SET standings = {standings}, finished_ms = {at_ms}"
                    " WHERE id = {id}",
                    {"standings": json.dumps(list(event.standings)), "at_ms": event.at_ms,
                     "id": tid},
                )  # fmt: skip
                # Over: nothing is left to resume (and the snapshot holds the chain's root).
                db.write("DELETE FROM tournament_snapshots WHERE tournament_id = {id}", {"id": tid})
        case _:
            return False
    return True


# ----------------------------------------------------------------------
# Reading


async def unfinished_tournaments(db: Reader) -> list[ResumableTournament]:
    """Every tournament being run when the server last stopped, oldest first, with
    its director's latest snapshot (None if none was stored)."""
    rows = await db.fetch(
        "SELECT t.id, s.state, s.saved_ms FROM tournaments t"
        " LEFT JOIN tournament_snapshots s ON s.tournament_id = t.id"
        f" WHERE t.{RUNNING} ORDER BY t.created_ms"
    )
    return [
        ResumableTournament(
            r["id"],
            None if r["state"] is None else json.loads(r["state"]),
            r["saved_ms"] or 0,
        )
        for r in rows
    ]


def _player(row: Row, prefix: str = "") -> dict[str, Any]:
    return {
        "id": row[prefix + "id"],
        "name": row[prefix + "name"],
        "guest": bool(row[prefix + "guest"]),
        "bot": bool(row[prefix + "bot"]),
    }


_FIRST = (1 << 62, "~")  # after every (created_ms, id): the first page
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
CURSOR_KEY = "cursor_key"  # settings: the key that marks the stored listing's cursors


def ensure_cursor_key(tx: Tx) -> None:
    """Draw the stored listing's cursor key once, in the transaction that opens the
    store: every node of a cluster reads the same one."""
    tx.execute(
        "INSERT INTO settings (name, value) VALUES ({name}, {value}) ON CONFLICT (name) DO NOTHING",
        {"name": CURSOR_KEY, "value": secrets.token_hex(16)},
    )


async def _seal(db: Reader) -> Seal:
    rows = await db.fetch("SELECT value FROM settings WHERE name = {name}", {"name": CURSOR_KEY})
    if not rows:  # a store opened only to read, never by a server
        raise BadCursor("this store gives no cursors")
    return Seal(bytes.fromhex(rows[0]["value"]))


def _base36(n: int) -> str:
    out = ""
    while True:
        n, d = divmod(n, 36)
        out = _DIGITS[d] + out
        if not n:
            return out


def _position(created_ms: int, tid: str) -> str:
    """A page's last tournament as text: its creation (base 36, to stay short) and id."""
    return f"{_base36(created_ms)}.{tid}"


def _cursor(seal: Seal | None, text: str | None) -> tuple[int, str]:
    """The (created_ms, id) a cursor marks; :class:`BadCursor` for one never given (a
    made-up ``created_ms.id`` of a real tournament included)."""
    if text is None:
        return _FIRST
    if seal is None:
        raise BadCursor(f"{text[:40]!r} is not a cursor this server gave")
    created, sep, tid = seal.read_text(text).partition(".")
    if not sep or not tid or not created.isascii() or not created.isalnum():
        raise BadCursor(f"{text[:40]!r} is not a cursor this server gave")
    return int(created, 36), tid


async def tournament_page(
    db: Reader, limit: int = 100, after: str | None = None, status: str | None = None
) -> tuple[list[dict[str, Any]], str | None]:
    """A page of the public tournaments (``status``: only those in it), newest first,
    and the next page's cursor (None: the last). The index on (created_ms, id) makes
    any page cost the same.

    A cursor is the (creation, id) of the last tournament of a page, marked with the
    store's cursor key (server.cursors): one the server never gave, or that names no
    public tournament, is refused (BadCursor)."""
    seal = await _seal(db) if after is not None else None
    created, tid = _cursor(seal, after)
    if after is not None and not await db.fetch(
        "SELECT 1 AS listed FROM tournaments WHERE id = {id} AND created_ms = {created}"
        " AND visibility = 'public'",
        {"id": tid, "created": created},
    ):
        raise BadCursor(f"{after[:40]!r} is not a cursor this server gave")
    only = "" if status is None else " AND t.status = {status}"
    rows = await db.fetch(
        "SELECT t.*, p.id AS h_id, p.name AS h_name, p.guest AS h_guest, p.bot AS h_bot,"
        " (SELECT COUNT(*) FROM tournament_entries e WHERE e.tournament_id = t.id"
        "  AND e.status != 'withdrawn' AND e.status != 'removed') AS entrants,"
        " (SELECT COUNT(*) FROM tournament_rounds r WHERE r.tournament_id = t.id) AS rounds_played"
        " FROM tournaments t JOIN players p ON p.id = t.host_id"
        " WHERE t.visibility = 'public' AND (t.created_ms, t.id) < ({created}, {id})"
        + only
        + " ORDER BY t.created_ms DESC, t.id DESC LIMIT {limit}",
        {"created": created, "id": tid, "status": status, "limit": limit + 1},
    )
    more = len(rows) > limit
    rows = rows[:limit]
    last = rows[-1] if more and rows else None
    if last is None:
        return _listed(rows), None
    seal = seal or await _seal(db)
    return _listed(rows), seal.give_text(_position(last["created_ms"], last["id"]))


async def tournament_list(db: Reader, limit: int = 100) -> list[dict[str, Any]]:
    """Public tournaments, newest first (the first page of :func:`tournament_page`)."""
    return (await tournament_page(db, limit))[0]


def _listed(rows: Sequence[Row]) -> list[dict[str, Any]]:
    return [
        {
            "id": r["id"],
            "name": r["name"],
            "format": r["format"],
            "status": r["status"],
            "host": _player(r, "h_"),  # a player, as everywhere else
            "entrants": r["entrants"],
            "rounds_played": r["rounds_played"],
            "settings": json.loads(r["settings"]),
            "created_ms": r["created_ms"],
            "finished_ms": r["finished_ms"],
            "winners": _winners(r),
        }
        for r in rows
    ]


def _winners(r: Row) -> list[dict[str, Any]]:
    """The players ranked first in a finished tournament's final standings."""
    if r["status"] != "finished" or not r["standings"]:
        return []
    return [s["player"] for s in json.loads(r["standings"]) if s.get("rank") == 1]


async def tournament_detail(db: Reader, tid: str) -> dict[str, Any] | None:
    """A tournament: settings, entries, every round with its tables and their deals, standings."""
    found = await db.fetch(
        "SELECT t.*, p.id AS h_id, p.name AS h_name, p.guest AS h_guest, p.bot AS h_bot"
        " FROM tournaments t JOIN players p ON p.id = t.host_id WHERE t.id = {tid}",
        {"tid": tid},
    )
    if not found:
        return None
    t = found[0]
    entries = [
        {
            "player": _player(r),
            "number": r["number"],
            "contribution": r["contribution"],
            "joined_round": r["joined_round"],
            "status": r["status"],
            "seed": r["seed"],
        }
        for r in await db.fetch(
            "SELECT e.*, p.id, p.name, p.guest, p.bot FROM tournament_entries e"
            " JOIN players p ON p.id = e.player_id WHERE e.tournament_id = {tid} ORDER BY e.number",
            {"tid": tid},
        )
    ]
    # Every finished deal of every table, in one query.
    deals: dict[str, dict[str, dict[str, Any]]] = {}
    for r in await db.fetch(
        "SELECT m.series_id, m.id AS match_id, m.deal, m.status, res.player_id, res.rank,"
        " res.score FROM tournament_tables tt JOIN matches m ON m.series_id = tt.series_id"
        " LEFT JOIN results res ON res.match_id = m.id"
        " WHERE tt.tournament_id = {tid} ORDER BY m.deal",
        {"tid": tid},
    ):
        deal = deals.setdefault(r["series_id"], {}).setdefault(
            r["match_id"],
            {"match_id": r["match_id"], "deal": r["deal"], "status": r["status"], "results": {}},
        )
        if r["player_id"] is not None:
            deal["results"][r["player_id"]] = {"rank": r["rank"], "score": r["score"]}
    tables: dict[int, list[dict[str, Any]]] = {}
    for r in await db.fetch(
        "SELECT * FROM tournament_tables WHERE tournament_id = {tid} ORDER BY round, table_no",
        {"tid": tid},
    ):
        tables.setdefault(r["round"], []).append(
            {
                "table": r["table_no"],
                "room_id": r["room_id"],
                "series_id": r["series_id"],
                "players": json.loads(r["players"]),
                "status": r["status"],
                "winner_id": r["winner_id"],
                "points": json.loads(r["points"]),
                "deals": list(deals.get(r["series_id"] or "", {}).values()),
            }
        )
    rounds = [
        visibility.public_round(
            {
                "round": r["round"],
                "contribution": r["contribution"],
                "contributors": json.loads(r["contributors"]),
                "server_commitment": r["server_commitment"],
                "server_secret": r["server_secret"],
                "started_ms": r["started_ms"],
                "finished_ms": r["finished_ms"],
                "tables": tables.get(r["round"], []),
            }
        )
        for r in await db.fetch(
            "SELECT * FROM tournament_rounds WHERE tournament_id = {tid} ORDER BY round",
            {"tid": tid},
        )
    ]
    return {
        "id": t["id"],
        "name": t["name"],
        "format": t["format"],
        "visibility": t["visibility"],
        "status": t["status"],
        "host": _player(t, "h_"),
        "settings": json.loads(t["settings"]),
        "commitment": t["commitment"],
        "created_ms": t["created_ms"],
        "started_ms": t["started_ms"],
        "finished_ms": t["finished_ms"],
        "entries": entries,
        "rounds": rounds,
        "standings": json.loads(t["standings"]) if t["standings"] else None,
    }


async def tournament_boards(db: Reader, tid: str) -> list[dict[str, Any]]:
    """Every board of the tournament anyone may see (server.visibility: the deals
    over whose round is over), round by round."""
    rows = await db.fetch(
        "SELECT tt.round, tt.table_no, m.id AS match_id, m.deal, m.starter, m.status,"
        " m.embargo, e.lifted_ms, res.seat, res.rank, res.score, res.time_used_ms, res.cells,"
        " p.id, p.name, p.guest, p.bot"
        " FROM tournament_tables tt JOIN matches m ON m.series_id = tt.series_id"
        " LEFT JOIN embargoes e ON e.id = m.embargo"
        " JOIN results res ON res.match_id = m.id JOIN players p ON p.id = res.player_id"
        " WHERE tt.tournament_id = {tid} AND m.status = 'finished'"
        " ORDER BY tt.round, tt.table_no, m.deal, res.seat",
        {"tid": tid},
    )
    return visibility.public_boards(
        {
            "round": r["round"],
            "table": r["table_no"],
            "match_id": r["match_id"],
            "deal": r["deal"],
            "starter": r["starter"],
            "player": _player(r),
            "seat": r["seat"],
            "rank": r["rank"],
            "score": r["score"],
            "time_used_ms": r["time_used_ms"],
            "cells": json.loads(r["cells"]),
            "status": r["status"],
            "embargo": r["embargo"],
            "embargo_lifted": r["lifted_ms"] is not None,
        }
        for r in rows
    )


STANDINGS_COLUMNS = (
    "rank", "player_id", "player", "bot", "status", "deals", "points", "matchpoints", "top",
    "percentage", "score", "buchholz", "sonneborn_berger", "out_in_round",
)  # fmt: skip
BOARD_COLUMNS = (
    "round", "table", "deal", "match_id", "player_id", "player", "bot", "seat", "rank", "score",
    "time_used_ms", "starter", "cells",
)  # fmt: skip


def standings_csv(standings: Sequence[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(STANDINGS_COLUMNS)
    for s in standings:
        player = s["player"]
        row = {**s, "player_id": player["id"], "player": player["name"], "bot": player["bot"]}
        writer.writerow(["" if row.get(c) is None else row[c] for c in STANDINGS_COLUMNS])
    return out.getvalue()


def boards_csv(boards: Sequence[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(BOARD_COLUMNS)
    for b in boards:
        player = b["player"]
        row = {**b, "player_id": player["id"], "player": player["name"], "bot": player["bot"],
               "cells": " ".join(c or ".." for c in b["cells"])}  # fmt: skip
        writer.writerow(["" if row.get(c) is None else row[c] for c in BOARD_COLUMNS])
    return out.getvalue()
