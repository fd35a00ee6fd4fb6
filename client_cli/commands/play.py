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
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from client_cli.cli import UsageError
    from client_cli.session import SessionError, normalize_url

    try:
        url = normalize_url(args.server)
    except SessionError as exc:
        raise UsageError(str(exc)) from None
    if args.plain:
        from client_cli.plain import PlainClient

        client = PlainClient(url, name=args.name, guest=args.guest, vs_bot=args.vs_bot)
        return asyncio.run(client.run())
    if not sys.stdout.isatty() or not sys.stdin.isatty():
        raise UsageError("the full-screen client needs a terminal: use --plain for pipes")
    from client_cli.tui.app import CribApp

    app = CribApp(url, name=args.name, guest=args.guest, vs_bot=args.vs_bot)
    code = app.run()
    return int(code or 0)
