"""No module of engine/, protocol/ or server/ reaches another module's private names,
nor a library's: a name with a leading underscore belongs to the module that made it.

What counts as reaching: ``from m import _name`` from another module; ``x._name``
where the module never defines ``_name`` itself (as a function, class, variable,
argument or ``self._name``/``cls._name`` attribute); ``getattr``/``setattr`` of a
private name given as a string. The one exception is the named adapter of
aiohttp's internals, server/shell/aiohttp_adapters.py, which has a test of its own
(tests/server/test_aiohttp_adapters.py) that fails if aiohttp changes under it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "protocol", "server")
# Underscored names that are public API of Python itself (namedtuple, enum, os).
PYTHON_API = frozenset({
    "_asdict", "_replace", "_fields", "_field_defaults", "_make", "_exit",
    "_missing_", "_value_", "_name_", "_generate_next_value_", "_ignore_",
})  # fmt: skip
ADAPTERS = {"server/shell/aiohttp_adapters.py": frozenset({"_data_received_cb"})}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name not in PYTHON_API


def _defined(tree: ast.AST) -> set[str]:
    """The names a module makes itself."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id in ("self", "cls")
        ):
            names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets
        ):
            names.update(
                c.value
                for c in ast.walk(node.value)
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
            )
    return names


def reaches(source: str) -> Iterator[str]:
    """Every private name of another module or library that ``source`` reaches."""
    tree = ast.parse(source)
    own = _defined(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            for alias in node.names:
                if _private(alias.name):
                    yield f"line {node.lineno}: from {node.module} import {alias.name}"
        elif (isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in own) or (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _private(node.args[1].value)
            and node.args[1].value not in own
        ):
            yield f"line {node.lineno}: {ast.unparse(node)}"


def test_no_module_reaches_another_modules_privates() -> None:
    found: list[str] = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            allowed = ADAPTERS.get(relative, frozenset())
            found += [
                f"{relative} {where}"
                for where in reaches(path.read_text(encoding="utf-8"))
                if not any(name in where for name in allowed)
            ]
    assert found == []


def test_the_check_sees_each_kind_of_reach() -> None:
    source = (
        "from m import _hidden\n"
        "import aiohttp\n"
        "def f(request, other):\n"
        "    request.protocol._data_received_cb = None\n"
        "    getattr(other, '_secret')\n"
        "    return other._cache\n"
    )
    assert len(list(reaches(source))) == 4
    mine = "class A:\n    def __init__(self):\n        self._x = 1\n    def f(self, o):\n"
    assert list(reaches(mine + "        return o._x + self._x\n")) == []
    assert list(reaches("import collections\nP = collections.namedtuple('P', 'a')\n"
                        "P(1)._replace(a=2)\n")) == []  # fmt: skip
