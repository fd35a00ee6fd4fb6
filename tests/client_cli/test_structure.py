"""The client's structure, checked: no import cycles among its modules, none of
its modules reaches into a library's private names, and the screens never import
the app (they reach it through ``client_cli.tui.crib.Crib``).

Every import counts, wherever it stands (inside a function or under
``TYPE_CHECKING`` too): a cycle hidden in a function is still a cycle to a reader.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "client_cli"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in (ROOT / PACKAGE).rglob("*.py")}


def _imports(path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The modules of the package that ``path`` imports."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                if sub in known:
                    yield sub  # "from package import module"
                elif node.module in known:
                    yield node.module


def _graph() -> dict[str, set[str]]:
    known = _modules()
    return {name: set(_imports(path, known)) - {name} for name, path in known.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_client_has_no_import_cycles() -> None:
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_the_screens_do_not_import_the_app() -> None:
    graph = _graph()
    screens = [m for m in graph if m.startswith("client_cli.tui.screens")]
    assert screens
    for module in screens:
        assert "client_cli.tui.app" not in graph[module], module


def test_no_module_overrides_or_calls_a_library_private() -> None:
    """No ``super()._name`` call and no ``_on_…`` override of a library's private hook."""
    for path in (ROOT / PACKAGE).rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name)
                and node.value.func.id == "super"
            ):
                private = node.attr.startswith("_") and not node.attr.startswith("__")
                assert not private, f"{path.name}: super().{node.attr}"
