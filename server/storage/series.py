"""Series in the database as a restart and the history read them back.

:func:`unfinished_series`: every series being played when the server stopped,
with everything a room needs to be rebuilt (server.room.restore);
:func:`series_detail`: a series as the history shows it (server.visibility.public_series);
:func:`series_facts`: all of it, for the server's own use.
"""

from __future__ import annotations

import json
from typing import Any

from server import visibility
from server.events import PlayerRecord
from server.recovery import Resumable, StoredDeal, StoredPlacement
from server.storage.players import player_json
from server.storage.sql import Reader


async def unfinished_series(db: Reader, room_id: str | None = None) -> list[Resumable]:
    """Every series being played, oldest first (``room_id``: only that room's)."""
    found = []
    sql = (
        "SELECT s.*, r.name, r.visibility, r.invite_code, r.seats, r.card_clock_ms,"
        " r.deal_clock_ms, r.creator_id FROM series s JOIN rooms r ON r.id = s.room_id"
        " WHERE s.status = 'playing'"
    )
    args: dict[str, str] = {}
    if room_id is not None:
        sql, args = sql + " AND s.room_id = {room_id}", {"room_id": room_id}
    for row in await db.fetch(sql + " ORDER BY s.started_ms", args):
        sid = row["id"]
        seated = await db.fetch(
            "SELECT p.*, sp.strategy, sp.bot_seed FROM series_players sp"
            " JOIN players p ON p.id = sp.player_id WHERE sp.series_id = {series_id}"
            " ORDER BY sp.seat",
            {"series_id": sid},
        )
        players = tuple(
            PlayerRecord(p["id"], p["name"], bool(p["guest"]), bool(p["bot"])) for p in seated
        )
        seat_bots = tuple((p["strategy"], p["bot_seed"]) for p in seated)
        deals = []
        embargo: tuple[str | None, bool] = (None, False)  # the last deal's
        for m in await db.fetch(
            "SELECT m.id, m.deal, m.status, m.started_ms, m.embargo, e.lifted_ms, s.seed,"
            " s.contributions FROM matches m JOIN seeds s ON s.match_id = m.id"
            " LEFT JOIN embargoes e ON e.id = m.embargo"
            " WHERE m.series_id = {series_id} ORDER BY m.deal",
            {"series_id": sid},
        ):
            finished = m["status"] == "finished"
            embargo = (m["embargo"], m["lifted_ms"] is not None)
            outcomes: dict[str, tuple[int, int, int]] = {}
            placements: tuple[StoredPlacement, ...] = ()
            if finished:
                for r in await db.fetch(
                    "SELECT * FROM results WHERE match_id = {match_id}", {"match_id": m["id"]}
                ):
                    outcomes[r["player_id"]] = (r["rank"], r["score"], r["time_used_ms"])
            else:
                placements = tuple(
                    StoredPlacement(
                        p["player_id"],
                        p["turn"],
                        p["cell"],
                        p["card"],
                        p["elapsed_ms"],
                        bool(p["auto"]),
                        p["placed_ms"],
                    )
                    for p in await db.fetch(
                        "SELECT * FROM placements WHERE match_id = {match_id}"
                        " ORDER BY placed_ms, turn",
                        {"match_id": m["id"]},
                    )
                )
            deals.append(
                StoredDeal(
                    match_id=m["id"],
                    deal=m["deal"],
                    seed=m["seed"],
                    contributions=tuple(json.loads(m["contributions"])),
                    started_ms=m["started_ms"],
                    finished=finished,
                    outcomes=outcomes,
                    placements=placements,
                )
            )
        gone = await db.fetch(
            "SELECT player_id, kind FROM abandonments WHERE series_id = {series_id}"
            " ORDER BY at_ms, seq",
            {"series_id": sid},
        )
        found.append(
            Resumable(
                room_id=row["room_id"],
                name=row["name"],
                visibility=row["visibility"],
                invite_code=row["invite_code"],
                pace=row["pace"],
                seats=row["seats"],
                card_clock_ms=row["card_clock_ms"],
                deal_clock_ms=row["deal_clock_ms"],
                deals_best_of=row["best_of"],
                rated=bool(row["rated"]),
                origin=row["origin"],
                creator_id=row["creator_id"],
                series_id=sid,
                root_secret=row["root_secret"],
                players=players,
                deals=tuple(deals),
                forfeited=tuple(dict.fromkeys(g["player_id"] for g in gone if g["kind"] == "left")),
                timed_out=frozenset(g["player_id"] for g in gone if g["kind"] == "timeout"),
                secret_scheme=row["secret_scheme"],
                embargo=embargo[0],
                embargo_lifted=embargo[1],
                seat_bots=seat_bots,
            )
        )
    return found


async def series_detail(db: Reader, series_id: str) -> dict[str, Any] | None:
    """A series as anyone may see it (server.visibility.public_series)."""
    facts = await series_facts(db, series_id)
    return None if facts is None else visibility.public_series(facts)


async def series_facts(db: Reader, series_id: str) -> dict[str, Any] | None:
    """Everything stored of a series: its settings, players, deals (match ids with
    scores, and each deal's embargo) and final standings. For the server's own use
    (a restarted director's catch-up) and for visibility to judge, never shown as is."""
    found = await db.fetch("SELECT * FROM series WHERE id = {id}", {"id": series_id})
    if not found:
        return None
    row = found[0]
    players = [
        player_json(p)
        for p in await db.fetch(
            "SELECT p.* FROM series_players sp JOIN players p ON p.id = sp.player_id"
            " WHERE sp.series_id = {series_id} ORDER BY sp.seat",
            {"series_id": series_id},
        )
    ]
    deals = []
    for m in await db.fetch(
        "SELECT m.id, m.deal, m.status, m.embargo, e.lifted_ms FROM matches m"
        " LEFT JOIN embargoes e ON e.id = m.embargo WHERE m.series_id = {series_id}"
        " ORDER BY m.deal",
        {"series_id": series_id},
    ):
        scores = {
            r["player_id"]: {"rank": r["rank"], "score": r["score"]}
            for r in await db.fetch(
                "SELECT player_id, rank, score FROM results WHERE match_id = {match_id}",
                {"match_id": m["id"]},
            )
        }
        deals.append(
            {"match_id": m["id"], "deal": m["deal"], "status": m["status"], "results": scores,
             "embargo": m["embargo"], "embargo_lifted": m["lifted_ms"] is not None}
        )  # fmt: skip
    return {
        "series_id": row["id"],
        "room_id": row["room_id"],
        "best_of": row["best_of"],
        "rated": bool(row["rated"]),
        "pace": row["pace"],
        "origin": row["origin"],
        "status": row["status"],
        "players": players,
        "deals": deals,
        "standings": json.loads(row["standings"]) if row["standings"] else None,
        "winner_id": row["winner_id"],
        "started_ms": row["started_ms"],
        "finished_ms": row["finished_ms"],
    }
