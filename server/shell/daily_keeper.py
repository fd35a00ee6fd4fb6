"""The daily deal's schedule kept ahead: each day's secret drawn and stored a week early.

The shell's part of the daily deal (it awaits the store and reads the clock; the
desk, server.daily.desk, does neither): at start, the desk is loaded with what
the store holds; then, at start and every ``DRAW_EVERY_S``, every day from
today to ``AHEAD`` days on that has no stored secret gets fresh randomness
(``secrets.token_hex(32)``), stored once and never replaced; only then does the
desk learn of it, so that no commitment is published before its secret is
stored (docs/daily.md). A restart keeps the schedule: it is read back, not drawn
again.
"""

from __future__ import annotations

import asyncio
import logging
import secrets

from server.daily import days
from server.daily.desk import DailyDesk
from server.records import Draw
from server.shell import clock
from server.store import Store

log = logging.getLogger(__name__)

DRAW_EVERY_S = 60.0


async def load(storage: Store, desk: DailyDesk, now_ms: int) -> None:
    """At start: the secrets, lifted days, attempts and streaks storage holds."""
    state = await storage.daily_state(desk.today(now_ms))
    desk.load_secrets(state.secrets, state.lifted)
    desk.load_attempts(state.attempts, state.played)


async def reload(storage: Store, desk: DailyDesk, now_ms: int) -> None:
    """On a cluster node taking the coordinator's work over: the desk read again from
    storage (what the previous coordinator's desk decided is stored), replacing what it
    knew; it answers from now on (server.daily.desk.DailyDesk.reload)."""
    state = await storage.daily_state(desk.today(now_ms))
    desk.reload(state.secrets, state.lifted, state.attempts, state.played)


async def draw_ahead(storage: Store, desk: DailyDesk, now_ms: int) -> int:
    """Draw and store a secret for each day of the window without one; the desk
    then loads what is stored. Returns how many were drawn."""
    today = desk.today(now_ms)
    todo = days.missing(today, set(desk.secrets))
    if todo:
        drawn = tuple((d, secrets.token_hex(32)) for d in todo)
        await storage.draw_daily(Draw(drawn, now_ms))
    stored, lifted = await storage.daily_secrets(today - 1)
    desk.load_secrets(stored, lifted)
    return len(todo)


async def keep_forever(storage: Store, desk: DailyDesk, every_s: float = DRAW_EVERY_S) -> None:
    """Every ``every_s``: what :func:`draw_ahead` draws as the days go by."""
    while True:
        await asyncio.sleep(every_s)
        try:
            drawn = await draw_ahead(storage, desk, clock.now_ms())
            if drawn:
                log.info("daily deal: %d secrets drawn ahead", drawn)
        except Exception:
            log.exception("daily deal: drawing the secrets ahead failed")
