"""The web client's modules import each other without a cycle, as the Python
packages do (import-linter's contract): each ES module's static imports, read
from its source, form a graph with no circle, and every import names a file
that exists."""

from __future__ import annotations

import re
from pathlib import Path

JS = Path(__file__).resolve().parents[2] / "server" / "webclient" / "js"
IMPORT = re.compile(r"""^\s*import\s[^;]*?from\s+["'](\.{1,2}/[^"']+)["']""", re.M | re.S)


def _graph() -> dict[Path, set[Path]]:
    graph: dict[Path, set[Path]] = {}
    for module in sorted(JS.rglob("*.js")):
        text = module.read_text(encoding="utf-8")
        graph[module] = {(module.parent / target).resolve() for target in IMPORT.findall(text)}
    return graph


def test_every_import_names_a_module_of_the_client() -> None:
    graph = _graph()
    missing = {
        f"{m.relative_to(JS)} -> {t}" for m, targets in graph.items() for t in targets
        if t not in graph
    }  # fmt: skip
    assert not missing, missing
    assert sum(len(t) for t in graph.values()) > 20  # the pattern reads the imports


def test_the_web_clients_imports_have_no_cycle() -> None:
    graph = _graph()
    state: dict[Path, int] = {}  # 1: on the path being walked, 2: done
    cycles: list[str] = []

    def walk(module: Path, path: list[Path]) -> None:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                ring = [*path[path.index(target) :], target]
                cycles.append(" -> ".join(str(m.relative_to(JS)) for m in ring))
            elif target not in state:
                walk(target, [*path, target])
        state[module] = 2

    for module in graph:
        if module not in state:
            walk(module, [module])
    assert cycles == [], cycles
