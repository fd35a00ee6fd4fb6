"""Read-only HTTP for tournaments: ``/api/tournaments``, ``/api/tournaments/{id}`` and
``/api/tournaments/{id}/export?format=json|csv&what=standings|boards``.

Everything comes from the database except the standings of a tournament still
being played, which are the live ones of its director (stored ones are final).
"""

from __future__ import annotations

from typing import Any, get_args

from aiohttp import web

from protocol.fields import PAGE_DEFAULT, PAGE_MAX
from protocol.tournaments import TournamentListStatus
from server import visibility
from server.cursors import BadCursor
from server.storage.tournaments import boards_csv, standings_csv

STATUSES: tuple[str, ...] = get_args(TournamentListStatus)


def routes(hub_key: web.AppKey[Any], storage_key: web.AppKey[Any]) -> list[web.RouteDef]:
    async def detail(request: web.Request) -> dict[str, Any] | None:
        tid = request.match_info["tournament_id"]
        found: dict[str, Any] | None = await request.app[storage_key].tournament(tid)
        if found is None or not visibility.tournament_found(found["visibility"], member=False):
            return None  # a private tournament: not found, as on the WebSocket
        director = request.app[hub_key].lobby.tournaments.directors.get(tid)
        if director is not None and not director.over:
            found["status"] = director.status()
            live = director.standings(shown=True)  # as of the rounds over (server.visibility)
            found["standings"] = [s.model_dump(mode="json") for s in live]
        return found

    async def listing(request: web.Request) -> web.Response:
        """``?limit=N&after=CURSOR&status=S``: a page, newest first (``status``: only
        those in it), and the next page's cursor."""
        try:
            limit = int(request.query.get("limit", str(PAGE_DEFAULT)))
            if not 1 <= limit <= PAGE_MAX:
                raise ValueError
        except ValueError:
            return _bad_request(f"limit: 1 to {PAGE_MAX}")
        status = request.query.get("status")
        if status is not None and status not in STATUSES:
            return _bad_request(f"status: one of {', '.join(STATUSES)}")
        try:
            rows, after = await request.app[storage_key].tournament_page(
                limit, request.query.get("after"), status
            )
        except BadCursor as exc:
            return _bad_request(str(exc))
        return web.json_response({"tournaments": rows, "next": after})

    async def one(request: web.Request) -> web.Response:
        found = await detail(request)
        if found is None:
            return _not_found()
        return web.json_response(found)

    async def export(request: web.Request) -> web.Response:
        fmt = request.query.get("format", "json")
        what = request.query.get("what", "standings")
        if fmt not in ("json", "csv") or what not in ("standings", "boards"):
            return web.json_response(
                {"error": {"code": "bad_request",
                           "reason": "format is json or csv; what is standings or boards"}},
                status=400,
            )  # fmt: skip
        found = await detail(request)
        if found is None:
            return _not_found()
        tid = found["id"]
        boards = await request.app[storage_key].tournament_boards(tid)
        if fmt == "json":
            return web.json_response({"tournament": found, "boards": boards})
        if what == "standings":
            text = standings_csv(found["standings"] or [])
        else:
            text = boards_csv(boards)
        return web.Response(
            text=text,
            content_type="text/csv",
            headers={"Content-Disposition": f'attachment; filename="{tid}-{what}.csv"'},
        )

    return [
        web.get("/api/tournaments", listing),
        web.get("/api/tournaments/{tournament_id}", one),
        web.get("/api/tournaments/{tournament_id}/export", export),
    ]


def _bad_request(reason: str) -> web.Response:
    return web.json_response({"error": {"code": "bad_request", "reason": reason}}, status=400)


def _not_found() -> web.Response:
    return web.json_response(
        {"error": {"code": "tournament_not_found", "reason": "no such tournament"}}, status=404
    )
