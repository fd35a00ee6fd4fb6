"""``cribsquares tournament``: host a tournament, list them, show one, export one.

``create`` speaks the WebSocket protocol as the player whose token is saved for
the server (``cribsquares play --name NAME`` saves one); ``list``, ``show`` and
``export`` read the server's HTTP API (docs/tournaments.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import quote, urlencode

from client_cli.config import DEFAULT_SERVER, SERVER_ENV, default_server
from client_cli.safe import visible


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "tournament",
        help="host a tournament, list tournaments, show or export one",
        description="Tournaments on a running server: create one (as your saved player), "
        "list the public ones, show one's standings and rounds, export it as CSV or JSON.",
    )
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True

    def common(q: argparse.ArgumentParser) -> None:
        q.add_argument(
            "--server",
            metavar="URL",
            default=default_server(),
            help=f"server address (default ${SERVER_ENV} or {DEFAULT_SERVER})",
        )

    c = sub.add_parser("create", help="host a new tournament (needs a saved sign-in)")
    common(c)
    c.add_argument("name")
    c.add_argument(
        "--format", metavar="FORMAT",
        help="a format the server hosts (default: its default; another is told the choices)",
    )  # fmt: skip
    c.add_argument("--rounds", type=int, default=5, help="what the format counts: deals, rounds")
    c.add_argument(
        "--best-of", type=int, default=1, help="deals per table, where the format offers it"
    )
    c.add_argument("--pace", choices=["lockstep", "race"], default="lockstep")
    c.add_argument("--card-clock", type=float, default=30, metavar="S", help="lockstep, seconds")
    c.add_argument("--deal-clock", type=float, default=300, metavar="S", help="race, seconds")
    c.add_argument("--round-clock", type=float, metavar="S", help="seconds (default: derived)")
    c.add_argument("--start-in", type=float, metavar="S", help="start by itself in S seconds")
    c.add_argument("--max-players", type=int, default=64)
    c.add_argument("--private", action="store_true", help="unlisted; join with its invite code")
    c.add_argument("--no-bots", action="store_true", help="bots may not enter")
    c.add_argument("--no-late-join", action="store_true", help="no registration after the start")
    c.add_argument("--registered-only", action="store_true", help="guests may not enter")
    c.add_argument("--bots", type=int, default=0, metavar="N", help="enter N server bots")
    c.add_argument("--bot-strategy", default="greedy", metavar="NAME")
    c.add_argument("--json", action="store_true", help="print the tournament object")
    c.set_defaults(func=create)

    ls = sub.add_parser("list", help="the server's public tournaments")
    common(ls)
    ls.add_argument(
        "--status",
        choices=["registering", "playing", "paused", "finished", "cancelled"],
        help="only those in this status (finished: with their winners)",
    )
    ls.add_argument("--json", action="store_true", help="print the server's JSON object")
    ls.set_defaults(func=list_)

    sh = sub.add_parser("show", help="one tournament: standings, rounds, tables")
    common(sh)
    sh.add_argument("id")
    sh.add_argument("--json", action="store_true", help="print the server's JSON object")
    sh.set_defaults(func=show)

    ex = sub.add_parser("export", help="a tournament as CSV or JSON")
    common(ex)
    ex.add_argument("id")
    ex.add_argument("--format", choices=["csv", "json"], default="csv")
    ex.add_argument(
        "--what",
        choices=["standings", "boards"],
        default="standings",
        help="CSV: the standings, or every board",
    )
    ex.add_argument("-o", "--output", metavar="FILE", help="write there instead of stdout")
    ex.set_defaults(func=export)


# ----------------------------------------------------------------------


def _base(server: str) -> str:
    from client_cli.cli import UsageError
    from client_cli.session import SessionError, http_base, normalize_url

    try:
        return http_base(normalize_url(server))
    except SessionError as exc:
        raise UsageError(str(exc)) from None


def _fetch(server: str, path: str, params: dict[str, str] | None = None) -> bytes:
    from client_cli.cli import UsageError

    base = _base(server)
    url = base + path + ("?" + urlencode(params) if params else "")
    try:
        with urllib.request.urlopen(url, timeout=15) as reply:
            return bytes(reply.read())
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            raise UsageError(f"no such tournament on {base}") from None
        raise UsageError(f"{base} answered HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError) as exc:
        from client_cli.reach import unreachable

        raise UsageError(unreachable(base, exc)) from None


def list_(args: argparse.Namespace) -> int:
    params = {"limit": "100", **({"status": args.status} if args.status else {})}
    data = json.loads(_fetch(args.server, "/api/tournaments", params))  # the newest
    if args.json:
        sys.stdout.write(json.dumps(data) + "\n")
        return 0
    rows = data["tournaments"]
    if not rows:
        sys.stdout.write(f"no {args.status} tournaments\n" if args.status else "no tournaments\n")
    from client_cli.tournaments import winners_text

    for t in rows:
        s = t["settings"]
        line = (
            f"{t['id']:<10} {t['status']:<11} {t.get('format_title') or t['format']:<16}"
            f" {s['pace']:<8} {t['entrants']:>3}/{s['max_players']:<3}"
            f" round {t['rounds_played']} ({t.get('length', '')})"
            f"  {t['name']} (host {t['host']['name']})"
        )
        won = winners_text([w["name"] for w in t.get("winners") or []])
        if won:
            line += f", {won}"
        sys.stdout.write(visible(line) + "\n")
    return 0


def show(args: argparse.Namespace) -> int:
    data = json.loads(_fetch(args.server, "/api/tournaments/" + quote(args.id, safe="")))
    if args.json:
        sys.stdout.write(json.dumps(data) + "\n")
        return 0
    sys.stdout.write("\n".join(visible(line) for line in show_lines(data)) + "\n")
    return 0


def show_lines(t: dict[str, Any]) -> list[str]:
    """The tournament as the HTTP API words it: its format's title and length, and
    each standings line's figures under the format's columns."""
    s = t["settings"]
    entered = sum(1 for e in t["entries"] if e["status"] not in ("withdrawn", "removed"))
    lines = [
        f"{t['name']} ({t['id']}): {t.get('format_title') or t['format']}, {s['pace']},"
        f" {t['status']}, hosted by {t['host']['name']}",
        f"{entered} entrant{'s' if entered != 1 else ''}; {t.get('length') or 'length unknown'};"
        f" round {len(t['rounds'])}; commitment {t['commitment']}",
    ]
    standings = t["standings"] or []
    columns = t.get("columns") or []
    if standings:
        lines += ["", "  #  " + f"{'player':<24} " + "  ".join(f"{c:>9}" for c in columns)]
    for row in standings:
        who = row["player"]["name"] + (" (bot)" if row["player"]["bot"] else "")
        cells = row.get("cells") or []  # a line stored before the server worded it: none
        figures = "  ".join(f"{c:>9}" for c in cells)
        status = "" if row["status"] in ("active", "eliminated") else f"  [{row['status']}]"
        lines.append(f"{row['rank']:>3}. {who:<24} {figures}{status}".rstrip())
    for r in t["rounds"]:
        done = sum(1 for x in r["tables"] if x["status"] != "playing")
        lines.append(
            f"round {r['round']}: {done}/{len(r['tables'])} tables done"
            + (f", secret {r['server_secret']}" if r["server_secret"] else "")
        )
    return lines


def export(args: argparse.Namespace) -> int:
    body = _fetch(
        args.server,
        f"/api/tournaments/{quote(args.id, safe='')}/export",
        {"format": args.format, "what": args.what},
    )
    if args.output:  # a file gets the server's bytes as they are
        with open(args.output, "wb") as fh:
            fh.write(body)
        return 0
    # The terminal gets no control character raw (ESC, BEL: a hostile server's CSV)
    from client_cli.safe import visible_lines

    text = visible_lines(body.decode("utf-8", errors="replace"))
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def create(args: argparse.Namespace) -> int:
    from client_cli.cli import UsageError

    message: dict[str, Any] = {
        "type": "create_tournament",
        "name": args.name,
        **({"format": args.format} if args.format else {}),
        "rounds": args.rounds,
        "best_of": args.best_of,
        "pace": args.pace,
        "card_clock_ms": round(args.card_clock * 1000),
        "deal_clock_ms": round(args.deal_clock * 1000),
        "max_players": args.max_players,
        "visibility": "private" if args.private else "public",
        "bots": not args.no_bots,
        "late_join": not args.no_late_join,
        "registered_only": args.registered_only,
    }
    if args.round_clock is not None:
        message["round_clock_ms"] = round(args.round_clock * 1000)
    if args.start_in is not None:
        message["start_in_ms"] = round(args.start_in * 1000)
    _check_create(message, args.bots)
    try:
        info = asyncio.run(_create(args.server, message, args.bots, args.bot_strategy))
    except _Refused as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        sys.stdout.write(json.dumps(info) + "\n")
        return 0
    line = f"tournament {info['id']} created: {info['name']}, {info['format']}"
    if info.get("invite_code"):
        line += f"; invite code {info['invite_code']}"
    sys.stdout.write(visible(line) + "\n")
    sys.stdout.write(visible(f"commitment {info['commitment']}") + "\n")
    if args.start_in is None:
        sys.stdout.write("start it from the terminal client (tournament screen) when ready\n")
    return 0


# The option that sets each field of create_tournament, for the error line.
_OPTIONS = {
    "name": "NAME", "format": "--format", "rounds": "--rounds", "best_of": "--best-of",
    "card_clock_ms": "--card-clock",
    "deal_clock_ms": "--deal-clock", "round_clock_ms": "--round-clock",
    "start_in_ms": "--start-in", "max_players": "--max-players",
}  # fmt: skip


def _check_create(message: dict[str, Any], bots: int) -> None:
    """The options checked as the server will check them, before connecting: one line."""
    from pydantic import ValidationError

    from client_cli.cli import UsageError
    from protocol.tournaments import CreateTournament

    if bots < 0:
        raise UsageError(f"--bots: 0 or more, not {bots}")
    try:
        CreateTournament.model_validate(message)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else ""
        option = _OPTIONS.get(field, field)
        unit = " ms" if field.endswith("_ms") else ""  # the options take seconds
        got = f"{message.get(field)!r}{unit}"
        raise UsageError(f"{option}: {first['msg'].lower()}{unit} (got {got})") from None


class _Refused(Exception):
    pass


async def _create(server: str, message: dict[str, Any], bots: int, strategy: str) -> dict[str, Any]:
    from websockets.asyncio.client import connect

    from client_cli.config import TokenStore
    from client_cli.session import SessionError, describe, normalize_url
    from protocol.fields import PROTOCOL_VERSION
    from protocol.wire import frame_messages

    try:
        url = normalize_url(server)
    except SessionError as exc:
        raise _Refused(str(exc)) from None
    saved = TokenStore().get(url)
    if saved is None:
        raise _Refused(f"no saved sign-in for {url}: run `cribsquares play --name NAME` once")
    try:
        async with connect(url, open_timeout=5, max_size=2**24) as ws:

            async def reply(ref: str) -> dict[str, Any]:
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 15))
                    for got in frame_messages(frame):
                        if got.get("ref") == ref:
                            if got["type"] == "error":
                                raise _Refused(got["reason"])
                            return dict(got)

            await ws.send(
                json.dumps(
                    {
                        "type": "hello",
                        "protocol": PROTOCOL_VERSION,
                        "token": saved.token,
                        "client": "cribsquares-cli",
                        "ref": "h",
                    }
                )
            )
            await reply("h")
            await ws.send(json.dumps({**message, "ref": "c"}))
            info: dict[str, Any] = (await reply("c"))["tournament"]
            if bots:
                await ws.send(
                    json.dumps(
                        {
                            "type": "add_tournament_bot",
                            "tournament_id": info["id"],
                            "strategy": strategy,
                            "count": bots,
                            "ref": "b",
                        }
                    )
                )
                info = (await reply("b"))["tournament"]
            return info
    except _Refused:
        raise
    except (OSError, TimeoutError) as exc:
        raise _Refused(f"cannot reach {url}: {describe(exc)}") from None
    except Exception as exc:  # a closed connection, a bad handshake: one line, no traceback
        raise _Refused(f"{url}: {describe(exc)}") from None
