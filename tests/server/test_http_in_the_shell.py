"""HTTP lives in the shell: no module of server/ outside server/shell imports aiohttp,
and the routes ask the desks' queries rather than reaching into their machines."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found


def test_only_the_shell_speaks_http() -> None:
    outside = [
        str(path.relative_to(SERVER))
        for path in sorted(SERVER.rglob("*.py"))
        if "shell" not in path.relative_to(SERVER).parts and "aiohttp" in _imports(path)
    ]
    assert outside == []


def test_no_route_reaches_into_the_directors() -> None:
    for path in sorted((SERVER / "shell").glob("*http*.py")):
        assert ".directors" not in path.read_text(encoding="utf-8"), path.name
