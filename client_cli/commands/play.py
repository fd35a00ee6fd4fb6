"""``cribsquares play``: the terminal client, full-screen or ``--plain`` text."""

from __future__ import annotations

import argparse
import asyncio
import sys

from client_cli.config import DEFAULT_SERVER, SERVER_ENV, default_server


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "play",
        help="play online: the full-screen terminal client (or --plain text)",
        description=(
            "Connect to a cribsquares server and play: lobby, rooms, matches, results, "
            "history and replays. The sign-in token is kept in the config directory, "
            "per server, so the next start signs in straight away."
        ),
    )
    p.add_argument(
        "--server",
        metavar="URL",
        default=default_server(),
        help=f"server address (default ${SERVER_ENV} or {DEFAULT_SERVER})",
    )
    p.add_argument("--name", metavar="NAME", help="your name, to sign up on a new server")
    p.add_argument("--guest", action="store_true", help="play as a guest (casual rooms only)")
    p.add_argument(
        "--plain",
        action="store_true",
        help="plain line-by-line text: commands on stdin, events on stdout "
        "(for scripts and screen readers)",
    )
    p.add_argument(
        "--vs-bot",
        nargs="?",
        const="",
        metavar="STRATEGY",
        help="go straight into a new game against a bot (default: the strongest the "
        "server has; or random, greedy, expert)",
    )
    p.add_argument(
        "--quickplay",
        action="store_true",
        help="go straight into the quick-play queue: a rated head-to-head match against a "
        "player of close rating",
    )
    p.add_argument(
        "--pace",
        choices=["lockstep", "race"],
        default="lockstep",
        help="quick play: the pace (default lockstep)",
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
        "--bot-after",
        type=int,
        metavar="SECONDS",
        help="quick play: take a (casual) bot opponent after waiting this long",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from client_cli.cli import UsageError
    from client_cli.session import SessionError, normalize_url

    try:
        url = normalize_url(args.server)
    except SessionError as exc:
        raise UsageError(str(exc)) from None
    if not args.quickplay and (args.best_of != 1 or args.bot_after is not None):
        raise UsageError("--best-of and --bot-after go with --quickplay")
    if args.quickplay and args.vs_bot is not None:
        raise UsageError("choose one of --quickplay and --vs-bot")
    if args.bot_after is not None and not 0 <= args.bot_after <= 600:
        raise UsageError("--bot-after: 0 to 600 seconds")
    if args.plain:
        from client_cli.plain.client import PlainClient

        first = None
        if args.quickplay:
            first = f"quickplay --pace {args.pace} --best-of {args.best_of}"
            if args.bot_after is not None:
                first += f" --bot-after {args.bot_after}"
        client = PlainClient(url, name=args.name, guest=args.guest, vs_bot=args.vs_bot, first=first)
        return asyncio.run(client.run())
    if not sys.stdout.isatty() or not sys.stdin.isatty():
        raise UsageError("the full-screen client needs a terminal: use --plain for pipes")
    from client_cli.tui.app import CribApp

    quickplay = None
    if args.quickplay:
        quickplay = {"pace": args.pace, "deals": args.best_of}
        if args.bot_after is not None:
            quickplay["bot_after_ms"] = args.bot_after * 1000
    app = CribApp(url, name=args.name, guest=args.guest, vs_bot=args.vs_bot, quickplay=quickplay)
    code = app.run()
    return int(code or 0)
