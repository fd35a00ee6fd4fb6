"""The command line of a bot, shared by ``cribsquares bot`` and a bot script's
``__main__`` (:func:`main`): its options, the plan they make, the run and the
lines it prints."""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from client_cli.botkit.api import (
    BotError,
    Choose,
    Plan,
)
from client_cli.config import DEFAULT_SERVER, SERVER_ENV, default_server
from protocol.fields import Pace


def add_arguments(p: argparse.ArgumentParser, *, strategy: bool = True) -> None:
    p.add_argument(
        "--server",
        metavar="URL",
        default=default_server(),
        help=f"server address (default ${SERVER_ENV} or {DEFAULT_SERVER})",
    )
    if strategy:
        p.add_argument(
            "--strategy",
            metavar="NAME",
            required=True,
            help="an engine level (level-1 .. level-8, or random, greedy, expert), or your "
            "own bot: FILE.py[:FUNC] or MODULE:FUNC, a function taking an engine.bots.BotView "
            "and returning a cell (default FUNC: choose)",
        )
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--room", metavar="CODE", help="join this room: its id, or a private room's invite code"
    )
    where.add_argument(
        "--quickplay",
        action="store_true",
        help="wait in the server's quick-play queue: bot programs play each other there and "
        "stand in for a person whose wait for a person ran out (always casual). Where the "
        "server has no queue for bots, or with --seats other than 2: join the first open public "
        "lockstep room, else open a public room of --seats seats and start it after --wait "
        "seconds with whoever has joined (alone if nobody has). While it waits it accepts "
        "casual challenges",
    )
    where.add_argument(
        "--arena",
        action="store_true",
        help="wait in the server's bot arena: rated matches against other bot programs only, "
        "with a rating and leaderboard of their own (never against people)",
    )
    p.add_argument("--name", metavar="NAME", help="the bot's name (default: from the strategy)")
    p.add_argument(
        "--games", type=int, default=1, metavar="N", help="matches to play (--quickplay; default 1)"
    )
    p.add_argument(
        "--seats", type=int, default=2, metavar="N", help="seats of a room it opens (default 2)"
    )
    p.add_argument(
        "--wait", type=float, default=30.0, metavar="SECONDS", help="quick play wait (default 30)"
    )
    p.add_argument(
        "--best-of",
        type=int,
        choices=[1, 3, 5],
        default=1,
        metavar="N",
        help="quick play: a series of 1, 3 or 5 deals (default 1)",
    )
    p.add_argument(
        "--pace", choices=["lockstep", "race"], default="lockstep", help="quick-play queue pace"
    )
    p.add_argument(
        "--bot-after",
        type=float,
        metavar="SECONDS",
        help="quick-play queue: take a server bot after this long",
    )
    p.add_argument("--seed", default="0", help="seed of the engine strategies (default 0)")
    p.add_argument("--verbose", "-v", action="store_true", help="print every placement")


NAME_PATTERN = re.compile(r"[^\w .\-]")


def default_name(spec: str) -> str:
    stem = Path(spec.partition(":")[0]).stem if (":" in spec or spec.endswith(".py")) else spec
    return NAME_PATTERN.sub("-", f"{stem} bot")[:24]


def plan_from(args: argparse.Namespace) -> Plan:
    if args.games < 1:
        raise BotError("--games must be at least 1")
    if args.room is not None and args.games != 1:
        raise BotError("a room hosts one match: use --quickplay for several games")
    if not 1 <= args.seats <= 8:
        raise BotError("--seats must be 1..8")
    if args.bot_after is not None and not 0 <= args.bot_after <= 600:
        raise BotError("--bot-after: 0 to 600 seconds")
    arena = bool(getattr(args, "arena", False))
    if arena and (args.seats != 2 or args.bot_after is not None):
        raise BotError("--arena pairs two bot programs, rated: no --seats, no --bot-after")
    return Plan(
        room=args.room,
        games=args.games,
        seats=args.seats,
        wait_s=max(0.0, args.wait),
        # The queue pairs two players: another number of seats means an open room.
        queue=(bool(args.quickplay) and args.seats == 2) or arena,
        pace=Pace(args.pace),
        best_of=args.best_of,
        bot_after_s=args.bot_after,
        arena=arena,
    )


def play(args: argparse.Namespace, choose: Choose, name: str) -> int:
    """Run a bot as the command line asked; print results; the exit code."""
    from client_cli.botkit.client import BotClient  # the network: only when a bot plays
    from client_cli.safe import visible
    from client_cli.session import SessionError, normalize_url

    try:
        url = normalize_url(args.server)
        plan = plan_from(args)
    except SessionError as exc:
        raise BotError(str(exc)) from None
    client = BotClient(
        url, choose, name=name, verbose=args.verbose, say=lambda s: print(visible(s), flush=True)
    )
    outcomes = asyncio.run(client.run(plan))
    if len(outcomes) > 1:
        wins = sum(o.rank == 1 for o in outcomes)
        mean = sum(o.score for o in outcomes) / len(outcomes)
        print(f"{len(outcomes)} games: {wins} won, {mean:.1f} points on average")
    fallbacks = sum(o.fallbacks for o in outcomes)
    if fallbacks:
        print(f"the fallback rule placed {fallbacks} cards the bot failed to place")
    return 0


def main(
    choose: Choose,
    argv: Sequence[str] | None = None,
    *,
    prog: str | None = None,
    name: str | None = None,
) -> int:
    """Run ``choose`` as a bot from a script: ``python my_bot.py --server URL --quickplay``."""
    prog = prog or Path(sys.argv[0]).name
    parser = argparse.ArgumentParser(prog=prog, description="Play Cribbage Squares as a bot.")
    add_arguments(parser, strategy=False)
    args = parser.parse_args(argv)
    try:
        return play(args, choose, args.name or name or default_name(prog))
    except BotError as exc:
        sys.stderr.write(f"{prog}: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
