"""``cribsquares bot``: a bot plays on a server over the public protocol, like a human client."""

from __future__ import annotations

import argparse

from client_cli.config import DEFAULT_SERVER, SERVER_ENV, default_server

# Imported when the parser is built: keep it light (the bot machinery loads in run).


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "bot",
        help="let a bot play online: an engine strategy or your own Python function",
        description=(
            "Connect to a cribsquares server as a bot (labelled a bot to everyone), join a "
            "room or quick-play, place every card with the chosen strategy and print each "
            "match's result. Your own bot is a function from an engine.bots.BotView to a "
            "cell: see docs/bot_api.md."
        ),
    )
    add_arguments(p)
    p.set_defaults(func=run)


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
            help="an engine strategy (random, greedy, expert), or your own bot: "
            "FILE.py[:FUNC] or MODULE:FUNC, a function taking an engine.bots.BotView and "
            "returning a cell (default FUNC: choose)",
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


def run(args: argparse.Namespace) -> int:
    from client_cli.botkit import BotError, default_name, load_chooser, play
    from client_cli.cli import UsageError

    if args.games < 1:
        raise UsageError(f"--games: 1 or more, not {args.games}")
    if not 1 <= args.seats <= 8:
        raise UsageError(f"--seats: 1 to 8, not {args.seats}")
    for option, value in (("--wait", args.wait), ("--bot-after", args.bot_after)):
        if value is not None and not 0 <= value < float("inf"):
            raise UsageError(f"{option}: a number of seconds, 0 or more, not {value:g}")
    try:
        choose = load_chooser(args.strategy, seed=args.seed)
        return play(args, choose, args.name or default_name(args.strategy))
    except BotError as exc:
        raise UsageError(str(exc)) from None
