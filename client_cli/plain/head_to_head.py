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


class HeadToHeadCommands:
    def __init__(self, base: PlainBase) -> None:
        self.base = base  # the model, the session, printing and the shared helpers

    async def cmd_quickplay(self, args: list[str]) -> None:
        plain = self.base
        opts = _quickplay_parser().parse_args(args)
        if plain.model.room is not None and plain.model.room.status != RoomStatus.FINISHED:
            raise SessionError("leave this room first (leave)")
        if plain.model.room is not None:
            plain.model.forget_room()
        bot_after = opts.bot_after * 1000 if opts.bot_after is not None else None
        try:
            msg = QuickPlay(
                pace=Pace(opts.pace),
                deals=opts.best_of,
                bot_after_ms=bot_after,
                bot_level=opts.bot_level,
                contribution=plain.contribution(),
            )
        except ValueError as exc:
            raise SessionError(f"quickplay: {_first_error(exc)}") from None
        if bot_after is not None:
            bots = await plain.levels()
            level = opts.bot_level or (bots.quickplay_bot if bots else None)
            if level is not None:
                await plain.announce(level, f"after {opts.bot_after} s without a person, a bot of")
        plain.model.bot_after_ms = bot_after
        await plain.request(msg)

    async def cmd_cancel(self, args: list[str]) -> None:
        plain = self.base
        if plain.model.queue is not None:
            await plain.request(CancelQuickPlay())
            return
        mine = plain.model.outgoing()
        if not mine:
            raise SessionError("nothing to cancel: not waiting for quick play nor for an answer")
        await plain.request(AnswerChallenge(challenge_id=mine[0].info.id, accept=False))

    async def cmd_challenge(self, args: list[str]) -> None:
        plain = self.base
        opts = _challenge_parser().parse_args(args)
        fields: dict[str, Any] = {
            "opponent": " ".join(opts.name),
            "pace": Pace(opts.pace),
            "deals": opts.best_of,
            "rated": not opts.casual,
            "contribution": plain.contribution(),
        }
        if opts.clock is not None:
            fields["card_clock_ms" if opts.pace == "lockstep" else "deal_clock_ms"] = (
                opts.clock * 1000
            )
        try:
            msg = Challenge(**fields)
        except ValueError as exc:
            raise SessionError(f"challenge: {_first_error(exc)}") from None
        await plain.request(msg)

    def _incoming(self, args: list[str], verb: str) -> str:
        plain = self.base
        if len(args) > 1:
            raise SessionError(f"usage: {verb} [CHALLENGE_ID]")
        offers = plain.model.incoming()
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
        plain = self.base
        cid = self._incoming(args, "accept")
        plain.not_playing("accept a challenge")
        await plain.request(
            AnswerChallenge(challenge_id=cid, accept=True, contribution=plain.contribution())
        )
        await plain.until(lambda: plain.model.room is not None, 5)

    async def cmd_decline(self, args: list[str]) -> None:
        plain = self.base
        await plain.request(
            AnswerChallenge(challenge_id=self._incoming(args, "decline"), accept=False)
        )

    async def cmd_rematch(self, args: list[str]) -> None:
        plain = self.base
        if args not in ([], ["no"]):
            raise SessionError("usage: rematch [no]")
        room = plain.room()
        want = not args
        contribution = plain.contribution() if want else ""
        await plain.request(Rematch(room_id=room, want=want, contribution=contribution))

    async def cmd_leaderboard(self, args: list[str]) -> None:
        plain = self.base
        opts = _leaderboard_parser().parse_args(args)
        try:
            msg = GetLeaderboard(pace=Pace(opts.pace), top=opts.top, around=opts.around)
        except ValueError as exc:
            raise SessionError(f"leaderboard: {_first_error(exc)}") from None
        reply = await plain.request(msg)
        if isinstance(reply, Leaderboard):
            me = plain.model.me.id if plain.model.me else None
            for line in rt.leaderboard_lines(reply, me):
                plain.say(line)

    async def cmd_ratings(self, args: list[str]) -> None:
        plain = self.base
        if len(args) > 1:
            raise SessionError("usage: ratings [NAME]")
        name = args[0] if args else (plain.model.me.name if plain.model.me else "")
        try:
            data = await plain.session.get_json(rt.ratings_path(name))
        except NotFound:
            raise SessionError(f"no player called {name} on this server") from None
        try:
            found = rt.parse_ratings(data)
        except rt.RatingsError as exc:
            raise SessionError(str(exc)) from None
        for line in rt.ratings_lines(found):
            plain.say(line)
