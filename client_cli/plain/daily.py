"""The ``--plain`` commands of the daily deal: look at a day, play today's, analyse
yesterday's against the field."""

from __future__ import annotations

import asyncio
import time

from client_cli import daily as dd
from client_cli.analysis import analyse
from client_cli.plain.base import PlainBase
from client_cli.plain.words import _daily_parser, _first_error
from client_cli.session import SessionError
from engine.errors import EngineError
from protocol.daily import Daily, GetDaily, PlayDaily
from protocol.fields import Pace
from protocol.rooms import RoomStatus


class DailyCommands:
    def __init__(self, base: PlainBase) -> None:
        self.base = base  # the model, the session, printing and the shared helpers

    async def cmd_daily(self, args: list[str]) -> None:
        plain = self.base
        opts = _daily_parser().parse_args(args)
        what = opts.what
        if what == "play":
            await self._play_daily(opts.pace, opts.clock)
            return
        view = await self._ask_daily(opts.day, opts.top)
        if what == "schedule":
            for line in dd.schedule_lines(view):
                plain.say(line.plain.rstrip())
            return
        for line in dd.head_lines(view, view.left_ms, "daily play"):
            plain.say(line.plain.rstrip())
        me = plain.model.me.id if plain.model.me else None
        if view.standings:
            for row in dd.standings_text(view, me):
                plain.say(row)
        if view.deal is None:
            if view.status == "open":
                plain.say("no cards are shown until the day is over (midnight UTC)")
            return
        plain.say(dd.cards_line(view.deal.cards, view.deal.starter, glyphs=False).plain)
        for check in dd.verify_lines(view, plain.model.daily_commitments):
            plain.say(check.replace("✔", "ok:").replace("✖", "FAILED:"))
        analysis = None
        if what == "analyze":
            try:
                board = dd.board_input(view)
            except EngineError as exc:
                raise SessionError(f"cannot analyse: {exc}") from None
            if board is None:
                raise SessionError(f"you did not play the deal of {view.day}")
            plain.say("analysing your board...")
            analysis = await asyncio.to_thread(analyse, board)
        for line in dd.field_lines(view, analysis, glyphs=False):
            plain.say(line.plain.rstrip())

    async def _ask_daily(self, day: str | None, top: int) -> Daily:
        plain = self.base
        if day == "yesterday":
            today = await self._ask_daily(None, 1)
            day = dd.yesterday_of(today.today)
        try:
            msg = GetDaily(day=day, top=top)
        except ValueError as exc:
            raise SessionError(f"daily: {_first_error(exc)}") from None
        reply = await plain.request(msg)
        if not isinstance(reply, Daily):
            raise SessionError(f"unexpected reply {reply.type}")
        return reply

    async def _play_daily(self, pace: str, clock: int | None) -> None:
        plain = self.base
        if plain.model.room is not None and plain.model.room.status != RoomStatus.FINISHED:
            raise SessionError("leave this room first (leave)")
        if plain.model.room is not None:
            plain.model.forget_room()
        race = pace == "race"
        seconds = clock if clock is not None else (300 if race else 30)
        terms = {"deal_clock_ms" if race else "card_clock_ms": seconds * 1000}
        try:
            msg = PlayDaily(pace=Pace(pace), **terms)  # type: ignore[arg-type]
        except ValueError as exc:
            raise SessionError(f"daily play: {_first_error(exc)}") from None
        started = time.monotonic()
        await plain.request(msg)
        await plain.until(lambda: plain.model.match is not None, 5)
        if plain.model.match is None and time.monotonic() - started >= 5:
            plain.say("the attempt has not started yet")
