"""``cribsquares play --plain``: the whole game as plain lines of text.

Commands come one per line on stdin (a terminal or a pipe), events go to
stdout as readable sentences; no cursor movement, no colour, nothing a screen
reader or a script would trip over. Each command finishes before the next is
read: a placement waits for its card, ``wait`` waits for the match's end, so a
script can be a plain list of commands.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import secrets
import shlex
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from typing import IO, Any

from client_cli import analysis as ana
from client_cli import history as hist
from client_cli import ratings as rt
from client_cli import tournaments as tt
from client_cli.config import TokenStore
from client_cli.model.state import ClientModel
from client_cli.model.text import series_text, time_text
from client_cli.model.views import Connection
from client_cli.render import board_lines, clock_text, score_lines
from client_cli.safe import visible
from client_cli.session import (
    NotFound,
    Session,
    SessionError,
    add_bot,
    path_quote,
    start_vs_bot,
)
from engine import parse_cell
from engine.errors import EngineError
from protocol.messages import (
    AddTournamentBot,
    AnswerChallenge,
    CancelQuickPlay,
    Challenge,
    ChallengeUpdate,
    CreateRoom,
    CreateTournament,
    ErrorMessage,
    GetLeaderboard,
    GetTournament,
    JoinRoom,
    JoinTournament,
    Leaderboard,
    LeaveRoom,
    LeaveTournament,
    ListRooms,
    ListTournaments,
    ManageTournament,
    MatchResult,
    Pace,
    Place,
    QuickPlay,
    Ready,
    Rematch,
    Rooms,
    RoomStatus,
    ServerMessage,
    StartMatch,
    Tournaments,
    TournamentUpdate,
    Visibility,
)

HELP = """\
commands:
  rooms [more]                       list open rooms (more: the next page)
  create NAME [--seats N] [--pace lockstep|race] [--private] [--clock SECONDS]
         [--best-of 1|3|5] [--rated]
                                     create a room (1 seat: a solo game)
  join ID|CODE                       join a room by its id or invite code
  leave | resign                     leave the room (during a match it forfeits: asked twice)
  ready | unready                    say you are (not) ready
  start                              start the match (the room's creator)
  bot [STRATEGY]                     fill a seat with a bot (the room's creator)
  vsbot [STRATEGY]                   a new 2-seat game against a bot, started at once
  quickplay [--pace P] [--best-of N] [--bot-after SECONDS]
                                     wait for a rated opponent of your level
  challenge NAME [--pace P] [--best-of N] [--clock SECONDS] [--casual]
                                     challenge a player who is online
  accept [ID] | decline [ID]         answer a challenge made to you
  cancel                             leave the quick-play queue, or withdraw your challenge
  rematch [no]                       after a series: offer or accept a rematch (no: withdraw)
  b3 | place b3                      place the current card on cell b3
  board                              show your board and the legal cells
  who                                who is in the room and how far along
  wait                               wait for the match to end (or to start; in a
                                     series, for the next deal)
  history                            your last 20 matches: against whom, win/loss/draw,
                                     points, and a rated series' rating change
  replay MATCH_ID                    step through a match, placement by placement
  analyze [MATCH_ID]                 the best board in hindsight and each move's loss
                                     (default: the match just played)
  leaderboard [PACE] [--top N] [--around NAME]
                                     the rated players of a pace (leaders for short)
  ratings [NAME]                     a player's ratings and their latest changes
  tournaments                        the public tournaments
  tournament [ID]                    one tournament: round, clock, your table, standings
                                     (and a knockout's bracket)
  register ID|CODE                   enter a tournament (a private one by its invite code)
  watch ID|CODE                      follow a tournament's standings without playing, or
                                     watch a room's match (every board at the end)
  withdraw ID                        leave a tournament for good (or stop watching)
  host NAME [--format duplicate|swiss|knockout] [--rounds N] [--best-of 1|3|5]
       [--pace P] [--clock SECONDS] [--round-clock SECONDS] [--start-in SECONDS]
       [--max-players N] [--private] [--no-bots] [--registered-only]
                                     open a tournament and host it
  manage ID start|pause|resume|cancel|remove PLAYER
                                     run a tournament you host
  addbots ID [COUNT] [STRATEGY]      enter server bots in a tournament you host
  help                               this list
  quit                               leave the client
cells are a1..d4: column letter a-d, then row 1-4"""

Command = Callable[[list[str]], Awaitable[None]]
ROOM_WAIT_S = 30.0
TOURNAMENT_WAIT_S = 3600.0  # a registered player waits this long at most for its table


class _Args(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise SessionError(message)


def _create_parser() -> argparse.ArgumentParser:
    p = _Args(prog="create", add_help=False)
    p.add_argument("name", nargs="+")
    p.add_argument("--seats", type=int, default=2)
    p.add_argument("--pace", choices=["lockstep", "race"], default="lockstep")
    p.add_argument("--private", action="store_true")
    p.add_argument("--clock", type=int, default=None, help="seconds per card (lockstep)")
    p.add_argument("--deal-clock", type=int, default=None, help="seconds per deal (race)")
    p.add_argument("--best-of", type=int, choices=[1, 3, 5], default=1)
    p.add_argument("--rated", action="store_true")
    return p


def _quickplay_parser() -> argparse.ArgumentParser:
    p = _Args(prog="quickplay", add_help=False)
    p.add_argument("--pace", choices=["lockstep", "race"], default="lockstep")
    p.add_argument("--best-of", type=int, choices=[1, 3, 5], default=1)
    p.add_argument("--bot-after", type=int, default=None, metavar="SECONDS")
    return p


def _challenge_parser() -> argparse.ArgumentParser:
    p = _Args(prog="challenge", add_help=False)
    p.add_argument("name", nargs="+")
    p.add_argument("--pace", choices=["lockstep", "race"], default="lockstep")
    p.add_argument("--best-of", type=int, choices=[1, 3, 5], default=1)
    p.add_argument("--clock", type=int, default=None, help="seconds per card or per deal")
    p.add_argument("--casual", action="store_true", help="not rated")
    return p


def _leaderboard_parser() -> argparse.ArgumentParser:
    p = _Args(prog="leaderboard", add_help=False)
    p.add_argument("pace", nargs="?", choices=["lockstep", "race"], default="lockstep")
    p.add_argument("--top", type=int, default=20)
    p.add_argument("--around", default=None, metavar="NAME")
    return p


def _host_parser() -> argparse.ArgumentParser:
    p = _Args(prog="host", add_help=False)
    p.add_argument("name", nargs="+")
    p.add_argument("--format", choices=["duplicate", "swiss", "knockout"], default="duplicate")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--best-of", type=int, choices=[1, 3, 5], default=1)
    p.add_argument("--pace", choices=["lockstep", "race"], default="lockstep")
    p.add_argument("--clock", type=int, default=None, help="seconds per card or per deal")
    p.add_argument("--round-clock", type=int, default=None, metavar="SECONDS")
    p.add_argument("--start-in", type=int, default=None, metavar="SECONDS")
    p.add_argument("--max-players", type=int, default=64)
    p.add_argument("--private", action="store_true")
    p.add_argument("--no-bots", action="store_true")
    p.add_argument("--registered-only", action="store_true")
    return p


class PlainClient:
    def __init__(
        self,
        url: str,
        *,
        name: str | None,
        guest: bool = False,
        store: TokenStore | None = None,
        out: IO[str] | None = None,
        inp: IO[str] | None = None,
        vs_bot: str | None = None,
        first: str | None = None,
    ) -> None:
        self.vs_bot = vs_bot  # "": the strongest bot; None: no game against a bot
        self.first = first  # a command to run once signed in (``play --quickplay``)
        self.out = out or sys.stdout
        self.inp = inp or sys.stdin
        self.model = ClientModel(url)
        self._rooms_next: str | None = None  # the cursor of the next page of rooms
        self.changed = asyncio.Event()
        self.printed: set[str] = set()
        self.verbose_bot = True
        self.session = Session(
            url,
            name=name,
            guest=guest,
            store=store if store is not None else TokenStore(),
            listener=self._on_message,
            status=self._on_status,
            resume_room=lambda: self.model.room.id if self.model.room else None,
            give_up_after=4,
        )
        self.model.server_url = self.session.url
        self.commands = self._commands()
        self.confirming: str | None = None  # the room a leave that forfeits waits to confirm

    # -- output --------------------------------------------------------------

    def say(self, line: str) -> None:
        """Print one line; whatever it quotes, no control character reaches the terminal."""
        with contextlib.suppress(BrokenPipeError, ValueError):
            self.out.write(visible(line) + "\n")
            self.out.flush()

    def _on_message(self, msg: ServerMessage) -> None:
        if (
            isinstance(msg, ErrorMessage)
            and msg.code == "unknown_strategy"
            and not self.verbose_bot
        ):
            return
        for line in self.model.apply(msg, time.monotonic()):
            self.say(line)
        if (
            isinstance(msg, ChallengeUpdate)
            and msg.state == "offered"
            and msg.challenge.id in {c.info.id for c in self.model.incoming()}
        ):
            self.say(f"answer with: accept {msg.challenge.id}, or decline {msg.challenge.id}")
        if isinstance(msg, MatchResult) or (
            getattr(msg, "result", None) is not None and self.model.match is not None
        ):
            self._print_result()
        self.changed.set()

    def _on_status(self, state: Connection, note: str) -> None:
        for line in self.model.set_connection(state, note):
            self.say(line)
        self.changed.set()

    def _print_result(self) -> None:
        match = self.model.match
        if match is None or match.result is None or match.match_id in self.printed:
            return
        self.printed.add(match.match_id)
        # A duplicate tournament's table: its one board is ranked in the standings.
        alone = len(match.result.boards) == 1 and self.model.tournament_for_room() is not None
        for board in match.result.boards:
            me = " (you)" if self.model.me and board.player.id == self.model.me.id else ""
            rank = "" if alone else f"rank {board.rank}, "
            used = f", {time_text(board.time_used_ms)} used" if match.pace == Pace.RACE else ""
            self.say(f"board of {board.player.name}{me}: {rank}{board.score.total} points{used}")
            for line in board_lines(board.cells, board.score, glyphs=False):
                self.say(line.plain)
            for line in score_lines(board.score, glyphs=False):
                self.say("  " + line.plain)

    # -- waiting -------------------------------------------------------------

    async def until(self, cond: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not cond():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)
        return True

    async def request(self, msg: Any) -> ServerMessage:
        reply = await self.session.request(msg)
        if isinstance(reply, ErrorMessage):
            raise SessionError(f"refused: {reply.reason}")  # already printed: not again
        return reply

    # -- commands ------------------------------------------------------------

    def _commands(self) -> dict[str, Command]:
        """Every command by the word that starts it."""
        return {
            "help": self.cmd_help,
            "rooms": self.cmd_rooms,
            "create": self.cmd_create,
            "join": self.cmd_join,
            "leave": self.cmd_leave,
            "resign": self.cmd_leave,
            "ready": self.cmd_ready,
            "unready": self.cmd_unready,
            "start": self.cmd_start,
            "bot": self.cmd_bot,
            "vsbot": self.cmd_vsbot,
            "place": self.cmd_place,
            "board": self.cmd_board,
            "who": self.cmd_who,
            "wait": self.cmd_wait,
            "history": self.cmd_history,
            "replay": self.cmd_replay,
            "analyze": self.cmd_analyze,
            "quickplay": self.cmd_quickplay,
            "cancel": self.cmd_cancel,
            "challenge": self.cmd_challenge,
            "accept": self.cmd_accept,
            "decline": self.cmd_decline,
            "rematch": self.cmd_rematch,
            "leaderboard": self.cmd_leaderboard,
            "leaders": self.cmd_leaderboard,
            "ratings": self.cmd_ratings,
            "tournaments": self.cmd_tournaments,
            "tournament": self.cmd_tournament,
            "register": self.cmd_register,
            "watch": self.cmd_watch,
            "withdraw": self.cmd_withdraw,
            "host": self.cmd_host,
            "manage": self.cmd_manage,
            "addbots": self.cmd_addbots,
        }

    async def handle(self, line: str) -> bool:
        """Run one command line; return False to quit."""
        try:
            words = shlex.split(line)
        except ValueError as exc:
            self.say(f"error: {exc}")
            return True
        if not words:
            return True
        cmd, args = words[0].lower(), words[1:]
        if cmd in ("quit", "exit", "q"):
            return False
        if cmd not in ("leave", "resign"):
            self.confirming = None  # a leave asked for is confirmed by the very next command
        handler = self.commands.get(cmd)
        if handler is None and len(cmd) == 2 and cmd[0].isalpha() and cmd[1].isdigit():
            handler, args = self.cmd_place, [cmd]
        if handler is None:
            self.say(f"unknown command {cmd!r}: type help for the list")
            return True
        try:
            await handler(args)
        except SessionError as exc:
            if not str(exc).startswith("refused"):
                self.say(f"error: {exc}")
        return True

    async def cmd_help(self, args: list[str]) -> None:
        for line in HELP.splitlines():
            self.say(line)

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

    async def _enter_room(self, target: str, *, spectate: bool, what: str = "room") -> None:
        """Join (or watch) a room by its id, else by its invite code: one refusal at most."""
        contribution = "" if spectate else self._contribution()
        reply: ServerMessage | None = None
        for key in ("room_id", "invite_code"):
            fields = {key: target, "contribution": contribution, "spectate": spectate}
            try:
                msg = JoinRoom.model_validate(fields)
            except ValueError:
                continue
            reply = await self.session.request(msg, quiet=True)
            if not (isinstance(reply, ErrorMessage) and reply.code == "room_not_found"):
                break
        if isinstance(reply, ErrorMessage):
            if reply.code == "room_not_found":
                self.say(f"refused: no {what} has the id or invite code {target}")
            else:
                self.say(f"refused: {reply.reason}")
            raise SessionError("refused")

    def _not_playing(self, what: str) -> None:
        """Refuse ``what`` while this player is seated in a room not finished."""
        room = self.model.room
        if room is None or room.status == RoomStatus.FINISHED or self.model.my_seat() is None:
            return
        during = "a match is being played" if room.status == RoomStatus.PLAYING else "waiting"
        raise SessionError(
            f"you are in room {room.name} ({during}): leave it first to {what} "
            "(leave; during a match it forfeits)"
        )

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
        self.verbose_bot = bool(args)  # quiet while trying the strongest bot first
        try:
            await add_bot(self.session, self._room(), args[0] if args else None)
        finally:
            self.verbose_bot = True

    async def cmd_vsbot(self, args: list[str]) -> None:
        if len(args) > 1:
            raise SessionError("usage: vsbot [STRATEGY]")
        if self.model.room is not None and self.model.room.status != RoomStatus.FINISHED:
            raise SessionError("leave this room first (leave)")
        if self.model.room is not None:
            self.model.forget_room()
        me = self.model.me.name if self.model.me else "you"
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

    def _next_deal_after(self) -> str | None:
        """The finished match a new one will follow (next deal, an asked rematch, or
        the tournament's next round), or None."""
        match = self.model.match
        if match is None or match.result is None:
            return None
        if not self.model.series_over() or self.model.rematch_state()[0]:
            return match.match_id
        if self._tournament_goes_on():
            return match.match_id
        return None

    def _tournament_goes_on(self) -> bool:
        """This player's tournament table is done and another round may seat it."""
        view = self.model.tournament_for_room()
        if view is None or view.over:
            return False
        entry = self.model.my_entry(view.info.id)
        if entry is None or entry.status != "active":
            return False
        return view.info.format == "knockout" or view.info.round < view.info.rounds

    def _awaited_tournament(self) -> str | None:
        """A tournament this player is in, not over, and not yet seated at a table."""
        for tid, view in self.model.tournaments.items():
            entry = self.model.my_entry(tid)
            if not view.over and entry is not None and entry.status == "active":
                return tid
        return None

    async def _wait_for_table(self, tid: str, timeout: float) -> bool:
        """Until this player's next table's match is on, or the tournament is over for it."""

        def ready() -> bool:
            m = self.model.match
            if self.model.room is not None and m is not None and m.result is None:
                return True
            view = self.model.tournaments.get(tid)
            entry = self.model.my_entry(tid)
            return view is None or view.over or entry is None or entry.status != "active"

        return await self.until(ready, timeout)

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
        if match is not None and match.result is None:
            limit = 16 * max(match.card_clock_ms, 1000) / 1000 + max(match.deal_clock_ms, 0) / 1000
            ok = await self.until(
                lambda: self.model.match is None or self.model.match.result is not None, limit + 30
            )
        elif match is not None:
            self.say("the match is over")
            return
        elif self.model.room is None:
            raise SessionError("you are not in a room: nothing to wait for")
        else:
            ok = await self.until(lambda: self.model.match is not None, 600)
        if not ok:
            self.say("still waiting: giving up")

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

    # -- head to head ---------------------------------------------------------

    async def cmd_quickplay(self, args: list[str]) -> None:
        opts = _quickplay_parser().parse_args(args)
        if self.model.room is not None and self.model.room.status != RoomStatus.FINISHED:
            raise SessionError("leave this room first (leave)")
        if self.model.room is not None:
            self.model.forget_room()
        bot_after = opts.bot_after * 1000 if opts.bot_after is not None else None
        try:
            msg = QuickPlay(
                pace=Pace(opts.pace),
                deals=opts.best_of,
                bot_after_ms=bot_after,
                contribution=self._contribution(),
            )
        except ValueError as exc:
            raise SessionError(f"quickplay: {_first_error(exc)}") from None
        self.model.bot_after_ms = bot_after
        await self.request(msg)

    async def cmd_cancel(self, args: list[str]) -> None:
        if self.model.queue is not None:
            await self.request(CancelQuickPlay())
            return
        mine = self.model.outgoing()
        if not mine:
            raise SessionError("nothing to cancel: not waiting for quick play nor for an answer")
        await self.request(AnswerChallenge(challenge_id=mine[0].info.id, accept=False))

    async def cmd_challenge(self, args: list[str]) -> None:
        opts = _challenge_parser().parse_args(args)
        fields: dict[str, Any] = {
            "opponent": " ".join(opts.name),
            "pace": Pace(opts.pace),
            "deals": opts.best_of,
            "rated": not opts.casual,
            "contribution": self._contribution(),
        }
        if opts.clock is not None:
            fields["card_clock_ms" if opts.pace == "lockstep" else "deal_clock_ms"] = (
                opts.clock * 1000
            )
        try:
            msg = Challenge(**fields)
        except ValueError as exc:
            raise SessionError(f"challenge: {_first_error(exc)}") from None
        await self.request(msg)

    def _incoming(self, args: list[str], verb: str) -> str:
        if len(args) > 1:
            raise SessionError(f"usage: {verb} [CHALLENGE_ID]")
        offers = self.model.incoming()
        if args:
            if args[0] not in {o.info.id for o in offers}:
                raise SessionError(f"no challenge {args[0]} is waiting for your answer")
            return args[0]
        if not offers:
            raise SessionError("nobody is challenging you")
        if len(offers) > 1:
            ids = ", ".join(f"{o.info.id} ({o.other.name})" for o in offers)
            raise SessionError(f"several challenges wait: {verb} one of {ids}")
        return offers[0].info.id

    async def cmd_accept(self, args: list[str]) -> None:
        cid = self._incoming(args, "accept")
        self._not_playing("accept a challenge")
        await self.request(
            AnswerChallenge(challenge_id=cid, accept=True, contribution=self._contribution())
        )
        await self.until(lambda: self.model.room is not None, 5)

    async def cmd_decline(self, args: list[str]) -> None:
        await self.request(
            AnswerChallenge(challenge_id=self._incoming(args, "decline"), accept=False)
        )

    async def cmd_rematch(self, args: list[str]) -> None:
        if args not in ([], ["no"]):
            raise SessionError("usage: rematch [no]")
        room = self._room()
        want = not args
        contribution = self._contribution() if want else ""
        await self.request(Rematch(room_id=room, want=want, contribution=contribution))

    async def cmd_leaderboard(self, args: list[str]) -> None:
        opts = _leaderboard_parser().parse_args(args)
        try:
            msg = GetLeaderboard(pace=Pace(opts.pace), top=opts.top, around=opts.around)
        except ValueError as exc:
            raise SessionError(f"leaderboard: {_first_error(exc)}") from None
        reply = await self.request(msg)
        if isinstance(reply, Leaderboard):
            me = self.model.me.id if self.model.me else None
            for line in rt.leaderboard_lines(reply, me):
                self.say(line)

    async def cmd_ratings(self, args: list[str]) -> None:
        if len(args) > 1:
            raise SessionError("usage: ratings [NAME]")
        name = args[0] if args else (self.model.me.name if self.model.me else "")
        try:
            data = await self.session.get_json(rt.ratings_path(name))
        except NotFound:
            raise SessionError(f"no player called {name} on this server") from None
        try:
            found = rt.parse_ratings(data)
        except rt.RatingsError as exc:
            raise SessionError(str(exc)) from None
        for line in rt.ratings_lines(found):
            self.say(line)

    # -- tournaments ------------------------------------------------------------

    async def cmd_tournaments(self, args: list[str]) -> None:
        reply = await self.request(ListTournaments())
        listed = reply.tournaments if isinstance(reply, Tournaments) else []
        if not listed:
            self.say("no public tournaments: host one with: host NAME")
        for t in listed:
            mine = " (you are in it)" if self.model.entered(t.id) else ""
            self.say(tt.summary_line(t) + mine)

    async def cmd_tournament(self, args: list[str]) -> None:
        if len(args) > 1:
            raise SessionError("usage: tournament [ID]")
        tid = args[0] if args else self.model.tournament_id or self._awaited_tournament()
        if tid is None:
            raise SessionError("which tournament? tournament ID (see tournaments)")
        reply = await self.request(GetTournament(tournament_id=tid))
        if isinstance(reply, TournamentUpdate):
            self.model.show_tournament(reply.tournament.id)
            for line in self.tournament_lines(reply.tournament.id):
                self.say(line)

    def tournament_lines(self, tid: str) -> list[str]:
        view = self.model.tournaments[tid]
        info, now = view.info, time.monotonic()
        me = self.model.me.id if self.model.me else None
        head = (
            f"{info.name} ({info.id}): {tt.FORMAT_NAME[info.format]}, "
            f"{tt.rounds_text(info.format, info.rounds, info.best_of, bool(info.bracket))}, "
            f"{tt.clock_terms(info.pace, info.card_clock_ms, info.deal_clock_ms)}; "
            f"host {info.host.name}"
        )
        if info.invite_code:
            head += f"; invite code {info.invite_code}"
        lines = [head, tt.round_text(info, view.round_left_ms(now), view.next_round_ms(now))]
        role = self.model.tournament_role(tid)
        if role == "entrant":
            table = tt.table_text(view.table_of(me), view.names(), me, info.round)
            lines.append(f"you are registered{'; your table: ' + table if table else ''}")
        elif role:
            lines.append(
                {
                    "out": "you are knocked out",
                    "withdrawn": "you withdrew",
                    "removed": "you were removed",
                    "spectator": "you are watching",
                    "host": "you host it (not playing)",
                }.get(role, role)
            )
        if info.standings:
            lines.append("standings:")
            if state := tt.standings_state(info):
                lines.append(f"  ({state})")
        seeds = view.seeds()
        for row in info.standings:
            finished = info.status == "finished"
            lines.append("  " + tt.standing_line(row, info.format, me, seeds, finished))
        rounds = tt.bracket(info, view.tables)
        if rounds:
            lines.append("bracket:")
            lines += ["  " + line for line in tt.bracket_text_lines(rounds, me)]
        return lines

    async def _join_tournament(
        self, target: str, spectate: bool, *, say_not_found: bool = True
    ) -> TournamentUpdate | ErrorMessage:
        """Register in (or watch) a tournament by its id, else by its invite code.

        Both attempts are quiet: at most one refusal is printed, and none when no
        tournament has that id or code and ``say_not_found`` is false."""
        contribution = "" if spectate else self._contribution()
        reply: ServerMessage | None = None
        for key in ("tournament_id", "invite_code"):
            fields = {key: target, "spectate": spectate, "contribution": contribution}
            try:
                msg = JoinTournament.model_validate(fields)
            except ValueError:
                continue
            reply = await self.session.request(msg, quiet=True)
            if not (isinstance(reply, ErrorMessage) and reply.code == "tournament_not_found"):
                break
        if isinstance(reply, TournamentUpdate):
            return reply
        if not isinstance(reply, ErrorMessage):
            return ErrorMessage(code="tournament_not_found", reason="no reply")
        if reply.code != "tournament_not_found":
            self.say(f"refused: {reply.reason}")
        elif say_not_found:
            self.say(f"refused: {await self._no_tournament(target)}")
        return reply

    async def _no_tournament(self, target: str) -> str:
        """Why no tournament took ``target``: it is over (the server's history still
        has it), or nothing has that id or invite code."""
        with contextlib.suppress(SessionError):
            data = await self.session.get_json(f"/api/tournaments/{path_quote(target)}")
            if isinstance(data, dict) and data.get("status") in ("finished", "cancelled"):
                return f"{data.get('name', target)} is {data['status']}: it takes nobody now"
        return f"no tournament has the id or invite code {target}"

    async def cmd_register(self, args: list[str]) -> None:
        if len(args) != 1:
            raise SessionError("usage: register ID|CODE")
        reply = await self._join_tournament(args[0], spectate=False)
        if isinstance(reply, TournamentUpdate):
            info = reply.tournament
            self.model.show_tournament(info.id)
            if info.status in ("finished", "cancelled"):
                self.say(f"{info.name} is {info.status}: there is nothing to register for")
            elif self.model.tournament_role(info.id) == "out":
                self.say(f"you are out of {info.name}: knocked out, you play no further round")
            elif self.model.entered(info.id):
                self.say(
                    f"registered in {reply.tournament.name}: a placement or wait "
                    "waits for your table"
                )

    async def cmd_watch(self, args: list[str]) -> None:
        """Watch a tournament, or else a room, by its id or invite code."""
        if len(args) != 1:
            raise SessionError("usage: watch ID|CODE (a tournament or a room)")
        target = args[0]
        reply = await self._join_tournament(target, spectate=True, say_not_found=False)
        if isinstance(reply, TournamentUpdate):
            tid = reply.tournament.id
            if not self.model.entered(tid):
                self.model.watching.add(tid)
            self.model.show_tournament(tid)
            self.say(f"watching {reply.tournament.name}: its changes follow")
            return
        if reply.code != "tournament_not_found":
            return  # refused, and said why
        why = await self._no_tournament(target)
        if not why.startswith("no tournament"):
            self.say(f"refused: {why}")
            return
        self._not_playing("watch another room")
        await self._enter_room(target, spectate=True, what="tournament or room")
        await self.until(lambda: self.model.room is not None, 5)
        room = self.model.room
        if room is not None:
            self.say(
                f"watching room {room.name}: progress as it comes, every board at the end; "
                "wait waits for the result, leave stops watching"
            )

    async def cmd_withdraw(self, args: list[str]) -> None:
        if len(args) != 1:
            raise SessionError("usage: withdraw ID")
        tid = args[0]
        watching = tid in self.model.watching and not self.model.entered(tid)
        await self.request(LeaveTournament(tournament_id=tid))
        self.model.watching.discard(tid)
        if watching:
            self.say(f"no longer watching {tid}")

    async def cmd_host(self, args: list[str]) -> None:
        opts = _host_parser().parse_args(args)
        fields: dict[str, Any] = {
            "name": " ".join(opts.name),
            "format": opts.format,
            "rounds": opts.rounds,
            "best_of": opts.best_of,
            "pace": Pace(opts.pace),
            "max_players": opts.max_players,
            "visibility": Visibility.PRIVATE if opts.private else Visibility.PUBLIC,
            "bots": not opts.no_bots,
            "registered_only": opts.registered_only,
        }
        if opts.clock is not None:
            fields["card_clock_ms" if opts.pace == "lockstep" else "deal_clock_ms"] = (
                opts.clock * 1000
            )
        if opts.round_clock is not None:
            fields["round_clock_ms"] = opts.round_clock * 1000
        if opts.start_in is not None:
            fields["start_in_ms"] = opts.start_in * 1000
        try:
            msg = CreateTournament(**fields)
        except ValueError as exc:
            raise SessionError(f"host: {_first_error(exc)}") from None
        reply = await self.request(msg)
        if isinstance(reply, TournamentUpdate):
            info = reply.tournament
            self.model.show_tournament(info.id)
            start = "start it with: manage " + info.id + " start"
            if opts.start_in is not None:
                start = f"it starts by itself in {clock_text(opts.start_in * 1000)}"
            self.say(f"you host {info.name} ({info.id}); register to play in it; {start}")

    async def cmd_manage(self, args: list[str]) -> None:
        actions = ("start", "pause", "resume", "cancel", "remove")
        if len(args) < 2 or args[1] not in actions or (args[1] == "remove") != (len(args) == 3):
            raise SessionError("usage: manage ID start|pause|resume|cancel|remove PLAYER")
        tid, action = args[0], args[1]
        player_id = None
        if action == "remove":
            view = self.model.tournaments.get(tid)
            who = args[2]
            found = [
                e.player.id
                for e in (view.info.entrants if view else [])
                if who in (e.player.id, e.player.name)
            ]
            if not found:
                raise SessionError(f"no entrant {who} in {tid} (see: tournament {tid})")
            player_id = found[0]
        await self.request(
            ManageTournament.model_validate(
                {"tournament_id": tid, "action": action, "player_id": player_id}
            )
        )

    async def cmd_addbots(self, args: list[str]) -> None:
        if not 1 <= len(args) <= 3:
            raise SessionError("usage: addbots ID [COUNT] [STRATEGY]")
        try:
            count = int(args[1]) if len(args) > 1 else 1
            msg = AddTournamentBot(
                tournament_id=args[0], count=count, strategy=args[2] if len(args) > 2 else "greedy"
            )
        except ValueError as exc:
            raise SessionError(f"addbots: {_first_error(exc)}") from None
        await self.request(msg)

    def _room(self) -> str:
        if self.model.room is None:
            raise SessionError("you are not in a room: create or join one first")
        return self.model.room.id

    def _contribution(self) -> str:
        self.model.contribution = secrets.token_hex(16)
        return self.model.contribution

    # -- main loop -----------------------------------------------------------

    def _start_reader(
        self, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None]
    ) -> None:
        def read() -> None:
            try:
                for line in self.inp:
                    loop.call_soon_threadsafe(queue.put_nowait, line)
            except (OSError, ValueError):
                pass
            loop.call_soon_threadsafe(queue.put_nowait, None)

        threading.Thread(target=read, name="stdin", daemon=True).start()

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        runner = asyncio.create_task(self.session.run())
        signed = asyncio.create_task(self.session.wait_signed_in())
        await asyncio.wait({runner, signed}, return_when=asyncio.FIRST_COMPLETED)
        if runner.done():
            signed.cancel()
            exc = runner.exception()
            self.say(f"error: {exc}" if exc else "error: disconnected")
            return 1
        self.say("type help for the commands")
        if self.vs_bot is not None:
            await self.handle(f"vsbot {self.vs_bot}".strip())
        if self.first is not None:
            await self.handle(self.first)
        queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._start_reader(loop, queue)
        code = 0
        try:
            while True:
                get = asyncio.create_task(queue.get())
                await asyncio.wait({get, runner}, return_when=asyncio.FIRST_COMPLETED)
                if runner.done():
                    get.cancel()
                    exc = runner.exception()
                    self.say(f"error: {exc}" if exc else "disconnected")
                    code = 1
                    break
                line = get.result()
                if line is None or not await self.handle(line):
                    break
        finally:
            await self.session.close()
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await runner
        return code


def _first_error(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        return f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
    return str(exc)
