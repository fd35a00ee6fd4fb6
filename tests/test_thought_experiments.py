"""docs/architecture.md, "Three thought experiments, counted": the code files a new
tournament format touches are the ones it lists. Every code file that names a format
(its wire name quoted, or its TournamentFormat member) is found and compared with the
list, so the documented count cannot drift from the code."""

from __future__ import annotations

import re
from pathlib import Path

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
