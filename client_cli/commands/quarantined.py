"""``cribsquares quarantined``: the games a restart set aside, read from a server's store.

A start resumes every tournament and series that was being played. One whose
restore fails for a documented reason (docs/operations.md, *When a restart cannot
resume a game*) is abandoned; one that fails for any other reason (a bug of the
release) is set aside as stored, never abandoned, and listed here, until a start
of a release that resumes it. Read-only: the server may be running.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

from client_cli.commands.stored import add_store_options, chosen, reading
from client_cli.safe import visible_lines


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "quarantined",
        help="list the games a restart set aside (an operator's, from the store)",
        description="List the tournaments and series a start of the server could not resume "
        "for a reason other than the restore's documented refusals: they were left as "
        "stored, not abandoned, and a start of a release that resumes them clears them.",
    )
    add_store_options(parser.add_mutually_exclusive_group())
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    games = asyncio.run(_query(chosen(args)))
    if args.json:
        json.dump({"games": games}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(visible_lines(text(games)))
    return 0


async def _query(store: str) -> list[dict[str, Any]]:
    from server.storage.quarantine import listed

    async with reading(store) as db:
        return await listed(db)


def text(games: list[dict[str, Any]]) -> str:
    if not games:
        return "No game is set aside: every game being played was resumed at the last start.\n"
    lines = [f"{len(games)} set aside (left as stored; a release that resumes them clears them):"]
    for g in games:
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(g["at_ms"] / 1000))
        lines.append(f"  {g['kind']} {g['id']}  by {g['release']} at {when} UTC: {g['reason']}")
    return "\n".join(lines) + "\n"
