"""``cribsquares serve``: run the game server (WebSocket /ws, /healthz, history API)."""

from __future__ import annotations

import argparse
import asyncio
import logging


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
    parser.add_argument("--verbose", "-v", action="store_true", help="log every request")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from server.app import ServerConfig, serve

    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    config = ServerConfig(
        host=args.host, port=args.port, db_path=args.db, grace_ms=int(args.grace * 1000)
    )
    asyncio.run(serve(config, announce=lambda line: print(line, flush=True)))
    return 0
