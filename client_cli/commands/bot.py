"""``cribsquares bot``: a bot plays on a server over the public protocol, like a human client."""

from __future__ import annotations

import argparse

from client_cli.botkit.command import add_arguments


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


def run(args: argparse.Namespace) -> int:
    from client_cli.botkit.api import BotError, load_chooser
    from client_cli.botkit.command import default_name, play
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
