"""The running server's background work: the bot pool (which heals when a worker dies) and
the full garbage collection on a clock."""

from __future__ import annotations

import os
import signal
from concurrent.futures import ProcessPoolExecutor

import pytest

from server.bots import BotPool, think
from server.room import BotTurn


def turn(n: int = 1) -> BotTurn:
    return BotTurn(
        room_id="r",
        player_id="bot-greedy-1",
        strategy="greedy",
        seed=f"r/bot-greedy-1/{n}",
        turn=1,
        placements=(),
        card="5H",
    )


async def test_a_dead_worker_costs_one_fallback_move_then_a_fresh_pool_thinks() -> None:
    pool = BotPool(workers=1)
    try:
        assert await pool.move(turn()) == think(turn())
        executor = pool._executor
        assert isinstance(executor, ProcessPoolExecutor)
        for pid in list(executor._processes):  # a worker is killed, as by the OOM killer
            os.kill(pid, signal.SIGKILL)
        await pool.move(turn(2))  # the broken pool: the fallback rule places
        assert await pool.move(turn(3)) == think(turn(3))  # a new pool thinks again
        assert pool._executor is not executor
    finally:
        await pool.close()


async def test_serve_collects_garbage_on_a_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio
    import gc

    from server.shell import runtime

    calls: list[int] = []
    monkeypatch.setattr(gc, "collect", lambda: calls.append(1) or 0)
    task = asyncio.create_task(runtime._collect_every(0.01))
    await asyncio.sleep(0.1)
    task.cancel()
    assert len(calls) >= 3
