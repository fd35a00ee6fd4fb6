"""``cribsquares serve``: run the game server (WebSocket /ws, /healthz, history API)."""

from __future__ import annotations

import argparse
import dataclasses
import math
import sqlite3
import sys
from typing import Any

from client_cli.cli import UsageError

DEFAULT_PORT = 8765
DEFAULT_GRACE_S = 60.0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the game server",
        description="Run the cribsquares server: WebSocket endpoint /ws, GET /healthz and "
        "the read-only history API. The SQLite database is created on first start. Every "
        "other setting (limits, quotas, timeouts) can be set in a TOML file (--config).",
    )
    # None: not given, so the config file's value (or the default) stands.
    parser.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    parser.add_argument(
        "--port",
        default=None,
        metavar="PORT",
        help=f"1 to 65535, 0: any free port (default {DEFAULT_PORT})",
    )
    parser.add_argument("--db", default=None, metavar="PATH", help="SQLite file")
    parser.add_argument(
        "--store",
        default=None,
        metavar="URL",
        help="where everything is stored: postgresql://USER@HOST:PORT/DB, or a SQLite file"
        " (a path or sqlite:///PATH; default: --db)",
    )
    parser.add_argument(
        "--grace",
        default=None,
        metavar="SECONDS",
        help=f"how long a dropped player keeps its seat (default {DEFAULT_GRACE_S:g})",
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
    parser.add_argument(
        "--redis",
        default=None,
        metavar="URL",
        help="run as one node of a cluster sharing this Redis (redis://HOST:PORT/DB) and the"
        " database with the other nodes (docs/scaling.md); without it, one process alone",
    )
    parser.add_argument(
        "--node-id",
        default=None,
        metavar="ID",
        help="this node's name in the cluster, unique among the nodes (default: made up)",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="a TOML file of settings by name (docs/operations.md); options given here win",
    )
    parser.add_argument(
        "--print-config",
        action="store_true",
        help="print every setting (defaults, the file, the options) as TOML and exit",
    )
    parser.add_argument("--verbose", "-v", action="store_true", help="log every request")
    parser.add_argument(
        "--log-format",
        choices=("text", "json"),
        default="text",
        help="text lines (the default), or one JSON object per line (docs/operations.md, Logs)",
    )
    parser.set_defaults(func=run)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65_535:
        raise UsageError(f"--port: 1 to 65535 (0: any free port), not {text!r}")
    return port


def _seconds(option: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not math.isfinite(value) or value < 0:
        raise UsageError(f"{option}: a number of seconds, 0 or more, not {text!r}")
    return value


def config_from(args: argparse.Namespace) -> Any:
    """The server's settings: the defaults, then the --config file, then the options."""
    from server import config as settings
    from server.config import ServerConfig

    base = ServerConfig(port=DEFAULT_PORT)
    if args.config is not None:
        try:
            base = settings.load(args.config, base)
        except settings.ConfigError as exc:
            raise UsageError(f"--config {exc}") from None
    changes: dict[str, Any] = {}
    if args.host is not None:
        changes["host"] = args.host
    if args.port is not None:
        changes["port"] = _port(args.port)
    if args.db is not None and args.store is not None:
        raise UsageError("--db and --store both name the store: give one")
    if args.db is not None:
        changes["db_path"] = args.db
        changes["store"] = ""
    if args.store is not None:
        changes["store"] = args.store
    if args.grace is not None:
        changes["grace_ms"] = round(_seconds("--grace", args.grace) * 1000)
    if args.trust_proxy:
        changes["trusted_proxies"] = tuple(args.trust_proxy)
    if args.admin:
        changes["tournament_admins"] = tuple(args.admin)
    if args.public_url:
        changes["public_urls"] = tuple(args.public_url)
    if args.redis is not None:
        changes["redis_url"] = args.redis
    if args.node_id is not None:
        changes["node_id"] = args.node_id
    config = dataclasses.replace(base, **changes)
    try:
        settings.check(config)
    except settings.ConfigError as exc:
        raise UsageError(str(exc)) from None
    return config


def run(args: argparse.Namespace) -> int:
    from server import config as settings
    from server.identity import AdminNotFound
    from server.shell import logs
    from server.shell.cluster.leases import JoinRefused
    from server.shell.runtime import run as run_server
    from server.storage.migrations import SchemaTooNew

    config = config_from(args)
    if args.print_config:
        sys.stdout.write(settings.to_toml(config))
        return 0
    logs.configure(args.log_format, args.verbose)
    _check_store(settings.store_of(config))
    try:
        run_server(config, announce=lambda line: print(line, flush=True))
    except AdminNotFound as exc:
        raise UsageError(str(exc)) from None
    except SchemaTooNew as exc:
        raise UsageError(f"cannot use the database: {exc}") from None
    except JoinRefused as exc:
        raise UsageError(f"cannot join the cluster: {exc}") from None
    except OSError as exc:
        # Port taken or address not local: one line, not a traceback.
        reason = exc.strerror or str(exc)
        raise UsageError(f"cannot listen on {config.host}:{config.port}: {reason}") from None
    return 0


def _check_store(store: str) -> None:
    """Open the store once before the server starts: a SQLite file (so creating it),
    or a connection to the PostgreSQL database. One line if it cannot be."""
    from server import store_url
    from server.storage import backends

    if not store_url.is_postgres(store):
        path = store_url.sqlite_path(store)
        try:
            sqlite3.connect(path or store).close()
        except sqlite3.Error as exc:
            raise UsageError(f"cannot open the database {path!r}: {exc}") from None
        return
    try:
        import psycopg
    except ImportError:
        raise UsageError(
            "--store postgresql://…: PostgreSQL needs psycopg:"
            " pip install 'cribsquares[postgresql]'"
        ) from None
    try:
        psycopg.connect(store, connect_timeout=10).close()
    except psycopg.Error as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"cannot open the database {backends.where(store)}: {reason}") from None
