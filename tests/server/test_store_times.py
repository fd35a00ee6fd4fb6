"""Storage writes the times the core decided, and the store seam stands on neutral
record types: every time it stores comes with what it stores (an event's ``at_ms``, a
caller's ``at_ms``), never from a clock of its own; the schema's record of when a
migration was applied is the opener's time too (``Storage.open(opened_ms=...)``)."""

from __future__ import annotations

import ast
from pathlib import Path

STORAGE = Path(__file__).resolve().parents[2] / "server" / "storage"


def test_storage_reads_no_wall_clock() -> None:
    readers: list[str] = []
    for path in sorted(STORAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and (node.value.id, node.attr) in {("time", "time"), ("time", "time_ns"),
                                                   ("datetime", "now"), ("clock", "now_ms")}
            ):  # fmt: skip
                readers.append(f"{path.name}:{node.lineno}")
    assert readers == []


def test_the_store_seam_imports_nothing_of_its_implementation() -> None:
    """server/store.py, the Protocol the server runs on, takes its record types from the
    neutral server/records.py, not from server/storage (its implementation)."""
    seam = STORAGE.parent / "store.py"
    tree = ast.parse(seam.read_text(encoding="utf-8"))
    imported = {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module is not None
    }
    assert not any(m == "server.storage" or m.startswith("server.storage.") for m in imported)
    assert "server.records" in imported


async def test_a_migration_is_recorded_at_the_time_the_opener_gives(tmp_path: Path) -> None:
    import sqlite3

    from server.storage import Storage, migrations

    db = tmp_path / "fresh.db"
    await (await Storage.open(db, opened_ms=1_234_567)).close()
    with sqlite3.connect(db) as conn:
        applied = conn.execute("SELECT version, applied_ms FROM schema_migrations").fetchall()
    assert applied == [(m.version, 1_234_567) for m in migrations.MIGRATIONS]
