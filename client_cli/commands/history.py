"""``cribsquares history``: a player's matches, or one match, from a server.

It asks the server's HTTP API (``--server``, as ``play`` takes it): one's own
history, asked with the sign-in saved for that server, holds every match one
sat in (private rooms, bots, daily attempts once the day is over); another
player's, the matches anyone may list. An operator may read a store directly
instead (``--db PATH`` or ``--store URL``), where the recent matches are listed too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import urllib.error
import urllib.request
from typing import Any

from client_cli.cli import UsageError
from client_cli.commands.stored import add_store_options, chosen, reading, shown
from client_cli.config import DEFAULT_SERVER, SERVER_ENV, default_server
from client_cli.safe import visible_lines


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "history",
        help="show played matches (yours, a player's, or one match in full)",
        description="Ask a running server (its HTTP API) for your matches (as signed in "
        "there: private rooms and bots included), a player's matches (by name or id), or "
        "one whole match with --match; or read a server's database (--db, --store).",
    )
    parser.add_argument(
        "player", nargs="?", help="player name or id (default: you, as signed in on the server)"
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--server",
        metavar="URL",
        help=f"server address (default ${SERVER_ENV} or {DEFAULT_SERVER})",
    )
    add_store_options(source)
    parser.add_argument("--match", metavar="ID", help="show one match: boards, placements, seed")
    parser.add_argument("--limit", type=int, default=20, help="how many matches (default 20)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise UsageError(f"--limit: 1 or more, not {args.limit}")
    if args.db is not None or args.store is not None:
        store = chosen(args)
        data = asyncio.run(_query(store, args))
        where = shown(store)
    else:
        data, where = _ask_server(args.server or default_server(), args)
    if data is None:
        what = f"match {args.match}" if args.match else f"player {args.player}"
        raise UsageError(f"no {what} on {where}")
    if args.json:
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.match:
        sys.stdout.write(visible_lines(match_text(data)))
    elif "player" in data:
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


def _ask_server(server: str, args: argparse.Namespace) -> tuple[dict[str, Any] | None, str]:
    """The match, or the player's matches, from ``server``'s HTTP API, asked with the
    saved sign-in when the player is oneself; None when the server has no such thing."""
    from client_cli.config import TokenStore
    from client_cli.history import history_path, match_path
    from client_cli.session import SessionError, http_base, normalize_url, path_quote

    try:
        url = normalize_url(server)
    except SessionError as exc:
        raise UsageError(str(exc)) from None
    base = http_base(url)
    saved = TokenStore().get(url)
    if args.match:
        # As oneself: a player of a deal still under an embargo sees its own table.
        token = saved.token if saved is not None else None
        return _get(base, match_path(path_quote(args.match)), token), base
    who = args.player
    if who is None:
        if saved is None:
            raise UsageError(
                f"whose history? no saved sign-in for {url}: give a PLAYER (or sign in once"
                " with cribsquares play --name NAME); a server's recent matches are read"
                " from its database (--db PATH or --store URL)"
            )
        who = saved.player_id or saved.name
    mine = saved is not None and who in (saved.player_id, saved.name)
    data = _get(base, history_path(path_quote(who)), saved.token if saved and mine else None)
    if data is not None:
        data["matches"] = data["matches"][: args.limit]
    return data, base


def _get(base: str, path: str, token: str | None) -> dict[str, Any] | None:
    request = urllib.request.Request(base + path, headers={"Accept": "application/json"})
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=15) as reply:
            found = json.loads(reply.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        if exc.code == 401:
            raise UsageError(
                f"{base} does not know the sign-in saved for it: sign in again with"
                " cribsquares play --name NAME"
            ) from None
        raise UsageError(f"{base} answered HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError) as exc:
        from client_cli.reach import unreachable

        raise UsageError(unreachable(base, exc)) from None
    except ValueError:
        raise UsageError(f"{base}{path}: the answer is not JSON") from None
    if not isinstance(found, dict):
        raise UsageError(f"{base}{path}: the answer is not a JSON object")
    return found


def _when(ms: int | None) -> str:
    if ms is None:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(ms / 1000))


def _list_text(matches: list[dict[str, Any]], player: dict[str, Any] | None = None) -> str:
    """The matches, one a line; a player's own list (``player``) with its rank and score,
    and on a series' last deal how the series ended for it."""
    from client_cli.history import series_outcome

    if not matches:
        return "no matches\n"
    lines = []
    for m in matches:
        line = (
            f"{m['match_id']:<14} {_when(m['started_ms'])}  {m['pace']:<8} {m['status']:<9} "
            f"{m['players']} player{'s' if m['players'] != 1 else ''}  {m['room']}"
        )
        if player is not None and m.get("rank") is not None:
            line += f"  rank {m['rank']}, {m['score']} points"
        if player is not None:
            names = {o["player"]["id"]: o["player"]["name"] for o in m.get("opponents") or ()}
            series = series_outcome(m.get("series"), player["id"], names, player["name"])
            line += f"  ({series})" if series else ""
        lines.append(line)
    return "\n".join(lines) + "\n"


def _player_text(data: dict[str, Any]) -> str:
    p = data["player"]
    kind = " (guest)" if p["guest"] else " (bot)" if p["bot"] else ""
    head = f"{p['name']}{kind}, id {p['id']}: {len(data['matches'])} matches"
    head += " (all yours, private rooms included)\n" if data.get("all") else "\n"
    return head + _list_text(data["matches"], p)


def match_text(m: dict[str, Any]) -> str:
    from client_cli.history import stored_verification

    out = [
        f"match {m['match_id']} in room {m['room']['name']} ({m['pace']}, {m['status']})",
        f"started {_when(m['started_ms'])}, finished {_when(m['finished_ms'])}",
        f"seed commitment {m['seed_commitment']}",
    ]
    if m["seed"]:
        out.append(f"seed {m['seed']}  starter {m['starter']}")
    elif m.get("starter"):
        out.append(f"starter {m['starter']}")
    if (checked := stored_verification(m)) is not None:  # as every client checks a deal
        out.append(checked.summary)
    if m.get("embargoed"):
        out.append(
            "under an embargo: others may still play this deal (a tournament's round, the"
            " day's daily deal); its seed, and to anyone but its players its boards and"
            " scores, are shown once nobody can"
        )
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
    notes = [n["text"] for n in m.get("ranking") or () if isinstance(n, dict) and "text" in n]
    if notes:  # why a board ranks where its score alone would not: the server's words
        out.append("")
        out += notes
    return "\n".join(out) + "\n"


def _render_cells(cells: list[str | None]) -> str:
    lines = ["    a   b   c   d"]
    for row in range(4):
        parts = [(cells[4 * row + col] or "..") for col in range(4)]
        lines.append(f"{row + 1}  " + "  ".join(parts))
    return "\n".join(lines)
