"""``GET /api/matches/{match_id}/analysis?player=NAME_OR_ID``: the engine's
post-game analysis of one finished board, for clients that cannot run the engine.

The same figures as ``cribsquares analyze`` (engine.analysis.analyse_game with
its default budgets and the fixed seed ``analysis``): the hindsight best board
and the expert's review of every move with its expected loss. A board takes a
few CPU-seconds, so it is computed in one worker process, never on the event
loop, and no request waits for it: the first asks for it and is answered 202
("computing", with ``Retry-After``), a later one gets it once it is done.
Answers are kept (a finished board never changes); when too many are being
computed at once the request is refused with 503 and ``Retry-After``.
Only a match whose cards the API shows is analysed (finished, and not under a
tournament round's embargo, server/visibility.py): the hidden-information rule holds.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections import OrderedDict
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor
from typing import Any

from aiohttp import web

from engine.analysis import analyse_game
from engine.cards import Card
from engine.grid import cell_name, parse_cell

log = logging.getLogger(__name__)

ANALYSIS_SEED = "analysis"  # client_cli.analysis.ANALYSIS_SEED: the same figures everywhere
KEPT = 256  # analyses kept in memory
AT_ONCE = 4  # analyses computed or waiting at once; more are refused (503)
RETRY_S = 2  # "computing": ask again this many seconds later


def analyse(cards: list[str], starter: str, cells: list[str]) -> dict[str, Any]:
    """One finished board (in a worker process): ``GameAnalysis.to_dict()``."""
    game = analyse_game(
        [Card.parse(c) for c in cards],
        Card.parse(starter),
        [parse_cell(c) for c in cells],
        seed=ANALYSIS_SEED,
    )
    found = game.to_dict()
    found["placements"] = [cell_name(parse_cell(c)) for c in cells]
    return found


class Analyst:
    """The worker process, the answers kept, and the analyses under way.

    A request never waits for the engine: the first one for a board starts its
    analysis and is answered "computing"; once it is done the answer is kept
    and every later request gets it at once.
    """

    def __init__(self, executor: Executor | None = None) -> None:
        self._executor = executor
        self._kept: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()
        self._running: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._failed: dict[tuple[str, str], str] = {}

    def _pool(self) -> Executor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        return self._executor

    def board(self, key: tuple[str, str], cards: list[str], starter: str,
              cells: list[str]) -> dict[str, Any] | str:  # fmt: skip
        """The analysis if it is done; else "computing" (started now or earlier),
        "busy" (too many under way: ask later) or "failed"."""
        if key in self._kept:
            self._kept.move_to_end(key)
            return self._kept[key]
        if key in self._failed:
            return "failed"
        if key in self._running:
            return "computing"
        if len(self._running) >= AT_ONCE:
            return "busy"
        task = asyncio.create_task(self._compute(key, cards, starter, cells))
        self._running[key] = task
        task.add_done_callback(lambda _: self._running.pop(key, None))
        return "computing"

    async def _compute(self, key: tuple[str, str], cards: list[str], starter: str,
                       cells: list[str]) -> None:  # fmt: skip
        pool = self._pool()
        loop = asyncio.get_running_loop()
        try:
            found = await loop.run_in_executor(pool, analyse, cards, starter, cells)
        except asyncio.CancelledError:
            raise
        except BrokenExecutor:
            log.warning("the analysis worker broke; starting a fresh one for the next board")
            if self._executor is pool:
                self._executor = None
                pool.shutdown(wait=False, cancel_futures=True)
            return  # not kept as failed: asked again, it is computed again
        except Exception as exc:
            log.warning("analysis of %s failed: %s", key[0], exc)
            self._failed[key] = str(exc)
            return
        self._kept[key] = found
        while len(self._kept) > KEPT:
            self._kept.popitem(last=False)

    async def close(self) -> None:
        for task in list(self._running.values()):
            task.cancel()
        await asyncio.gather(*self._running.values(), return_exceptions=True)
        if self._executor is not None:
            executor, self._executor = self._executor, None
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)


ANALYST = web.AppKey("analyst", Analyst)


def _error(status: int, code: str, reason: str, **headers: str) -> web.Response:
    return web.json_response({"error": {"code": code, "reason": reason}}, status=status,
                             headers=headers)  # fmt: skip


def routes(storage_key: web.AppKey[Any]) -> list[web.RouteDef]:
    async def analysis(request: web.Request) -> web.Response:
        match = await request.app[storage_key].match(request.match_info["match_id"])
        if match is None:
            return _error(404, "match_not_found", "no such match")
        if match["status"] != "finished" or not match.get("boards"):
            return _error(409, "match_not_finished", "a match is analysed once it is over")
        if match.get("embargoed") or match.get("seed") is None:
            # server.visibility decided, in storage: its cards are not shown yet.
            return _error(409, "match_embargoed",
                          "this deal is hidden until its tournament round is over")  # fmt: skip
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
        found = request.app[ANALYST].board(
            (match["match_id"], board["player"]["id"]),
            [p["card"] for p in placements],
            match["starter"],
            [p["cell"] for p in placements],
        )
        if found == "computing":
            return web.json_response({"status": "computing", "retry_after_s": RETRY_S},
                                     status=202, headers={"Retry-After": str(RETRY_S)})  # fmt: skip
        if found == "busy":
            return _error(503, "busy", "the server is analysing other boards; try again shortly",
                          **{"Retry-After": "5"})  # fmt: skip
        if found == "failed":
            return _error(500, "analysis_failed", "the engine could not analyse this board")
        assert isinstance(found, dict)
        return web.json_response({"match_id": match["match_id"], "player": board["player"],
                                  "rank": board["rank"], **found})  # fmt: skip

    return [web.get("/api/matches/{match_id}/analysis", analysis)]
