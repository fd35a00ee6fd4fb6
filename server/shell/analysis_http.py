"""``/api/matches/{match_id}/analysis``: a finished board's review over HTTP, computed
by the analysis worker (server.analysis) for whoever may ask (the shell's quotas)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from server.analysis import PER_ASKER, RETRY_S, Analyst, Asker

ANALYST = web.AppKey("analyst", Analyst)


def _error(status: int, code: str, reason: str, **headers: str) -> web.Response:
    return web.json_response({"error": {"code": code, "reason": reason}}, status=status,
                             headers=headers)  # fmt: skip


def routes(
    storage_key: web.AppKey[Any], asker: Callable[[web.Request], Awaitable[Asker]]
) -> list[web.RouteDef]:
    """The route; ``asker`` finds out who asks (the shell's: address, token, quotas)."""

    async def analysis(request: web.Request) -> web.Response:
        match = await request.app[storage_key].match(request.match_info["match_id"])
        if match is None:
            return _error(404, "match_not_found", "no such match")
        if match["status"] != "finished" or not match.get("boards"):
            return _error(409, "match_not_finished", "a match is analysed once it is over")
        if match.get("embargoed") or match.get("seed") is None:
            # server.visibility decided, in storage: its cards are not shown yet.
            return _error(409, "match_embargoed",
                          "this deal is hidden until its embargo is lifted: its tournament"
                          " round, or its day of the daily deal, is not over")  # fmt: skip
        who = request.query.get("player")
        boards = sorted(match["boards"], key=lambda b: (b["rank"], b["seat"]))
        if who is not None:
            want = who.casefold()
            boards = [b for b in boards if want in (b["player"]["id"].casefold(),
                                                    b["player"]["name"].casefold())]  # fmt: skip
            if not boards:
                return _error(404, "player_not_found", f"{who} has no board in this match")
        board = boards[0]
        placements = sorted(board["placements"], key=lambda p: p["turn"])
        if [p["turn"] for p in placements] != list(range(1, 17)):
            return _error(409, "match_not_finished", "this board does not have its 16 placements")
        analyst = request.app[ANALYST]
        key = (match["match_id"], board["player"]["id"])
        found = analyst.found(key)
        own_token = found == "computing" and request.headers.get("Authorization")
        if own_token and (await asker(request)).account == board["player"]["id"]:
            analyst.promote(key)
        if found is None:
            asking = await asker(request)
            own = asking.account == board["player"]["id"]
            whose = f"account:{asking.account}" if own else f"address:{asking.address}"
            address = f"address:{asking.address}" if own else None
            refused = analyst.refusal(whose, own, address)
            if refused == "limited":
                return _error(429, "rate_limited",
                              f"{PER_ASKER} analyses are under way for you or your address:"
                              " ask again once one is done",
                              **{"Retry-After": str(RETRY_S)})  # fmt: skip
            if refused == "busy":
                return _error(503, "busy",
                              "the server is analysing too many boards; try again shortly",
                              **{"Retry-After": "5"})  # fmt: skip
            quota = asking.spend()
            if quota is not None:
                return _error(429, "rate_limited", quota.reason,
                              **{"Retry-After": str(quota.wait_s)})  # fmt: skip
            analyst.start(key, [p["card"] for p in placements], match["starter"],
                          [p["cell"] for p in placements], asker=whose, own=own,
                          address=address)  # fmt: skip
            found = "computing"
        if found == "computing":
            return web.json_response({"status": "computing", "retry_after_s": RETRY_S},
                                     status=202, headers={"Retry-After": str(RETRY_S)})  # fmt: skip
        if found == "failed":
            return _error(500, "analysis_failed", "the engine could not analyse this board")
        assert isinstance(found, dict)
        return web.json_response({"match_id": match["match_id"], "player": board["player"],
                                  "rank": board["rank"], **found})  # fmt: skip

    return [web.get("/api/matches/{match_id}/analysis", analysis)]
