"""``cribsquares ratings``: a player's ratings per pace and their history, over HTTP."""

from __future__ import annotations

import argparse
import json
import sys

from client_cli.config import DEFAULT_SERVER, SERVER_ENV, default_server


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "ratings",
        help="a player's ratings per pace, with the latest changes",
        description="Ask a running server (GET /api/players/NAME/ratings) for a player's "
        "rating, deviation and games per pace, the rating after each rated series, and how "
        "many series the player abandoned.",
    )
    p.add_argument(
        "name",
        metavar="NAME",
        nargs="?",
        help="the player's name (or id); default: you, as signed in on that server",
    )
    p.add_argument(
        "--server",
        metavar="URL",
        default=default_server(),
        help=f"server address (default ${SERVER_ENV} or {DEFAULT_SERVER})",
    )
    p.add_argument("--json", action="store_true", help="print the server's JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from client_cli import ratings as rt
    from client_cli.cli import UsageError
    from client_cli.safe import visible
    from client_cli.session import SessionError, http_base, normalize_url

    try:
        url = normalize_url(args.server)
    except SessionError as exc:
        raise UsageError(str(exc)) from None
    base = http_base(url)
    if args.name is None:
        from client_cli.config import TokenStore

        saved = TokenStore().get(url)
        if saved is None:
            raise UsageError(
                f"whose ratings? no saved sign-in for {url}: give a NAME "
                "(or sign in once with cribsquares play --name NAME)"
            )
        args.name = saved.player_id or saved.name
    try:
        data = rt.fetch_json(base, rt.ratings_path(args.name))
        found = rt.parse_ratings(data)
    except rt.RatingsError as exc:
        if str(exc).startswith("not found"):
            raise UsageError(f"no player called {args.name} on {base}") from None
        raise UsageError(str(exc)) from None
    if args.json:
        sys.stdout.write(json.dumps(data) + "\n")  # the server's object, checked above
        return 0
    for line in rt.ratings_lines(found):
        sys.stdout.write(visible(line) + "\n")
    return 0
