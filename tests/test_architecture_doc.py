"""docs/architecture.md stays a true map: every path it names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
PACKAGES = ("engine/", "protocol/", "server/", "client_cli/", "tests/", "docs/", "benchmarks/")


def named_paths(text: str) -> set[str]:
    """Every `path` in backquotes that starts with one of the tree's folders."""
    return {p for p in re.findall(r"`([A-Za-z_./]+)`", text) if p.startswith(PACKAGES)}


def test_every_path_the_architecture_names_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    named = named_paths(text) | set(re.findall(r"\b(tests/[\w/]+\.py)\b", text))
    assert len(named) > 40  # the map names the modules, not a few of them
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert missing == []


def test_the_check_sees_a_path_that_does_not_exist() -> None:
    assert named_paths("the room (`server/room/machine.py`), `server/nowhere.py`") == {
        "server/room/machine.py",
        "server/nowhere.py",
    }
    assert not (ROOT / "server/nowhere.py").exists()
