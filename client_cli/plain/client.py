"""``cribsquares play --plain``: the whole game as plain lines of text.

Commands come one per line on stdin (a terminal or a pipe), events go to
stdout as readable sentences; no cursor movement, no colour, nothing a screen
reader or a script would trip over. Each command finishes before the next is
read: a placement waits for its card, ``wait`` waits for the match's end, so a
script can be a plain list of commands. The commands live in their groups
(``rooms``, ``head_to_head``, ``tournaments``); this module finds them by their
first word and runs the input loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import threading
from typing import Any

from client_cli.plain.base import PlainBase
from client_cli.plain.daily import DailyCommands
from client_cli.plain.head_to_head import HeadToHeadCommands
from client_cli.plain.rooms import RoomCommands
from client_cli.plain.tournaments import TournamentCommands
from client_cli.plain.words import HELP, Command
from client_cli.session import (
    SessionError,
)


class PlainClient(PlainBase):
    """The plain client: the model, the session and printing (:class:`PlainBase`),
    and the commands, in four groups that are parts of it, each given the base."""

    def __init__(self, url: str, **options: Any) -> None:
        super().__init__(url, **options)
        self.rooms = RoomCommands(self)
        self.head_to_head = HeadToHeadCommands(self)
        self.tournaments = TournamentCommands(self)
        self.daily = DailyCommands(self)
        self.commands = self._commands()

    def _commands(self) -> dict[str, Command]:
        """Every command by the word that starts it."""
        rooms, duels, tournaments = self.rooms, self.head_to_head, self.tournaments
        return {
            "help": self.cmd_help,
            "rooms": rooms.cmd_rooms,
            "create": rooms.cmd_create,
            "join": rooms.cmd_join,
            "leave": rooms.cmd_leave,
            "resign": rooms.cmd_leave,
            "ready": rooms.cmd_ready,
            "unready": rooms.cmd_unready,
            "start": rooms.cmd_start,
            "bot": rooms.cmd_bot,
            "bots": self.cmd_bots,
            "vsbot": rooms.cmd_vsbot,
            "place": rooms.cmd_place,
            "board": rooms.cmd_board,
            "who": rooms.cmd_who,
            "wait": rooms.cmd_wait,
            "history": rooms.cmd_history,
            "replay": rooms.cmd_replay,
            "analyze": rooms.cmd_analyze,
            "quickplay": duels.cmd_quickplay,
            "cancel": duels.cmd_cancel,
            "challenge": duels.cmd_challenge,
            "accept": duels.cmd_accept,
            "decline": duels.cmd_decline,
            "rematch": duels.cmd_rematch,
            "leaderboard": duels.cmd_leaderboard,
            "leaders": duels.cmd_leaderboard,
            "ratings": duels.cmd_ratings,
            "tournaments": tournaments.cmd_tournaments,
            "tournament": tournaments.cmd_tournament,
            "register": tournaments.cmd_register,
            "watch": tournaments.cmd_watch,
            "withdraw": tournaments.cmd_withdraw,
            "formats": tournaments.cmd_formats,
            "host": tournaments.cmd_host,
            "manage": tournaments.cmd_manage,
            "addbots": tournaments.cmd_addbots,
            "daily": self.daily.cmd_daily,
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
            handler, args = self.rooms.cmd_place, [cmd]
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
