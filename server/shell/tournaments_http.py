"""Read-only HTTP for tournaments (the shell's, as every route is):
``/api/tournaments``, ``/api/tournaments/{id}`` and
``/api/tournaments/{id}/export?format=json|csv&what=standings|boards``.

Everything comes from the database except the standings of a tournament still
being played, which are the live ones of its director (stored ones are final).
A tournament and its exports may be megabytes: they are built away from the
event loop and kept once the tournament is over (server.heavy_reads).
"""

from __future__ import annotations

from typing import Any, get_args

from aiohttp import web

from protocol.fields import PAGE_DEFAULT, PAGE_MAX
from protocol.tournaments import TournamentListStatus
from server import visibility
from server.cursors import BadCursor
from server.heavy_reads import Built, HeavyReads, json_bytes
from server.shell.replies import bad_request, query_int
from server.storage.sql import Reader
from server.storage.tournaments import (
    boards_csv,
    standings_csv,
    tournament_boards,
    tournament_detail,
)
from server.tournaments.views import stored_presentation

STATUSES: tuple[str, ...] = get_args(TournamentListStatus)


def routes(
    hub_key: web.AppKey[Any], storage_key: web.AppKey[Any], reads_key: web.AppKey[HeavyReads]
) -> list[web.RouteDef]:
    def live_of(request: web.Request, tid: str) -> dict[str, Any] | None:
        """What the tournaments' desk says of a tournament still being played here that
        the store does not (:meth:`TournamentDesk.live`); None: the store has it all."""
        live: dict[str, Any] | None = request.app[hub_key].lobby.tournaments.live(tid)
        return live

    async def listing(request: web.Request) -> web.Response:
        """``?limit=N&after=CURSOR&status=S``: a page, newest first (``status``: only
        those in it), and the next page's cursor."""
        limit = query_int(request, "limit", PAGE_DEFAULT, PAGE_MAX)
        if limit is None:
            return bad_request(f"limit: 1 to {PAGE_MAX}")
        status = request.query.get("status")
        if status is not None and status not in STATUSES:
            return bad_request(f"status: one of {', '.join(STATUSES)}")
        try:
            rows, after = await request.app[storage_key].tournament_page(
                limit, request.query.get("after"), status
            )
        except BadCursor as exc:
            return bad_request(str(exc))
        for row in rows:  # the format and its length worded as everywhere
            row.update(
                stored_presentation(
                    row["format"], row["settings"], row["rounds_played"], bool(row["finished_ms"])
                )
            )
        return web.json_response({"tournaments": rows, "next": after})

    async def one(request: web.Request) -> web.Response:
        tid = request.match_info["tournament_id"]
        live = live_of(request, tid)

        async def build(reader: Reader) -> Built | None:
            found = await _detail(reader, tid, live)
            if found is None:
                return None
            return Built(json_bytes(found), "application/json", _final(found, live))

        return _answer(await request.app[reads_key].answer(("one", tid), build))

    async def export(request: web.Request) -> web.Response:
        fmt = request.query.get("format", "json")
        what = request.query.get("what", "standings")
        if fmt not in ("json", "csv") or what not in ("standings", "boards"):
            return bad_request("format is json or csv; what is standings or boards")
        tid = request.match_info["tournament_id"]
        live = live_of(request, tid)
        what = "both" if fmt == "json" else what  # the JSON export is the tournament and its boards

        async def build(reader: Reader) -> Built | None:
            found = await _detail(reader, tid, live)
            if found is None:
                return None
            final = _final(found, live)
            if what == "standings":
                return Built(standings_csv(found["standings"] or []).encode(), "text/csv", final)
            boards = await tournament_boards(reader, tid)
            if fmt == "json":
                return Built(json_bytes({"tournament": found, "boards": boards}),
                             "application/json", final)  # fmt: skip
            return Built(boards_csv(boards).encode(), "text/csv", final)

        built = await request.app[reads_key].answer(("export", tid, fmt, what), build)
        response = _answer(built)
        if built is not None and fmt == "csv":
            response.headers["Content-Disposition"] = f'attachment; filename="{tid}-{what}.csv"'
        return response

    return [
        web.get("/api/tournaments", listing),
        web.get("/api/tournaments/{tournament_id}", one),
        web.get("/api/tournaments/{tournament_id}/export", export),
    ]


async def _detail(reader: Reader, tid: str, live: dict[str, Any] | None) -> dict[str, Any] | None:
    """The tournament as anyone may see it (None: none, or a private one: not found,
    as on the WebSocket), with what its director says that the store does not."""
    found = await tournament_detail(reader, tid)
    if found is None or not visibility.tournament_found(found["visibility"], member=False):
        return None
    over = found["status"] in ("finished", "cancelled")
    found.update(
        stored_presentation(found["format"], found["settings"], len(found["rounds"]), over)
    )
    if live is not None:
        found.update(live)
    return found


def _final(found: dict[str, Any], live: dict[str, Any] | None) -> bool:
    """Can this answer no longer change? A tournament over, as stored."""
    return live is None and found["status"] in ("finished", "cancelled")


def _answer(built: Built | None) -> web.Response:
    if built is None:
        return _not_found()
    return web.Response(body=built.body, content_type=built.content_type, charset="utf-8")


def _not_found() -> web.Response:
    return web.json_response(
        {"error": {"code": "tournament_not_found", "reason": "no such tournament"}}, status=404
    )
