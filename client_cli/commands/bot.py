"""``cribsquares bot``: a bot plays on a server over the public protocol, like a human client."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from client_cli.botkit import add_arguments

    p = subparsers.add_parser(
        "bot",
        help="let a bot play online: an engine strategy or your own Python function",
        description=(
            "Connect to a cribsquares server as a bot (labelled a bot to everyone), join a "
            "room or quick-play, place every card with the chosen strategy and print each "
            "match's result. Your own bot is a function from an engine.bots.BotView to a "
            "cell: see docs/bots.md, 'Writing your own bot'."
        ),
    )
    add_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from client_cli.botkit import BotError, default_name, load_chooser, play
    from client_cli.cli import UsageError

    try:
        choose = load_chooser(args.strategy, seed=args.seed)
        return play(args, choose, args.name or default_name(args.strategy))
    except BotError as exc:
        raise UsageError(str(exc)) from None
