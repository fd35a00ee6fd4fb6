"""What every ``--plain`` command stands on: the model and the session, printing
(every line made safe to show), waiting for the model to change, one request
with its refusal, and the helpers commands share (finding a room or a
tournament by id or code, the contribution, the room one is in)."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Callable
from typing import IO, Any

from client_cli.config import TokenStore
from client_cli.levels import fetch_levels, picked
from client_cli.levels import lines as level_lines
from client_cli.model.state import ClientModel
from client_cli.model.text import time_text
from client_cli.model.views import Connection
from client_cli.plain.words import Command
from client_cli.render import board_lines, score_lines
from client_cli.safe import visible
from client_cli.session import (
    Session,
    SessionError,
    path_quote,
)
from protocol.connection import ErrorMessage
from protocol.deals import MatchResult
from protocol.fields import Pace
from protocol.head_to_head import Bots, ChallengeUpdate
from protocol.rooms import JoinRoom, RoomStatus
from protocol.tournaments import JoinTournament, TournamentUpdate
from protocol.wire import ServerMessage


class PlainBase:
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
        self.rooms_next: str | None = None  # the cursor of the next page of rooms
        self.changed = asyncio.Event()
        self.printed: set[str] = set()
        self.verbose_bot = True
        self.bots: Bots | None = None  # the server's bot levels, once asked for
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
        self.commands: dict[str, Command] = {}  # every command by its word (the client's)
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
            bot = " [bot]" if board.player.bot else ""
            self.say(
                f"board of {board.player.name}{bot}{me}: {rank}{board.score.total} points{used}"
            )
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

    async def enter_room(self, target: str, *, spectate: bool, what: str = "room") -> None:
        """Join (or watch) a room by its id, else by its invite code: one refusal at most."""
        contribution = "" if spectate else self.contribution()
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

    def not_playing(self, what: str) -> None:
        """Refuse ``what`` while this player is seated in a room not finished."""
        room = self.model.room
        if room is None or room.status == RoomStatus.FINISHED or self.model.my_seat() is None:
            return
        during = "a match is being played" if room.status == RoomStatus.PLAYING else "waiting"
        raise SessionError(
            f"you are in room {room.name} ({during}): leave it first to {what} "
            "(leave; during a match it forfeits)"
        )

    def next_deal_after(self) -> str | None:
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
        return view.info.round < view.info.rounds  # the rounds it plays, as the server counts

    def awaited_tournament(self) -> str | None:
        """A tournament this player is in, not over, and not yet seated at a table."""
        for tid, view in self.model.tournaments.items():
            entry = self.model.my_entry(tid)
            if not view.over and entry is not None and entry.status == "active":
                return tid
        return None

    async def wait_for_table(self, tid: str, timeout: float) -> bool:
        """Until this player's next table's match is on, or the tournament is over for it."""

        def ready() -> bool:
            m = self.model.match
            if self.model.room is not None and m is not None and m.result is None:
                return True
            view = self.model.tournaments.get(tid)
            entry = self.model.my_entry(tid)
            return view is None or view.over or entry is None or entry.status != "active"

        return await self.until(ready, timeout)

    async def join_tournament(
        self, target: str, spectate: bool, *, say_not_found: bool = True
    ) -> TournamentUpdate | ErrorMessage:
        """Register in (or watch) a tournament by its id, else by its invite code.

        Both attempts are quiet: at most one refusal is printed, and none when no
        tournament has that id or code and ``say_not_found`` is false."""
        contribution = "" if spectate else self.contribution()
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
            self.say(f"refused: {await self.no_tournament(target)}")
        return reply

    async def no_tournament(self, target: str) -> str:
        """Why no tournament took ``target``: it is over (the server's history still
        has it), or nothing has that id or invite code."""
        with contextlib.suppress(SessionError):
            data = await self.session.get_json(f"/api/tournaments/{path_quote(target)}")
            if isinstance(data, dict) and data.get("status") in ("finished", "cancelled"):
                return f"{data.get('name', target)} is {data['status']}: it takes nobody now"
        return f"no tournament has the id or invite code {target}"

    # -- the server's bot levels ----------------------------------------------

    async def levels(self) -> Bots | None:
        if self.bots is None:
            self.bots = await fetch_levels(self.session)
        return self.bots

    async def announce(self, level: str, lead: str) -> None:
        """Say which level was picked, with its rating (when the server rates its bots)."""
        bots = await self.levels()
        if bots is not None:
            self.say(f"{lead} {picked(bots.levels, level)}")

    async def cmd_bots(self, args: list[str]) -> None:
        bots = await self.levels()
        if bots is None:
            self.say("this server does not list bot levels: its bots are random, greedy, expert")
            return
        self.say("the server's bots, weakest first (ratings measured among the levels):")
        for line in level_lines(bots):
            self.say(line)

    def room(self) -> str:
        if self.model.room is None:
            raise SessionError("you are not in a room: create or join one first")
        return self.model.room.id

    def contribution(self) -> str:
        return self.model.new_contribution()
