"""``cribsquares backup``: a consistent copy of a server's SQLite store, taken while it runs.

SQLite's online backup copies the database a few pages at a time, the commits
still in ``-wal`` included, while the server goes on writing (a copy with ``cp``
may be torn, or miss the last commits). The copy is made under a hidden name
beside ``--to``, checked (``PRAGMA quick_check``), and only then given its name,
so ``--to`` is never half a copy; an existing file is never overwritten. A
PostgreSQL store is backed up with ``pg_dump`` (docs/operations.md, *Backup and
restore*, which also gives the steps of a restore).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from client_cli.cli import UsageError
from client_cli.commands.stored import add_store_options, chosen, shown

PAGES_PER_STEP = 256  # the server's writes go on between two steps of the copy


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "backup",
        help="copy a server's SQLite store consistently, while it runs (an operator's)",
        description="Copy a server's SQLite database with SQLite's online backup, without "
        "stopping play; the copy is checked before it is given its name, and an existing "
        "file is never overwritten. docs/operations.md says how to restore it.",
    )
    add_store_options(parser.add_mutually_exclusive_group())
    parser.add_argument("--to", metavar="FILE", required=True, help="the copy: a new file")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from server.store_url import BadStore, sqlite_path

    store = chosen(args)
    try:
        path = sqlite_path(store)
    except BadStore as exc:
        raise UsageError(str(exc)) from None
    if path is None:
        raise UsageError(
            f"{shown(store)} is a PostgreSQL store: back it up with pg_dump"
            " (docs/operations.md, Backup and restore)"
        )
    source, target = Path(path), Path(args.to)
    if not source.is_file():
        raise UsageError(f"no database at {source}")
    if target.exists():
        raise UsageError(f"{target} exists: a backup never overwrites a file")
    if not target.parent.is_dir():
        raise UsageError(f"no directory {target.parent} for the copy")
    report = copy(source, target)
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(
            f"Copied {source} to {target}: {report['bytes']:,} bytes, schema version"
            f" {report['schema_version']}, {report['series_playing']} series being played,"
            f" in {report['seconds']:.2f} s.\n"
        )
    return 0


def copy(source: Path, target: Path) -> dict[str, Any]:
    """Copy ``source`` to ``target`` (which must not exist) and describe the copy."""
    partial = target.with_name(f".{target.name}.partial")
    started = time.monotonic()
    try:
        partial.unlink(missing_ok=True)
        with (
            contextlib.closing(sqlite3.connect(source, timeout=30)) as src,
            contextlib.closing(sqlite3.connect(partial)) as dst,
        ):
            src.backup(dst, pages=PAGES_PER_STEP)
            check = dst.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise UsageError(f"the copy of {source} failed its check ({check}): not kept")
            report = {
                "source": str(source),
                "to": str(target),
                "schema_version": dst.execute(
                    "SELECT MAX(version) FROM schema_migrations"
                ).fetchone()[0],
                "series_playing": dst.execute(
                    "SELECT COUNT(*) FROM series WHERE status = 'playing'"
                ).fetchone()[0],
            }
        os.link(partial, target)  # fails if ``target`` appeared meanwhile: never overwritten
    except sqlite3.Error as exc:
        raise UsageError(f"{source} could not be copied as a cribsquares store: {exc}") from None
    except FileExistsError:
        raise UsageError(f"{target} exists: a backup never overwrites a file") from None
    finally:
        partial.unlink(missing_ok=True)
    report["bytes"] = target.stat().st_size
    report["seconds"] = round(time.monotonic() - started, 3)
    return report
