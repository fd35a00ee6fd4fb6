"""docs/architecture.md, "Three thought experiments, counted": the code files a new
tournament format touches are the ones it lists. Every code file that names a format
(its wire name quoted, or its TournamentFormat member) is found and compared with the
list, so the documented count cannot drift from the code."""

from __future__ import annotations

import re
from pathlib import Path

from tests.code_strings import code_strings

ROOT = Path(__file__).resolve().parent.parent
NAMES = re.compile(
    r"""["'](duplicate|swiss|knockout)["']|TournamentFormat\.(DUPLICATE|SWISS|KNOCKOUT)"""
)
OWN = {  # the format's own: its enum value, its line in FORMATS, its module
    "protocol/tournaments.py",
    "server/tournaments/formats/__init__.py",
    *(f"server/tournaments/formats/{name}.py" for name in ("duplicate", "swiss", "knockout")),
}


def test_the_files_that_name_a_format_are_the_documented_ones() -> None:
    naming = {
        str(path.relative_to(ROOT))
        for package in ("engine", "protocol", "server", "client_cli")
        for path in (ROOT / package).rglob("*")
        if path.suffix in (".py", ".js") and NAMES.search(path.read_text(encoding="utf-8"))
    }
    assert naming == OWN  # no client names one: each offers what the welcome says
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("## Three thought experiments, counted", 1)[1].split("\n## ", 1)[0]
    assert "Now: 3, the format's own, and none in a client" in section


ENGINES = {  # the code files that name an SQL engine: its backend, and where engines differ
    "server/storage/sqlite.py",
    "server/storage/postgres.py",
    "server/store_url.py",
    "server/storage/backends.py",
    "server/storage/schema.py",
    "server/storage/migrations.py",
}


def _naming_an_engine(path: Path) -> bool:
    """Does ``path`` have a string (not a docstring) naming SQLite or PostgreSQL?"""
    return any(
        "sqlite" in text.lower() or "postgres" in text.lower() for _, text in code_strings(path)
    )


def test_another_sql_engine_touches_the_documented_files() -> None:
    """Another engine is its backend and the four files that name the engines; no query
    (every other module of server/storage) names one."""
    naming = {
        str(path.relative_to(ROOT))
        for path in (ROOT / "server").rglob("*.py")
        if _naming_an_engine(path)
    }
    assert naming == ENGINES
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("## Three thought experiments, counted", 1)[1].split("\n## ", 1)[0]
    engine = section.split("**Another SQL engine.**", 1)[1]
    assert "Now 5: its backend module" in engine
    assert all(
        f"`{name}`" in engine
        for name in ENGINES - {"server/storage/sqlite.py", "server/storage/postgres.py"}
    )
