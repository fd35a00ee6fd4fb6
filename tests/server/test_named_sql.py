"""The storage's SQL is written once with named parameters, and each backend marks
them as its driver binds them: nothing is rewritten by pattern, no query names
``rowid``, and no query of the storage has a ``?`` placeholder left."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from server.storage import postgres, sqlite
from server.storage.sql import in_list, parts
from tests.code_strings import code_strings

ROOT = Path(__file__).resolve().parents[2]
POSITIONAL = re.compile(r"[\s(,=<>]\?(?=[\s),]|$)")  # a ``?`` where a value goes
SQL_WORDS = ("SELECT ", "INSERT ", "UPDATE ", "DELETE ", " WHERE ", " VALUES ")


def test_a_template_s_parts_are_read_by_python_s_format_parser() -> None:
    found = parts("SELECT * FROM t WHERE a = {a} AND b LIKE 'x%' AND c = '{{}}'")
    assert [name for _, name in found if name] == ["a"]
    assert (
        "".join(text for text, _ in found)
        == "SELECT * FROM t WHERE a =  AND b LIKE 'x%' AND c = '{}'"
    )
    assert sqlite.marked("x = {a} AND y = {b_2}") == "x = :a AND y = :b_2"
    assert postgres.marked("x = {a} AND y LIKE '5%'") == "x = %(a)s AND y LIKE '5%%'"
    for bad in ("x = {}", "x = {a!r}", "x = {a:>3}", "x = {a.b}", "x = {0}"):
        with pytest.raises(ValueError, match="a query's parameter is"):
            parts(bad)


def test_an_in_list_names_each_value() -> None:
    text, args = in_list("id", ["a", "b", "c"])
    assert text == "{id_0}, {id_1}, {id_2}"
    assert args == {"id_0": "a", "id_1": "b", "id_2": "c"}
    assert sqlite.marked(f"id IN ({text})") == "id IN (:id_0, :id_1, :id_2)"


def _sql_strings(path: Path) -> list[tuple[int, str]]:
    """The string constants of ``path`` that read as SQL (f-strings' literal parts too)."""
    return [
        (line, text)
        for line, text in code_strings(path)
        if any(word in text.upper() for word in SQL_WORDS)
    ]


def test_no_query_has_a_positional_placeholder_or_names_rowid() -> None:
    storage = [
        *sorted((ROOT / "server" / "storage").glob("*.py")),
        ROOT / "server" / "visibility.py",
    ]
    offending = []
    for path in storage:
        for line, text in _sql_strings(path):
            if POSITIONAL.search(text):
                offending.append(f"{path.name}:{line}: {text[:60]!r}")
            if "rowid" in text and path.name != "schema.py":
                offending.append(f"{path.name}:{line}: rowid in {text[:60]!r}")
    assert offending == []
