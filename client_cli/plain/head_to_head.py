"""The ``--plain`` commands of head-to-head play: quick play, challenges, rematches,
the leaderboard and ratings."""

from __future__ import annotations

from typing import Any

from client_cli import ratings as rt
from client_cli.plain.base import PlainBase
from client_cli.plain.words import (
    _challenge_parser,
    _first_error,
    _leaderboard_parser,
    _quickplay_parser,
)
from client_cli.session import (
    NotFound,
    SessionError,
)
from protocol.fields import Pace
from protocol.head_to_head import (
    AnswerChallenge,
    CancelQuickPlay,
    Challenge,
    GetLeaderboard,
    Leaderboard,
    QuickPlay,
)
from protocol.rooms import Rematch, RoomStatus


class HeadToHeadCommands(PlainBase):
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
                bot_level=opts.bot_level,
                contribution=self._contribution(),
            )
        except ValueError as exc:
            raise SessionError(f"quickplay: {_first_error(exc)}") from None
        if bot_after is not None:
            bots = await self._levels()
            level = opts.bot_level or (bots.quickplay_bot if bots else None)
            if level is not None:
                await self._announce(level, f"after {opts.bot_after} s without a person, a bot of")
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
