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


class RoomCommands:
    def __init__(self, base: PlainBase) -> None:
        self.base = base  # the model, the session, printing and the shared helpers

    async def cmd_rooms(self, args: list[str]) -> None:
        plain = self.base
        if args not in ([], ["more"]):
            raise SessionError("usage: rooms [more]")
        after = plain.rooms_next if args == ["more"] else None
        if args and after is None:
            raise SessionError("no more rooms: that was the last page")
        reply = await plain.request(ListRooms(after=after))
        rooms = reply.rooms if isinstance(reply, Rooms) else plain.model.rooms
        plain.rooms_next = reply.next if isinstance(reply, Rooms) else None
        if not rooms:
            plain.say("no open rooms: create one with: create NAME")
        for r in rooms:
            clock = (
                f"{r.card_clock_ms // 1000}s/card"
                if r.pace == Pace.LOCKSTEP
                else f"{r.deal_clock_ms // 1000}s/deal"
            )
            plain.say(
                f"room {r.id}: {r.name}, {r.taken}/{r.seats} seated, {r.pace.value} "
                f"{clock}, {r.status.value}, by {r.creator.name}"
            )
        if isinstance(reply, Rooms) and reply.next is not None:
            plain.say(f"{len(rooms)} of {reply.total} open rooms: 'rooms more' for the next ones")

    async def cmd_create(self, args: list[str]) -> None:
        plain = self.base
        opts = _create_parser().parse_args(args)
        plain.not_playing("create another")
        fields: dict[str, Any] = {
            "name": " ".join(opts.name),
            "seats": opts.seats,
            "pace": Pace(opts.pace),
            "visibility": Visibility.PRIVATE if opts.private else Visibility.PUBLIC,
            "contribution": plain.contribution(),
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
        await plain.request(msg)
        await plain.until(lambda: plain.model.room is not None, 5)

    async def cmd_join(self, args: list[str]) -> None:
        plain = self.base
        if len(args) != 1:
            raise SessionError("usage: join ID|CODE")
        plain.not_playing("join another room")
        await plain.enter_room(args[0], spectate=False)
        await plain.until(lambda: plain.model.room is not None, 5)

    async def cmd_leave(self, args: list[str]) -> None:
        """Leave the room; during a match (or a series under way) only when asked twice."""
        plain = self.base
        room = plain.model.room
        if room is None:
            raise SessionError("you are not in a room")
        what = plain.model.leaving_forfeits()
        if what is not None and plain.confirming != room.id:
            plain.confirming = room.id
            plain.say(
                f"leaving now forfeits {what}: it counts as a loss and the server plays your "
                "cards. Type leave (or resign) again to confirm; anything else stays."
            )
            return
        plain.confirming = None
        if room.status == RoomStatus.FINISHED:
            # Over for good: the server may already have forgotten the room.
            plain.model.forget_room()
            plain.say(f"left room {room.name}")
            with contextlib.suppress(SessionError):
                await plain.session.request(LeaveRoom(room_id=room.id), timeout=2)
            return
        await plain.request(LeaveRoom(room_id=room.id))

    async def cmd_ready(self, args: list[str]) -> None:
        plain = self.base
        await plain.request(Ready(room_id=plain.room(), ready=True))

    async def cmd_unready(self, args: list[str]) -> None:
        plain = self.base
        await plain.request(Ready(room_id=plain.room(), ready=False))

    async def cmd_start(self, args: list[str]) -> None:
        plain = self.base
        await plain.request(StartMatch(room_id=plain.room()))
        await plain.until(lambda: plain.model.match is not None, 5)

    async def cmd_bot(self, args: list[str]) -> None:
        plain = self.base
        if args:
            await plain.announce(args[0], "adding a bot of")
        plain.verbose_bot = bool(args)  # quiet while trying the strongest bot first
        try:
            await add_bot(plain.session, plain.room(), args[0] if args else None)
        finally:
            plain.verbose_bot = True

    async def cmd_vsbot(self, args: list[str]) -> None:
        plain = self.base
        if len(args) > 1:
            raise SessionError("usage: vsbot [LEVEL]")
        if plain.model.room is not None and plain.model.room.status != RoomStatus.FINISHED:
            raise SessionError("leave this room first (leave)")
        if plain.model.room is not None:
            plain.model.forget_room()
        me = plain.model.me.name if plain.model.me else "you"
        if args:
            await plain.announce(args[0], "playing a bot of")
        plain.verbose_bot = bool(args)
        try:
            await start_vs_bot(plain.session, me, plain.contribution(), args[0] if args else None)
        finally:
            plain.verbose_bot = True
        await plain.until(lambda: plain.model.match is not None, 5)

    async def cmd_place(self, args: list[str]) -> None:
        plain = self.base
        if len(args) != 1:
            raise SessionError("usage: place CELL (like b3)")
        cell = args[0].strip().lower()
        if plain.model.room is None and plain.model.queue is not None:
            # Quick play: the first placement waits for the opponent, then its card.
            await plain.until(
                lambda: plain.model.room is not None or plain.model.queue is None, 600
            )
        if plain.model.room is None and (tid := plain.awaited_tournament()) is not None:
            # A tournament: the first placement waits for the round to seat us.
            await plain.wait_for_table(tid, TOURNAMENT_WAIT_S)
        room = plain.room()
        done = plain.next_deal_after()

        def card_waiting() -> bool:
            m = plain.model.match
            if m is None or (done is not None and m.match_id == done):
                return False
            return m.card is not None or m.result is not None

        # A script may send its placement before the card arrives: wait for it.
        m = plain.model.match
        wait = ROOM_WAIT_S
        if m is not None:
            wait = max(m.card_clock_ms, m.deal_clock_ms, 1000) / 1000 + 5
        if not await plain.until(card_waiting, wait):
            raise SessionError("no card to place: no match is running")
        reason = plain.model.why_not(cell)
        if reason is not None:
            plain.say(f"refused: {reason}")
            return
        match = plain.model.match
        assert match is not None and match.turn is not None
        await plain.request(Place(room_id=room, turn=match.turn, cell=cell))

    async def cmd_board(self, args: list[str]) -> None:
        plain = self.base
        match = plain.model.match
        if match is None:
            raise SessionError("no match yet")
        marks = [parse_cell(c) for c in match.legal]
        for line in board_lines(match.cells, None, glyphs=False, marks=marks):
            plain.say(line.plain)
        if match.card:
            left = match.clock.left_ms(time.monotonic()) if match.clock else None
            plain.say(
                f"card {match.turn}/16: {match.card}, {clock_text(left)} left; "
                f"legal: {' '.join(match.legal)}"
            )

    async def cmd_who(self, args: list[str]) -> None:
        plain = self.base
        room = plain.model.room
        if room is None:
            raise SessionError("you are not in a room")
        code = f", invite code {room.invite_code}" if room.invite_code else ""
        plain.say(
            f"room {room.name} ({room.id}){code}: {room.status.value}, "
            f"{len(room.players)}/{room.seats} seated"
        )
        if plain.model.series is not None and plain.model.series.best_of > 1:
            plain.say(
                series_text(
                    plain.model.series, plain.model.me, plain.model.next_in_ms(time.monotonic())
                )
            )
        for row in plain.model.progress_rows(time.monotonic()):
            you = " (you)" if row.me else ""
            bot = " [bot]" if row.player.bot else ""
            clock = ""
            if row.used_ms is not None:
                clock = f", {clock_text(row.used_ms)} used"
            elif row.clock_ms is not None:
                clock = f", {clock_text(row.clock_ms)} left on the deal clock"
            plain.say(f"  {row.player.name}{bot}{you}: {row.state}, {row.placed}/16 placed{clock}")

    async def cmd_wait(self, args: list[str]) -> None:
        plain = self.base
        match = plain.model.match
        if plain.next_deal_after() is not None:
            assert match is not None
            done = match.match_id
            ok = await plain.until(
                lambda: (
                    plain.model.match is None
                    or plain.model.match.match_id != done
                    or plain.next_deal_after() is None
                ),
                600,
            )
            if not ok:
                plain.say("still waiting: giving up")
            return
        if plain.model.room is None and (plain.model.queue is not None or plain.model.challenges):
            ok = await plain.until(
                lambda: (
                    plain.model.match is not None
                    or (plain.model.queue is None and not plain.model.challenges)
                ),
                600,
            )
            if not ok:
                plain.say("still waiting: giving up")
            return
        if plain.model.room is None and (tid := plain.awaited_tournament()) is not None:
            if not await plain.wait_for_table(tid, TOURNAMENT_WAIT_S):
                plain.say("still waiting: giving up")
            return
        table = self._tournament_of_table()
        if match is not None and match.result is None:
            limit = 16 * max(match.card_clock_ms, 1000) / 1000 + max(match.deal_clock_ms, 0) / 1000
            ok = await plain.until(
                lambda: plain.model.match is None or plain.model.match.result is not None,
                limit + 30,
            )
            if ok and table is not None:  # after a deal at a tournament's table: the next round
                ok = await plain.wait_for_table(table, TOURNAMENT_WAIT_S)
        elif match is not None and table is not None:
            ok = await plain.wait_for_table(table, TOURNAMENT_WAIT_S)
        elif match is not None:
            plain.say("the match is over")
            return
        elif plain.model.room is None:
            raise SessionError("you are not in a room: nothing to wait for")
        else:
            ok = await plain.until(lambda: plain.model.match is not None, 600)
        if not ok:
            plain.say("still waiting: giving up")

    def _tournament_of_table(self) -> str | None:
        """The tournament (not over, this player still in it) whose table this room is."""
        plain = self.base
        room = plain.model.room
        if room is None or room.origin != "tournament":
            return None
        return plain.awaited_tournament()

    async def cmd_history(self, args: list[str]) -> None:
        plain = self.base
        for line in await hist.history_lines(plain.session, plain.model):
            plain.say(line)

    async def cmd_replay(self, args: list[str]) -> None:
        plain = self.base
        if len(args) != 1:
            raise SessionError("usage: replay MATCH_ID")
        for line in await hist.replay_lines(plain.session, args[0]):
            plain.say(line)

    async def cmd_analyze(self, args: list[str]) -> None:
        plain = self.base
        if len(args) > 1:
            raise SessionError("usage: analyze [MATCH_ID]")
        if args:
            replay = await hist.fetch_replay(plain.session, args[0])
            match_id, starter, boards = replay.match_id, replay.starter, replay.boards
        else:
            match = plain.model.match
            if match is None or match.result is None:
                raise SessionError("no finished match here: analyze MATCH_ID (see history)")
            result = match.result
            match_id, starter, boards = result.match_id, result.starter, tuple(result.boards)
        me = plain.model.me.id if plain.model.me else None
        board = ana.board_of(boards, me)
        if board is None:
            raise SessionError(f"match {match_id} has no board to analyse")
        plain.say(f"analysing the board of {board.player.name} in match {match_id}...")
        try:
            # CPU-bound for a second or two: off the loop, so the connection stays alive.
            found = await asyncio.to_thread(ana.analyse, ana.board_from_result(board, starter))
        except EngineError as exc:
            raise SessionError(str(exc)) from None
        for line in ana.analysis_lines(found, glyphs=False):
            plain.say(line.plain.rstrip())
