"""``cribsquares leaderboard``: a server's rated players of one pace, over its HTTP API."""

from __future__ import annotations

import argparse
import json
import sys

from client_cli.config import DEFAULT_SERVER, SERVER_ENV, default_server


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "leaderboard",
        help="the rated players of a pace on a server: the top, and around a player",
        description="Ask a running server (GET /api/leaderboard/PACE) for its leaderboard: the "
        "top players by rating, and the players around one name.",
    )
    p.add_argument(
        "--server",
        metavar="URL",
        default=default_server(),
        help=f"server address (default ${SERVER_ENV} or {DEFAULT_SERVER})",
    )
    p.add_argument("--pace", choices=["lockstep", "race"], default="lockstep")
    p.add_argument("--top", type=int, default=20, metavar="N", help="1 to 100 (default 20)")
    p.add_argument("--around", metavar="NAME", help="also the players around this one")
    p.add_argument(
        "--arena", action="store_true", help="the bot arena's board (bot programs) instead"
    )
    p.add_argument("--json", action="store_true", help="print the server's JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from client_cli import ratings as rt
    from client_cli.cli import UsageError
    from client_cli.safe import visible
    from client_cli.session import SessionError, http_base, normalize_url

    if not 1 <= args.top <= 100:
        raise UsageError("--top: 1 to 100")
    try:
        base = http_base(normalize_url(args.server))
    except SessionError as exc:
        raise UsageError(str(exc)) from None
    params = [("top", str(args.top))]
    if args.around:
        params.append(("around", args.around))
    if args.arena:
        params.append(("arena", "1"))
    try:
        data = rt.fetch_json(base, rt.leaderboard_path(args.pace), params)
        board = rt.parse_leaderboard(data)
    except rt.RatingsError as exc:
        if args.around and str(exc).startswith("not found"):
            raise UsageError(f"{args.around} has no {args.pace} rating on {base}") from None
        raise UsageError(str(exc)) from None
    if args.json:
        fields = {"pace", "top", "around", "players"} | ({"arena"} if args.arena else set())
        out = board.model_dump(mode="json", include=fields)
        sys.stdout.write(json.dumps(out) + "\n")
        return 0
    for line in rt.leaderboard_lines(board):
        sys.stdout.write(visible(line) + "\n")
    return 0
