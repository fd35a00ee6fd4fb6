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
OWN = {  # the format's own
    "protocol/tournaments.py",
    "server/tournaments/formats/__init__.py",
    "server/tournaments/formats/knockout.py",  # one format's module naming itself
}
FORMS = {  # the clients' forms, still listing the formats
    "server/webclient/js/views/tournaments.js",
    "client_cli/tui/screens/tournament_dialogs.py",
    "client_cli/plain/words.py",
    "client_cli/commands/tournament.py",
}


def test_the_files_that_name_a_format_are_the_documented_ones() -> None:
    naming = {
        str(path.relative_to(ROOT))
        for package in ("engine", "protocol", "server", "client_cli")
        for path in (ROOT / package).rglob("*")
        if path.suffix in (".py", ".js") and NAMES.search(path.read_text(encoding="utf-8"))
    }
    assert naming == OWN | FORMS
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("## Three thought experiments, counted", 1)[1].split("\n## ", 1)[0]
    assert all(f"`{name}`" in section for name in FORMS)
    assert "Now: 7, of which the format's own 3 and 4 clients' forms" in section
