"""Storage writes the times the core decided: every time it stores comes with what it
stores (an event's ``at_ms``, a caller's ``at_ms``), never from a clock of its own.
The one exception is the schema's own record of when a migration was applied."""

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
