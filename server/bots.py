"""Server-side bot seats: a level name becomes a cell chooser, and the pool that runs it.

The bots are the engine's ladder (``engine.bots.LEVELS``: ``level-1`` ..
``level-8``, and ``random``, ``greedy``, ``expert`` naming levels 1, 5 and 7),
each playing its level's own budget with the style its seed gives it;
``fallback`` — the server's auto-placement rule — is always available. A bot
that fails places by the fallback rule rather than stall the match.
:func:`bot_levels` describes the ladder for clients (the ``bots`` message).

The running server never thinks on its event loop: its rooms ask for a bot's
move (:class:`server.room.BotTurn`), :class:`BotPool` computes it with
:func:`think` in a small pool of worker processes, and the answer goes back to
the room as the bot seat's placement. Which move a free worker takes next is
decided by :mod:`server.bot_queue`: a person's game first, fair per owner and
per room, each owner's bots within a CPU budget. A bot too slow for the card
clock is placed for by the clock, like a person. Rooms driven directly (tests) may still
call :func:`bot_factory`'s choosers in place; both make the same move, a pure
function of the seat's seed and the position.

The workers die with the server however it dies, SIGKILL included
(:func:`die_with_parent`): on Linux the kernel kills them when the server's
process ends (``prctl(PR_SET_PDEATHSIG)``), and everywhere a thread in each
worker ends it once its parent is gone. multiprocessing's resource tracker,
which the workers hold open, then ends too.
"""

from __future__ import annotations

import asyncio
import ctypes
import functools
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor
from dataclasses import replace
from typing import Any

from engine.cards import Card
from engine.grid import Grid
from protocol.head_to_head import BotLevel
from server.bot_queue import FairQueue
from server.fallback import CellChooser, fallback_cell
from server.room import BotTurn

log = logging.getLogger(__name__)

BOT_WORKERS = 2  # processes thinking for every bot seat of the server


def _engine_levels() -> Any:
    try:
        from engine.bots import levels
    except Exception:
        return None
    return levels


def strategy_names() -> list[str]:
    """Every name a server bot answers to: the levels, their aliases and ``fallback``."""
    levels = _engine_levels()
    return ["fallback", *(levels.level_names() if levels is not None else [])]


def bot_levels() -> list[BotLevel]:
    """The ladder as clients see it: each level, its aliases and its measured rating."""
    levels = _engine_levels()
    if levels is None:
        return []
    ratings = levels.level_ratings()
    out: list[BotLevel] = []
    for lv in levels.LEVELS:
        rated = ratings.get(lv.name)
        out.append(
            BotLevel(
                name=lv.name,
                level=lv.number,
                title=lv.title,
                description=lv.describe(),
                aliases=[a for a, target in levels.ALIASES.items() if target == lv.name],
                rating=round(rated.rating) if rated is not None else None,
                deviation=round(rated.deviation) if rated is not None else None,
            )
        )
    return out


def bot_factory(strategy: str, seed: str) -> CellChooser:
    """The cell chooser of ``strategy`` seeded with ``seed``; KeyError if no bot plays it."""
    if strategy == "fallback":
        return fallback_cell
    levels = _engine_levels()
    if levels is None:
        raise KeyError(strategy)
    try:
        bot = levels.make_bot(strategy, seed)
    except ValueError:
        raise KeyError(strategy) from None
    from engine.bots import BotView

    def choose(grid: Grid, card: Card) -> int:
        try:
            return int(bot.choose(BotView.from_grid(grid, card)))
        except Exception:
            log.exception("bot %s failed; placing by the fallback rule", strategy)
            return fallback_cell(grid, card)

    return choose


def grid_of(turn: BotTurn) -> Grid:
    return Grid.replay((cell, Card.parse(card)) for cell, card in turn.placements)


def think(turn: BotTurn) -> int:
    """The cell ``turn.strategy`` chooses (in a worker process): seeded per seat."""
    return bot_factory(turn.strategy, turn.seed)(grid_of(turn), Card.parse(turn.card))


def think_timed(turn: BotTurn) -> tuple[int, float]:
    """:func:`think`, and the CPU-seconds it took (in a worker process: its owner pays)."""
    started = time.process_time()
    cell = think(turn)
    return cell, time.process_time() - started


PR_SET_PDEATHSIG = 1  # linux/prctl.h
PARENT_CHECK_S = 1.0  # how often a worker looks for its parent where no signal tells it


def die_with_parent(parent: int) -> None:
    """Worker initializer: end this process when ``parent`` (the server) ends.

    Linux delivers SIGKILL to the worker the moment its parent dies; on every
    platform a daemon thread also polls the parent id, which changes when the
    worker is orphaned. If the parent died before this ran, the worker leaves now.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the polling thread below still covers it
    if os.getppid() != parent:
        os._exit(0)
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch", daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_S)
    os._exit(0)


class BotPool:
    """Bot moves computed off the event loop, in at most ``workers`` processes.

    The processes start on the first move asked for. At most two moves per
    worker are handed to the pool at once, of which one per worker in a room
    of bots alone; the others wait in a
    :class:`~server.bot_queue.FairQueue` (``budget_s``: CPU-seconds a minute per
    owner, 0 for none). ``wanted`` (set by the hub) says whether a queued move
    is still waited for when its worker comes free: one the clock placed first,
    or whose room is gone, is never computed.
    """

    def __init__(
        self,
        workers: int = BOT_WORKERS,
        executor: Executor | None = None,
        *,
        budget_s: float = 0.0,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.workers = workers
        self._executor = executor
        self._slots = 2 * workers
        self._busy = 0
        self._bots_busy = 0  # of which moves in rooms of bots alone
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        self._now = now
        self.queue: FairQueue[tuple[BotTurn, asyncio.Future[int | None]]] = FairQueue(budget_s)
        self.wanted: Callable[[BotTurn], bool] = lambda turn: True

    def _pool(self) -> Executor:
        if self._executor is None:
            # spawn: the server has threads (the database's), which fork would copy badly.
            self._executor = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=die_with_parent,
                initargs=(os.getpid(),),
            )
        return self._executor

    async def move(self, turn: BotTurn) -> int | None:
        """The cell for ``turn``; the fallback rule's if the pool fails or the bot's
        owner is over budget; None if the move was no longer wanted."""
        answer: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self.queue.push((turn, answer), owner=turn.owner or turn.room_id, room=turn.room_id,
                        person=turn.person, now_s=self._now())  # fmt: skip
        self._dispatch()
        return await answer

    def _dispatch(self) -> None:
        while self._busy < self._slots and not self._closed:
            # Moves of bots alone hold at most one slot per worker: a person's move
            # waits for at most the one move each worker is making.
            found = self.queue.pop(self._now(), bots=self._bots_busy < self.workers)
            if found is None:
                return
            (turn, answer), over, person = found
            if answer.done():  # its task was cancelled (the server stops)
                continue
            if not self.wanted(turn):
                answer.set_result(None)
                continue
            if over:
                turn = replace(turn, strategy="fallback")
            self._busy += 1
            self._bots_busy += not person
            task = asyncio.create_task(self._think(turn, answer))
            self._tasks.add(task)
            task.add_done_callback(functools.partial(self._done, person))

    def _done(self, person: bool, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._busy -= 1
        self._bots_busy -= not person
        self._dispatch()

    async def _think(self, turn: BotTurn, answer: asyncio.Future[int | None]) -> None:
        try:
            cell, cpu_s = await self._compute(turn)
        except asyncio.CancelledError:
            answer.cancel()
            raise
        self.queue.charge(turn.owner or turn.room_id, cpu_s, self._now())
        if not answer.done():
            answer.set_result(cell)

    async def _compute(self, turn: BotTurn) -> tuple[int, float]:
        loop = asyncio.get_running_loop()
        pool = self._pool()
        try:
            return await loop.run_in_executor(pool, think_timed, turn)
        except asyncio.CancelledError:
            raise
        except BrokenExecutor:
            # A worker died (killed, out of memory): start a fresh pool for the next move.
            log.warning("the bot pool broke; placing by the fallback rule and starting anew")
            if self._executor is pool:
                self._executor = None
                pool.shutdown(wait=False, cancel_futures=True)
        except Exception:
            log.exception("bot %s could not think; placing by the fallback rule", turn.strategy)
        return fallback_cell(grid_of(turn), Card.parse(turn.card)), 0.0

    async def close(self) -> None:
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._executor is not None:
            executor, self._executor = self._executor, None
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
