"""``cribsquares history``: matches stored by the server, read from its store."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

from client_cli.cli import UsageError
from client_cli.commands.stored import add_store_options, chosen, reading, shown
from client_cli.safe import visible_lines


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "history",
        help="show stored matches (a player's, or one match in full)",
        description="Read the server's database directly: the recent matches, a player's "
        "matches (by name or id), or one whole match with --match.",
    )
    parser.add_argument("player", nargs="?", help="player name or id (default: recent matches)")
    add_store_options(parser.add_mutually_exclusive_group())
    parser.add_argument("--match", metavar="ID", help="show one match: boards, placements, seed")
    parser.add_argument("--limit", type=int, default=20, help="how many matches (default 20)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise UsageError(f"--limit: 1 or more, not {args.limit}")
    store = chosen(args)
    data = asyncio.run(_query(store, args))
    if data is None:
        what = f"match {args.match}" if args.match else f"player {args.player}"
        raise UsageError(f"no {what} in {shown(store)}")
    if args.json:
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.match:
        sys.stdout.write(visible_lines(_match_text(data)))
    elif args.player:
        sys.stdout.write(visible_lines(_player_text(data)))
    else:
        sys.stdout.write(visible_lines(_list_text(data["matches"])))
    return 0


async def _query(store: str, args: argparse.Namespace) -> dict[str, Any] | None:
    from server.storage import match_detail, player_matches, recent_matches

    async with reading(store) as db:
        if args.match:
            return await match_detail(db, args.match)
        if args.player:
            return await player_matches(db, args.player, args.limit)
        return {"matches": await recent_matches(db, args.limit)}


def _when(ms: int | None) -> str:
    if ms is None:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(ms / 1000))


def _list_text(matches: list[dict[str, Any]], extra: bool = False) -> str:
    if not matches:
        return "no matches\n"
    lines = []
    for m in matches:
        line = (
            f"{m['match_id']:<14} {_when(m['started_ms'])}  {m['pace']:<8} {m['status']:<9} "
            f"{m['players']} player{'s' if m['players'] != 1 else ''}  {m['room']}"
        )
        if extra and m.get("rank") is not None:
            line += f"  rank {m['rank']}, {m['score']} points"
        lines.append(line)
    return "\n".join(lines) + "\n"


def _player_text(data: dict[str, Any]) -> str:
    p = data["player"]
    kind = " (guest)" if p["guest"] else " (bot)" if p["bot"] else ""
    head = f"{p['name']}{kind}, id {p['id']}: {len(data['matches'])} matches\n"
    return head + _list_text(data["matches"], extra=True)


def _match_text(m: dict[str, Any]) -> str:
    out = [
        f"match {m['match_id']} in room {m['room']['name']} ({m['pace']}, {m['status']})",
        f"started {_when(m['started_ms'])}, finished {_when(m['finished_ms'])}",
        f"seed commitment {m['seed_commitment']}",
    ]
    if m["seed"]:
        out.append(f"seed {m['seed']}  starter {m['starter']}")
    for b in m["boards"]:
        who = b["player"]["name"]
        if "rank" not in b:
            out.append(f"\nseat {b['seat']}: {who}")
            continue
        autos = sum(1 for p in b["placements"] if p["auto"])
        out.append(
            f"\n#{b['rank']} {who}: {b['score']} points, {b['time_used_ms'] / 1000:.1f} s"
            + (f", {autos} placed automatically" if autos else "")
        )
        out.append(_render_cells(b["cells"]))
    return "\n".join(out) + "\n"


def _render_cells(cells: list[str | None]) -> str:
    lines = ["    a   b   c   d"]
    for row in range(4):
        parts = [(cells[4 * row + col] or "..") for col in range(4)]
        lines.append(f"{row + 1}  " + "  ".join(parts))
    return "\n".join(lines)
