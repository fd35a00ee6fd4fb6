"""The ``--plain`` commands of rooms and matches: list, create, join, leave, ready,
start, bots, place, board, who, wait, and the history, replays and analysis."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from client_cli import analysis as ana
from client_cli import history as hist
from client_cli.model.text import series_text
from client_cli.plain.base import PlainBase
from client_cli.plain.words import (
    ROOM_WAIT_S,
    TOURNAMENT_WAIT_S,
    _create_parser,
    _first_error,
)
from client_cli.render import board_lines, clock_text
from client_cli.session import (
    SessionError,
    add_bot,
    start_vs_bot,
)
from engine import parse_cell
from engine.errors import EngineError
from protocol.deals import Place
from protocol.fields import Pace, Visibility
from protocol.rooms import CreateRoom, LeaveRoom, ListRooms, Ready, Rooms, RoomStatus, StartMatch


class RoomCommands(PlainBase):
    async def cmd_rooms(self, args: list[str]) -> None:
        if args not in ([], ["more"]):
            raise SessionError("usage: rooms [more]")
        after = self._rooms_next if args == ["more"] else None
        if args and after is None:
            raise SessionError("no more rooms: that was the last page")
        reply = await self.request(ListRooms(after=after))
        rooms = reply.rooms if isinstance(reply, Rooms) else self.model.rooms
        self._rooms_next = reply.next if isinstance(reply, Rooms) else None
        if not rooms:
            self.say("no open rooms: create one with: create NAME")
        for r in rooms:
            clock = (
                f"{r.card_clock_ms // 1000}s/card"
                if r.pace == Pace.LOCKSTEP
                else f"{r.deal_clock_ms // 1000}s/deal"
            )
            self.say(
                f"room {r.id}: {r.name}, {r.taken}/{r.seats} seated, {r.pace.value} "
                f"{clock}, {r.status.value}, by {r.creator.name}"
            )
        if isinstance(reply, Rooms) and reply.next is not None:
            self.say(f"{len(rooms)} of {reply.total} open rooms: 'rooms more' for the next ones")

    async def cmd_create(self, args: list[str]) -> None:
        opts = _create_parser().parse_args(args)
        self._not_playing("create another")
        fields: dict[str, Any] = {
            "name": " ".join(opts.name),
            "seats": opts.seats,
            "pace": Pace(opts.pace),
            "visibility": Visibility.PRIVATE if opts.private else Visibility.PUBLIC,
            "contribution": self._contribution(),
        }
        if opts.clock is not None:
            fields["card_clock_ms"] = opts.clock * 1000
        if opts.deal_clock is not None:
            fields["deal_clock_ms"] = opts.deal_clock * 1000
        fields["deals"], fields["rated"] = opts.best_of, opts.rated
        try:
            msg = CreateRoom(**fields)
        except ValueError as exc:
            raise SessionError(f"create: {_first_error(exc)}") from None
        await self.request(msg)
        await self.until(lambda: self.model.room is not None, 5)

    async def cmd_join(self, args: list[str]) -> None:
        if len(args) != 1:
            raise SessionError("usage: join ID|CODE")
        self._not_playing("join another room")
        await self._enter_room(args[0], spectate=False)
        await self.until(lambda: self.model.room is not None, 5)

    async def cmd_leave(self, args: list[str]) -> None:
        """Leave the room; during a match (or a series under way) only when asked twice."""
        room = self.model.room
        if room is None:
            raise SessionError("you are not in a room")
        what = self.model.leaving_forfeits()
        if what is not None and self.confirming != room.id:
            self.confirming = room.id
            self.say(
                f"leaving now forfeits {what}: it counts as a loss and the server plays your "
                "cards. Type leave (or resign) again to confirm; anything else stays."
            )
            return
        self.confirming = None
        if room.status == RoomStatus.FINISHED:
            # Over for good: the server may already have forgotten the room.
            self.model.forget_room()
            self.say(f"left room {room.name}")
            with contextlib.suppress(SessionError):
                await self.session.request(LeaveRoom(room_id=room.id), timeout=2)
            return
        await self.request(LeaveRoom(room_id=room.id))

    async def cmd_ready(self, args: list[str]) -> None:
        await self.request(Ready(room_id=self._room(), ready=True))

    async def cmd_unready(self, args: list[str]) -> None:
        await self.request(Ready(room_id=self._room(), ready=False))

    async def cmd_start(self, args: list[str]) -> None:
        await self.request(StartMatch(room_id=self._room()))
        await self.until(lambda: self.model.match is not None, 5)

    async def cmd_bot(self, args: list[str]) -> None:
        if args:
            await self._announce(args[0], "adding a bot of")
        self.verbose_bot = bool(args)  # quiet while trying the strongest bot first
        try:
            await add_bot(self.session, self._room(), args[0] if args else None)
        finally:
            self.verbose_bot = True

    async def cmd_vsbot(self, args: list[str]) -> None:
        if len(args) > 1:
            raise SessionError("usage: vsbot [LEVEL]")
        if self.model.room is not None and self.model.room.status != RoomStatus.FINISHED:
            raise SessionError("leave this room first (leave)")
        if self.model.room is not None:
            self.model.forget_room()
        me = self.model.me.name if self.model.me else "you"
        if args:
            await self._announce(args[0], "playing a bot of")
        self.verbose_bot = bool(args)
        try:
            await start_vs_bot(self.session, me, self._contribution(), args[0] if args else None)
        finally:
            self.verbose_bot = True
        await self.until(lambda: self.model.match is not None, 5)

    async def cmd_place(self, args: list[str]) -> None:
        if len(args) != 1:
            raise SessionError("usage: place CELL (like b3)")
        cell = args[0].strip().lower()
        if self.model.room is None and self.model.queue is not None:
            # Quick play: the first placement waits for the opponent, then its card.
            await self.until(lambda: self.model.room is not None or self.model.queue is None, 600)
        if self.model.room is None and (tid := self._awaited_tournament()) is not None:
            # A tournament: the first placement waits for the round to seat us.
            await self._wait_for_table(tid, TOURNAMENT_WAIT_S)
        room = self._room()
        done = self._next_deal_after()

        def card_waiting() -> bool:
            m = self.model.match
            if m is None or (done is not None and m.match_id == done):
                return False
            return m.card is not None or m.result is not None

        # A script may send its placement before the card arrives: wait for it.
        m = self.model.match
        wait = ROOM_WAIT_S
        if m is not None:
            wait = max(m.card_clock_ms, m.deal_clock_ms, 1000) / 1000 + 5
        if not await self.until(card_waiting, wait):
            raise SessionError("no card to place: no match is running")
        reason = self.model.why_not(cell)
        if reason is not None:
            self.say(f"refused: {reason}")
            return
        match = self.model.match
        assert match is not None and match.turn is not None
        await self.request(Place(room_id=room, turn=match.turn, cell=cell))

    async def cmd_board(self, args: list[str]) -> None:
        match = self.model.match
        if match is None:
            raise SessionError("no match yet")
        marks = [parse_cell(c) for c in match.legal]
        for line in board_lines(match.cells, None, glyphs=False, marks=marks):
            self.say(line.plain)
        if match.card:
            left = match.clock.left_ms(time.monotonic()) if match.clock else None
            self.say(
                f"card {match.turn}/16: {match.card}, {clock_text(left)} left; "
                f"legal: {' '.join(match.legal)}"
            )

    async def cmd_who(self, args: list[str]) -> None:
        room = self.model.room
        if room is None:
            raise SessionError("you are not in a room")
        code = f", invite code {room.invite_code}" if room.invite_code else ""
        self.say(
            f"room {room.name} ({room.id}){code}: {room.status.value}, "
            f"{len(room.players)}/{room.seats} seated"
        )
        if self.model.series is not None and self.model.series.best_of > 1:
            self.say(
                series_text(
                    self.model.series, self.model.me, self.model.next_in_ms(time.monotonic())
                )
            )
        for row in self.model.progress_rows(time.monotonic()):
            you = " (you)" if row.me else ""
            bot = " [bot]" if row.player.bot else ""
            clock = ""
            if row.used_ms is not None:
                clock = f", {clock_text(row.used_ms)} used"
            elif row.clock_ms is not None:
                clock = f", {clock_text(row.clock_ms)} left on the deal clock"
            self.say(f"  {row.player.name}{bot}{you}: {row.state}, {row.placed}/16 placed{clock}")

    async def cmd_wait(self, args: list[str]) -> None:
        match = self.model.match
        if self._next_deal_after() is not None:
            assert match is not None
            done = match.match_id
            ok = await self.until(
                lambda: (
                    self.model.match is None
                    or self.model.match.match_id != done
                    or self._next_deal_after() is None
                ),
                600,
            )
            if not ok:
                self.say("still waiting: giving up")
            return
        if self.model.room is None and (self.model.queue is not None or self.model.challenges):
            ok = await self.until(
                lambda: (
                    self.model.match is not None
                    or (self.model.queue is None and not self.model.challenges)
                ),
                600,
            )
            if not ok:
                self.say("still waiting: giving up")
            return
        if self.model.room is None and (tid := self._awaited_tournament()) is not None:
            if not await self._wait_for_table(tid, TOURNAMENT_WAIT_S):
                self.say("still waiting: giving up")
            return
        table = self._tournament_of_table()
        if match is not None and match.result is None:
            limit = 16 * max(match.card_clock_ms, 1000) / 1000 + max(match.deal_clock_ms, 0) / 1000
            ok = await self.until(
                lambda: self.model.match is None or self.model.match.result is not None, limit + 30
            )
            if ok and table is not None:  # after a deal at a tournament's table: the next round
                ok = await self._wait_for_table(table, TOURNAMENT_WAIT_S)
        elif match is not None and table is not None:
            ok = await self._wait_for_table(table, TOURNAMENT_WAIT_S)
        elif match is not None:
            self.say("the match is over")
            return
        elif self.model.room is None:
            raise SessionError("you are not in a room: nothing to wait for")
        else:
            ok = await self.until(lambda: self.model.match is not None, 600)
        if not ok:
            self.say("still waiting: giving up")

    def _tournament_of_table(self) -> str | None:
        """The tournament (not over, this player still in it) whose table this room is."""
        room = self.model.room
        if room is None or room.origin != "tournament":
            return None
        return self._awaited_tournament()

    async def cmd_history(self, args: list[str]) -> None:
        for line in await hist.history_lines(self.session, self.model):
            self.say(line)

    async def cmd_replay(self, args: list[str]) -> None:
        if len(args) != 1:
            raise SessionError("usage: replay MATCH_ID")
        for line in await hist.replay_lines(self.session, args[0]):
            self.say(line)

    async def cmd_analyze(self, args: list[str]) -> None:
        if len(args) > 1:
            raise SessionError("usage: analyze [MATCH_ID]")
        if args:
            replay = await hist.fetch_replay(self.session, args[0])
            match_id, starter, boards = replay.match_id, replay.starter, replay.boards
        else:
            match = self.model.match
            if match is None or match.result is None:
                raise SessionError("no finished match here: analyze MATCH_ID (see history)")
            result = match.result
            match_id, starter, boards = result.match_id, result.starter, tuple(result.boards)
        me = self.model.me.id if self.model.me else None
        board = ana.board_of(boards, me)
        if board is None:
            raise SessionError(f"match {match_id} has no board to analyse")
        self.say(f"analysing the board of {board.player.name} in match {match_id}...")
        try:
            # CPU-bound for a second or two: off the loop, so the connection stays alive.
            found = await asyncio.to_thread(ana.analyse, ana.board_from_result(board, starter))
        except EngineError as exc:
            raise SessionError(str(exc)) from None
        for line in ana.analysis_lines(found, glyphs=False):
            self.say(line.plain.rstrip())
