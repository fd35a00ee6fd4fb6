"""``--plain``'s help fits a terminal of 80 columns: no line wraps, every command is
still there, each description under the one column (it had lines of 85 to 93)."""

from __future__ import annotations

from client_cli.plain.words import HELP, HELP_TEXT, WIDTH, fit


def test_no_line_of_the_help_wraps_at_80_columns() -> None:
    assert max(len(line) for line in HELP.splitlines()) <= WIDTH


def test_every_command_and_word_is_kept() -> None:
    words = HELP_TEXT.split()
    assert HELP.split() == words  # reflowed, not cut
    for command in ("rooms", "quickplay", "daily schedule", "addbots ID", "quit"):
        assert command in HELP


def test_a_description_is_reflowed_under_its_column() -> None:
    text = "  a            one two three four five six\n               seven eight\n"
    assert fit(text, 30) == (
        "  a            one two three\n               four five six\n               seven eight\n"
    )
