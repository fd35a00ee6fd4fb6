"""The string literals of a source file that are code, not prose: for the tests that
read what the code says (its SQL, the engines it names)."""

from __future__ import annotations

import ast
from pathlib import Path


def code_strings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every string constant of ``path`` but its docstrings (an
    f-string's literal parts included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]
