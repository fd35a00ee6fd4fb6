"""The read-only HTTP API: ``/healthz``, the public rooms, the leaderboard, the daily
deal and the history read from the store (docs/server.md); every request spends its
address's quota."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from pydantic import ValidationError

from protocol.fields import PROTOCOL_VERSION, PROTOCOLS, Pace, PlayerInfo
from protocol.head_to_head import GetLeaderboard
from protocol.rooms import ListRooms
from server import errors
from server.analysis import Asker
from server.daily import days
from server.daily.views import daily as daily_view
from server.limits import Refusal, quota_key
from server.shell import clock
from server.shell.keys import HUB, STORAGE
from server.shell.origins import client_address
from server.shell.replies import bad_request, query_int
from server.store import Store


async def healthz(request: web.Request) -> web.Response:
    """``ok``, or 503 ``storage_failing`` while the database cannot be written."""
    hub = request.app[HUB]
    failing = hub.storage.failing
    return web.json_response(
        {
            "status": "ok" if failing is None else "storage_failing",
            "protocol": PROTOCOL_VERSION,
            "protocols": list(PROTOCOLS),
            "rooms": len(hub.lobby.rooms),
            "connections": len(hub.sessions),
            "storage": failing,
        },
        status=200 if failing is None else 503,
    )


def _not_found(code: str, reason: str) -> web.Response:
    return web.json_response({"error": {"code": code, "reason": reason}}, status=404)


Handler = Callable[[web.Request], Awaitable[web.Response]]
StoredRead = Callable[[Store, str], Awaitable[dict[str, Any] | None]]


def stored(read: StoredRead, key: str, code: str, reason: str) -> Handler:
    """A handler of the history API: ``read`` the store for the path's ``key``, as JSON,
    or 404 ``code`` if it has nothing."""

    async def handler(request: web.Request) -> web.Response:
        found = await read(request.app[STORAGE], request.match_info[key])
        if found is None:
            return _not_found(code, reason)
        return web.json_response(found)

    return handler


def _series(store: Store, series_id: str) -> Awaitable[dict[str, Any] | None]:
    return store.series(series_id)


def _ratings(store: Store, who: str) -> Awaitable[dict[str, Any] | None]:
    return store.player_ratings(who)


async def _viewer(request: web.Request) -> str | web.Response | None:
    """Whom a history request was made as: the player of its ``Authorization: Bearer
    TOKEN``, None without one, or the 401 reply to a token no player has."""
    auth = request.headers.get("Authorization")
    if auth is None:
        return None
    scheme, _, token = auth.partition(" ")
    found = await request.app[HUB].player_of_token(token.strip()) if token.strip() else None
    if scheme.lower() != "bearer" or found is None:
        reason = "no player has that token: sign in again, or ask without Authorization"
        return web.json_response(
            {"error": {"code": errors.BadToken.code, "reason": reason}}, status=401
        )
    return found.id


ViewedRead = Callable[[Store, str, str | None], Awaitable[dict[str, Any] | None]]


def viewed(read: ViewedRead, key: str, code: str, reason: str) -> Handler:
    """:func:`stored` for a read that depends on who asks: ``read`` gets the viewer
    too (:func:`_viewer`; a token no player has is 401)."""

    async def handler(request: web.Request) -> web.Response:
        viewer = await _viewer(request)
        if isinstance(viewer, web.Response):
            return viewer
        found = await read(request.app[STORAGE], request.match_info[key], viewer)
        if found is None:
            return _not_found(code, reason)
        return web.json_response(found)

    return handler


def _match(store: Store, match_id: str, viewer: str | None) -> Awaitable[dict[str, Any] | None]:
    """A match as anyone may see it; asked with the token of one of its players, a
    finished deal under an embargo shows that player its table whole
    (server.visibility.public_match)."""
    return store.match(match_id, viewer=viewer)


def _player_matches(store: Store, who: str, viewer: str | None) -> Awaitable[dict[str, Any] | None]:
    """The matches anyone may list; asked with the player's own token, every match it
    sat in."""
    return store.player_matches(who, viewer=viewer)


match_history = viewed(_match, "match_id", "match_not_found", "no such match")
player_history = viewed(_player_matches, "name", "player_not_found", "no such player")


player_ratings = stored(_ratings, "name", "player_not_found", "no such player")
series_history = stored(_series, "series_id", "series_not_found", "no such series")


async def leaderboard(request: web.Request) -> web.Response:
    """``/api/leaderboard/{pace}?top=N&around=NAME&arena=1``: a ``leaderboard``'s content."""
    paces = [p.value for p in Pace]
    if request.match_info["pace"] not in paces:
        reason = f"unknown pace {request.match_info['pace']!r}: use one of {', '.join(paces)}"
        return _not_found("unknown_pace", reason)
    try:
        arena = request.query.get("arena", "0")
        if arena not in ("0", "1"):
            raise ValueError("arena is 0 or 1")
        asked = GetLeaderboard(
            pace=Pace(request.match_info["pace"]),
            top=int(request.query.get("top", "20")),
            around=request.query.get("around"),
            arena=arena == "1",
        )
    except ValueError as exc:
        return bad_request(str(exc).splitlines()[0])
    nobody = PlayerInfo(id="", name="")
    try:
        board = request.app[HUB].lobby.leaderboard(nobody, asked)
    except errors.PlayerNotFound as exc:
        return _not_found(exc.code, exc.reason)
    return web.json_response(board.model_dump(mode="json", exclude={"type", "ref"}))


DAILY_TOP = 100  # rows of the standings /api/daily lists unless ?top=N says fewer


async def daily(request: web.Request) -> web.Response:
    """``/api/daily?top=N`` and ``/api/daily/{day}?top=N``: the ``daily`` message of
    today or of any stored day, for anyone (without ``you``), read from the store:
    acknowledged means stored, so the live standings are there as soon as the desk's."""
    top = query_int(request, "top", DAILY_TOP, DAILY_TOP)
    if top is None:
        return bad_request(f"top: 1 to {DAILY_TOP}")
    desk = request.app[HUB].lobby.daily
    now = clock.now_ms()
    today = desk.today(now)
    try:
        day = days.asked(request.match_info.get("day"), today)
    except ValueError as exc:
        return _not_found(errors.DailyNotFound.code, f"no daily deal on that day: {exc}")
    facts = await request.app[STORAGE].daily_day(day, today)
    if facts.commitment is None and not facts.attempts:
        return _not_found(errors.DailyNotFound.code, days.no_deal(day))
    view = daily_view(facts, top=top, now_ms=desk.calendar(now))
    return web.json_response(view.model_dump(mode="json", exclude={"type", "ref", "you"}))


def page_query(request: web.Request) -> dict[str, Any]:
    """``?limit=N&after=CURSOR`` of a listing, as the fields of its message (a limit
    that is not a whole number stays text, which the message refuses)."""
    fields: dict[str, Any] = {}
    if "limit" in request.query:
        text = request.query["limit"]
        fields["limit"] = int(text) if text.lstrip("-").isdigit() else text
    if "after" in request.query:
        fields["after"] = request.query["after"]
    return fields


async def public_rooms(request: web.Request) -> web.Response:
    """``/api/rooms?limit=N&after=CURSOR``: a page of the ``rooms`` message."""
    try:
        asked = ListRooms.model_validate(page_query(request))
        page = request.app[HUB].lobby.list_rooms(asked)
    except ValidationError as exc:
        return bad_request(exc.errors()[0]["msg"] + " (limit: 1 to 100)")
    except errors.RoomError as exc:
        return bad_request(exc.reason)
    return web.json_response(page.model_dump(mode="json", exclude={"type", "ref"}))


def request_address(request: web.Request) -> str:
    """The address an HTTP request's quotas are kept under (behind a trusted proxy,
    the client's; an IPv6 address's /64)."""
    config = request.app[HUB].config
    return quota_key(client_address(request.remote, request.headers, config.trusted_proxies))


async def analysis_asker(request: web.Request) -> Asker:
    """Who asks for an analysis (server.analysis): its address, the player its
    ``Authorization: Bearer TOKEN`` names (a token that names nobody is no one's),
    and the spending of one analysis of their quotas."""
    hub = request.app[HUB]
    address = request_address(request)
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    account = None
    if scheme.lower() == "bearer" and token.strip():
        found = await hub.token_player(token.strip())
        account = found.id if found is not None else None
    return Asker(address, account,
                 lambda: hub.quotas.take("analysis", address, account, clock.now_ms()))  # fmt: skip


@web.middleware
async def http_quota(request: web.Request, handler: Any) -> web.StreamResponse:
    """Every HTTP request (a WebSocket upgrade too) spends its address's quota, and an
    answer of the JSON API is paid for by its size from the address's budget of
    bytes read (refused while overspent); over either: 429."""
    hub = request.app[HUB]
    address = request_address(request)
    api = request.path.startswith("/api/")
    refused = hub.quotas.take("http", address, None, clock.now_ms())
    if refused is None and api:
        refused = hub.quotas.owed("read", address, None, clock.now_ms())
    if refused is not None:
        return _too_many(refused)
    response: web.StreamResponse = await handler(request)
    if api and isinstance(response, web.Response) and isinstance(response.body, bytes):
        # Looked at again once the answer is ready: the address's other requests
        # may have overspent the budget meanwhile (checked and paid at once).
        refused = hub.quotas.owed("read", address, None, clock.now_ms())
        if refused is not None:
            return _too_many(refused)
        hub.quotas.spend("read", address, None, len(response.body), clock.now_ms())
    return response


def _too_many(refused: Refusal) -> web.Response:
    return web.json_response(
        {"error": {"code": errors.RateLimited.code, "reason": refused.reason}},
        status=429,
        headers={"Retry-After": str(refused.wait_s)},
    )


async def api_headers(request: web.Request, response: web.StreamResponse) -> None:
    """Every answer but the web client's files and the WebSocket upgrade (the JSON API,
    ``/healthz``, the errors and 404s of any path) is never sniffed as another type
    and never cached: it says what is true now. The page and its assets keep the
    headers server.shell.web gives them."""
    if isinstance(response, web.WebSocketResponse) or "Cache-Control" in response.headers:
        return
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers["Cache-Control"] = "no-store"
