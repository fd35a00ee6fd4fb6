"""Read-only HTTP for the daily deal: ``/api/daily`` (today) and ``/api/daily/{day}``.

Both read the database (acknowledged means stored: the live standings are there
as soon as the desk's), and show what :mod:`server.daily.views` makes of it: the
``daily`` message's content for anyone, without ``you``. ``?top=N`` (1 to 100,
default 100) is how many rows of the standings are listed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiohttp import web

from server.daily import days
from server.daily.views import daily

TOP_DEFAULT = 100


def routes(
    hub_key: web.AppKey[Any], storage_key: web.AppKey[Any], clock: Callable[[], int]
) -> list[web.RouteDef]:
    async def show(request: web.Request, day_text: str | None) -> web.Response:
        try:
            top = int(request.query.get("top", str(TOP_DEFAULT)))
            if not 1 <= top <= 100:
                raise ValueError
        except ValueError:
            return _error(400, "bad_request", "top: 1 to 100")
        desk = request.app[hub_key].lobby.daily
        today = desk.today(clock())
        day = today
        if day_text is not None:
            try:
                day = days.parse_day(day_text)
            except ValueError as exc:
                return _error(404, "daily_not_found", str(exc))
        if day > today + days.AHEAD:
            reason = f"{days.day_name(day)} is more than {days.AHEAD} days ahead: not drawn yet"
            return _error(404, "daily_not_found", reason)
        facts = await request.app[storage_key].daily_day(day, today)
        if facts.commitment is None and not facts.attempts:
            return _error(404, "daily_not_found", f"no daily deal on {days.day_name(day)}")
        view = daily(facts, top=top, now_ms=desk.calendar(clock()))
        return web.json_response(view.model_dump(mode="json", exclude={"type", "ref", "you"}))

    async def today(request: web.Request) -> web.Response:
        return await show(request, None)

    async def one(request: web.Request) -> web.Response:
        return await show(request, request.match_info["day"])

    return [web.get("/api/daily", today), web.get("/api/daily/{day}", one)]


def _error(status: int, code: str, reason: str) -> web.Response:
    return web.json_response({"error": {"code": code, "reason": reason}}, status=status)
