"""History queries, shared by the HTTP endpoints and `cribsquares history`.

What they return is what anyone may see: server.visibility decides (a match
still being played, or under its tournament round's embargo, shows who plays
it and nothing of its cards), and lists only what may be listed publicly.
"""

from __future__ import annotations

import json
from typing import Any

from server import visibility
from server.ratings import PROVISIONAL_DEVIATION, Entry, Rating
from server.storage.players import find_player, player_json
from server.storage.sql import Reader, Row, chunks, in_list


async def match_detail(
    db: Reader, match_id: str, viewer: str | None = None
) -> dict[str, Any] | None:
    """One match as ``viewer`` (a player id; None: anyone) may see it
    (server.visibility.public_match)."""
    facts = await _match_facts(db, match_id)
    return None if facts is None else visibility.public_match(facts, viewer)


async def _match_facts(db: Reader, match_id: str) -> dict[str, Any] | None:
    """Everything stored of a match, its embargo included: for visibility to judge."""
    found = await db.fetch(
        "SELECT m.*, r.name AS room_name, e.lifted_ms AS embargo_lifted_ms FROM matches m"
        " JOIN rooms r ON r.id = m.room_id LEFT JOIN embargoes e ON e.id = m.embargo"
        " WHERE m.id = {match_id}",
        {"match_id": match_id},
    )
    if not found:
        return None
    m = found[0]
    finished = m["status"] == "finished"
    players = await db.fetch(
        "SELECT mp.seat, mp.contribution, p.id, p.name, p.guest, p.bot,"
        " r.rank, r.score, r.time_used_ms, r.cells, r.detail"
        " FROM match_players mp JOIN players p ON p.id = mp.player_id"
        " LEFT JOIN results r ON r.match_id = mp.match_id AND r.player_id = mp.player_id"
        " WHERE mp.match_id = {match_id} ORDER BY mp.seat",
        {"match_id": match_id},
    )
    placements: dict[str, list[dict[str, Any]]] = {}
    seed: dict[str, Any] = {}
    if finished:
        for row in await db.fetch(
            "SELECT player_id, turn, cell, card, elapsed_ms, auto FROM placements"
            " WHERE match_id = {match_id} ORDER BY player_id, turn",
            {"match_id": match_id},
        ):
            placements.setdefault(row["player_id"], []).append(
                {
                    "turn": row["turn"],
                    "cell": row["cell"],
                    "card": row["card"],
                    "elapsed_ms": row["elapsed_ms"],
                    "auto": bool(row["auto"]),
                }
            )
        seeds = await db.fetch(
            "SELECT * FROM seeds WHERE match_id = {match_id}", {"match_id": match_id}
        )
        if seeds:
            seed = {"seed": seeds[0]["seed"], "server_secret": seeds[0]["server_secret"]}
    boards = []
    for p in players:
        board: dict[str, Any] = {
            "seat": p["seat"],
            "player": {"id": p["id"], "name": p["name"], "guest": bool(p["guest"]),
                       "bot": bool(p["bot"])},
            "contribution": p["contribution"],
        }  # fmt: skip
        if finished and p["rank"] is not None:
            board.update(
                rank=p["rank"],
                score=p["score"],
                time_used_ms=p["time_used_ms"],
                cells=json.loads(p["cells"]),
                placements=placements.get(p["id"], []),
                detail=json.loads(p["detail"]),
            )
        boards.append(board)
    if finished:
        boards.sort(key=lambda b: (b["rank"], b["seat"]))
    return {
        "match_id": m["id"],
        "room": {"id": m["room_id"], "name": m["room_name"]},
        "series_id": m["series_id"],
        "deal": m["deal"],
        "pace": m["pace"],
        "status": m["status"],
        "card_clock_ms": m["card_clock_ms"],
        "deal_clock_ms": m["deal_clock_ms"],
        "started_ms": m["started_ms"],
        "finished_ms": m["finished_ms"],
        "seed_commitment": m["seed_commitment"],
        "server_commitment": m["server_commitment"],
        "contributions": [b["contribution"] for b in sorted(boards, key=lambda b: b["seat"])],
        "starter": m["starter"] if finished else None,
        # Why a board ranks where its score alone would not (match_result's ranking);
        # none kept for a deal stored before they were.
        "ranking": json.loads(m["ranking"]) if finished and m["ranking"] else [],
        "seed": seed.get("seed"),
        "server_secret": seed.get("server_secret"),
        "boards": boards,
        "embargo": m["embargo"],
        "embargo_lifted": m["embargo_lifted_ms"] is not None,
    }


def _summary(row: Row) -> dict[str, Any]:
    return {
        "match_id": row["id"],
        "room": row["room_name"],
        "pace": row["pace"],
        "status": row["status"],
        "started_ms": row["started_ms"],
        "finished_ms": row["finished_ms"],
        "players": row["players"],
    }


_SUMMARY_SQL = (
    "SELECT m.id, m.pace, m.status, m.started_ms, m.finished_ms, r.name AS room_name,"
    " (SELECT COUNT(*) FROM match_players x WHERE x.match_id = m.id) AS players"
)


async def _abandoned(db: Reader, player_id: str) -> dict[str, int]:
    rows = await db.fetch(
        "SELECT kind, COUNT(*) AS n FROM abandonments WHERE player_id = {player_id} GROUP BY kind",
        {"player_id": player_id},
    )
    counts = {"left": 0, "timeout": 0, "idle": 0}
    counts.update({row["kind"]: row["n"] for row in rows})
    return counts


async def player_ratings(db: Reader, who: str, limit: int) -> dict[str, Any] | None:
    """A player's rating per pace, its rating history (newest first) and abandonments."""
    p = await find_player(db, who)
    if p is None:
        return None
    ratings = {
        row["pace"]: {
            "rating": round(row["rating"], 1),
            "deviation": round(row["deviation"], 1),
            "volatility": round(row["volatility"], 6),
            "games": row["games"],
            "provisional": row["deviation"] > PROVISIONAL_DEVIATION,
        }
        for row in await db.fetch(
            "SELECT * FROM ratings WHERE player_id = {player_id}", {"player_id": p["id"]}
        )
    }
    history = [
        {
            "pace": row["pace"],
            "room_id": row["room_id"],
            "series_id": row["series_id"],
            "at_ms": row["at_ms"],
            "opponent": row["opponent"],
            "result": {1.0: "win", 0.5: "draw", 0.0: "loss"}.get(row["score"], "draw"),
            "before": round(row["rating_before"]),
            "after": round(row["rating_after"]),
            "deviation_before": round(row["deviation_before"]),
            "deviation_after": round(row["deviation_after"]),
        }
        for row in await db.fetch(
            "SELECT h.*, o.name AS opponent FROM rating_history h"
            " JOIN players o ON o.id = h.opponent_id"
            " WHERE h.player_id = {player_id} ORDER BY h.at_ms DESC, h.seq DESC LIMIT {limit}",
            {"player_id": p["id"], "limit": limit},
        )
    ]
    return {
        "player": player_json(p),
        "ratings": ratings,
        "history": history,
        "abandoned": await _abandoned(db, p["id"]),
    }


async def player_matches(
    db: Reader, who: str, limit: int, viewer: str | None = None
) -> dict[str, Any] | None:
    """The matches of a player given by id or name (registered names first): for
    anyone, those that may be listed publicly (server.visibility: not a private
    room's); for the player itself (``viewer``, the id the request was made as),
    every one it sat in. Ranks and scores of a match under an embargo not yet
    lifted are null but in one's own list (server.visibility.listed_result)."""
    p = await find_player(db, who)
    if p is None:
        return None
    listed = "1 = 1" if viewer == p["id"] else visibility.LISTED_ROOM_SQL
    rows = await db.fetch(
        _SUMMARY_SQL + ", res.rank, res.score, res.time_used_ms,"
        " m.embargo, e.lifted_ms AS embargo_lifted_ms, m.series_id, m.deal,"
        " s.best_of, s.status AS series_status, s.winner_id, s.deals AS series_deals,"
        " s.standings AS series_standings"
        " FROM match_players mp JOIN matches m ON m.id = mp.match_id"
        " JOIN rooms r ON r.id = m.room_id"
        " LEFT JOIN results res ON res.match_id = m.id AND res.player_id = mp.player_id"
        " LEFT JOIN embargoes e ON e.id = m.embargo"
        " LEFT JOIN series s ON s.id = m.series_id"
        f" WHERE mp.player_id = {{player_id}} AND {listed}"
        " ORDER BY m.started_ms DESC LIMIT {limit}",
        {"player_id": p["id"], "limit": limit},
    )
    opponents = await _opponents(db, [row["id"] for row in rows], p["id"])
    matches = []
    for row in rows:
        item = _summary(row)
        shown = visibility.listed_result(row, viewer, p["id"])
        against = opponents.get(row["id"], [])
        if not shown:
            against = [{**o, "rank": None, "score": None} for o in against]
        item.update(rank=row["rank"] if shown else None,
                    score=row["score"] if shown else None,
                    time_used_ms=row["time_used_ms"] if shown else None,
                    opponents=against,
                    series=_series_of(row, shown))  # fmt: skip
        matches.append(item)
    return {
        "player": player_json(p),
        "matches": matches,
        "abandoned": await _abandoned(db, p["id"]),
        "all": viewer == p["id"],  # private rooms' matches included: the player asked
    }


def _series_of(row: Row, shown: bool) -> dict[str, Any] | None:
    """The series a listed deal belongs to, when it is one of several deals (best of 3
    or 5): which deal this is, how many were played, and once it is over its winner
    and standings (deals won, who forfeited), held back where the deal's result is."""
    if row["series_id"] is None or (row["best_of"] or 1) <= 1:
        return None
    standings = json.loads(row["series_standings"] or "[]") if shown else []
    return {
        "id": row["series_id"],
        "best_of": row["best_of"],
        "deal": row["deal"],
        "deals": row["series_deals"],
        "status": row["series_status"],
        "winner_id": row["winner_id"] if shown else None,
        "standings": [
            {
                "player_id": st["player_id"],
                "deals_won": st["deals_won"],
                "forfeited": bool(st.get("forfeited")),
            }
            for st in standings
        ],
    }


async def _opponents(
    db: Reader, match_ids: list[str], player_id: str
) -> dict[str, list[dict[str, Any]]]:
    """The other players of each match, in seat order, with their rank and score
    (null until the match is over: results are stored only then)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for chunk in chunks(match_ids):
        ids, args = in_list("match", chunk)
        rows = await db.fetch(
            "SELECT mp.match_id, mp.seat, p.id, p.name, p.guest, p.bot, res.rank, res.score"
            " FROM match_players mp JOIN players p ON p.id = mp.player_id"
            " LEFT JOIN results res ON res.match_id = mp.match_id AND res.player_id = mp.player_id"
            f" WHERE mp.match_id IN ({ids}) AND mp.player_id != {{player_id}}"
            " ORDER BY mp.match_id, mp.seat",
            {**args, "player_id": player_id},
        )
        for row in rows:
            found.setdefault(row["match_id"], []).append(
                {"player": player_json(row), "rank": row["rank"], "score": row["score"]}
            )
    return found


async def recent_matches(db: Reader, limit: int) -> list[dict[str, Any]]:
    rows = await db.fetch(
        _SUMMARY_SQL + " FROM matches m JOIN rooms r ON r.id = m.room_id"
        f" WHERE {visibility.LISTED_ROOM_SQL} ORDER BY m.started_ms DESC LIMIT {{limit}}",
        {"limit": limit},
    )
    return [_summary(row) for row in rows]


async def ratings(db: Reader) -> list[tuple[str, Entry]]:
    """Every stored rating, as (pace, entry), for the lobby's rating book."""
    rows = await db.fetch("SELECT r.*, p.name FROM ratings r JOIN players p ON p.id = r.player_id")
    return [
        (
            row["pace"],
            Entry(
                row["player_id"],
                row["name"],
                Rating(row["rating"], row["deviation"], row["volatility"]),
                row["games"],
                row["updated_ms"],
            ),
        )
        for row in rows
    ]
