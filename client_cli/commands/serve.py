"""``cribsquares serve``: run the game server (WebSocket /ws, /healthz, history API)."""

from __future__ import annotations

import argparse
import logging
import sqlite3

from client_cli.cli import UsageError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the game server",
        description="Run the cribsquares server: WebSocket endpoint /ws, GET /healthz and "
        "the read-only history API. The SQLite database is created on first start.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8765, help="port (0: any free port)")
    parser.add_argument("--db", default="cribsquares.db", metavar="PATH", help="SQLite file")
    parser.add_argument(
        "--grace",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="how long a dropped player keeps its seat (default 60)",
    )
    parser.add_argument(
        "--trust-proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="a reverse proxy's address: count its connections by the client address it "
        "puts last in X-Forwarded-For (repeatable)",
    )
    parser.add_argument(
        "--admin",
        action="append",
        default=[],
        metavar="PLAYER",
        help="a registered person, by player id or name (found once, at start, and kept by"
        " id), who may run any tournament as its host may (repeatable)",
    )
    parser.add_argument(
        "--public-url",
        action="append",
        default=[],
        metavar="URL",
        help="an address people reach the server by, e.g. https://play.example.org behind a"
        " proxy: browser pages from it may open the WebSocket (repeatable)",
    )
    parser.add_argument("--verbose", "-v", action="store_true", help="log every request")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from server.app import ServerConfig
    from server.app import run as run_server
    from server.identity import AdminNotFound

    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    config = ServerConfig(
        host=args.host,
        port=args.port,
        db_path=args.db,
        grace_ms=int(args.grace * 1000),
        trusted_proxies=tuple(args.trust_proxy),
        tournament_admins=tuple(args.admin),
        public_urls=tuple(args.public_url),
    )
    _check_database(args.db)
    try:
        run_server(config, announce=lambda line: print(line, flush=True))
    except AdminNotFound as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        # Port taken or address not local: one line, not a traceback.
        reason = exc.strerror or str(exc)
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {reason}") from None
    return 0


def _check_database(path: str) -> None:
    """Open (and so create) the SQLite file once before the server starts."""
    try:
        sqlite3.connect(path).close()
    except sqlite3.Error as exc:
        raise UsageError(f"cannot open the database {path!r}: {exc}") from None
