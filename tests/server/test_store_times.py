"""Storage writes the times the core decided, and the store seam stands on neutral
record types: every time it stores comes with what it stores (an event's ``at_ms``, a
caller's ``at_ms``), never from a clock of its own. The one exception is the
schema's own record of when a migration was applied."""

from __future__ import annotations

import ast
from pathlib import Path

STORAGE = Path(__file__).resolve().parents[2] / "server" / "storage"
OWN_CLOCK = {"migrations.py"}  # schema_migrations.applied_ms: the schema's, not the game's


def test_storage_reads_no_wall_clock() -> None:
    readers: list[str] = []
    for path in sorted(STORAGE.glob("*.py")):
        if path.name in OWN_CLOCK:
            continue
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
