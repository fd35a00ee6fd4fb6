"""The installed ``cribsquares`` console script, run as a real process.

The in-process tests in ``commands/`` cover the behaviour; these check what
only a real process shows: the entry point is installed, exit statuses reach
the shell, errors are one line without a traceback, and piped stdin works.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cards import parse_cards
from engine.deal import deal
from engine.grid import cell_name
from engine.scoring import score_board, score_hand

pytestmark = pytest.mark.slow


def _command() -> list[str]:
    # The script next to this interpreter, as installed with the package;
    # "python -m client_cli" is the same entry point when it is not on disk.
    script = shutil.which("cribsquares", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "client_cli"]


def run(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*_command(), *argv],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )


def test_the_console_script_is_installed() -> None:
    assert shutil.which("cribsquares", path=str(Path(sys.executable).parent)), (
        "pip install -e . puts cribsquares next to python"
    )


def test_hand_json() -> None:
    result = run("hand", "5H", "5D", "5S", "JC", "--starter", "5C", "--json")
    assert result.returncode == 0, result.stderr
    expected = score_hand(parse_cards(["5H", "5D", "5S", "JC"]), parse_cards(["5C"])[0])
    assert json.loads(result.stdout) == expected.to_dict()


@pytest.mark.parametrize(
    "argv",
    [
        ["hand", "5H", "5D", "5S", "ZZ", "--starter", "5C"],  # refused by the engine
        ["no-such-command"],  # refused by argparse
    ],
)
def test_refusals_are_one_line_without_traceback(argv: list[str]) -> None:
    result = run(*argv)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("cribsquares")
    assert "Traceback" not in result.stderr


def test_jsonl_through_a_pipe() -> None:
    stdin = (
        '{"hand": ["5H", "5D", "5S", "JC"], "starter": "5C"}\n'
        "{oops\n"
        '{"hand": ["AC", "2D", "3H", "4S"], "starter": "5C"}\n'
    )
    result = run("score", "--jsonl", stdin=stdin)
    assert result.returncode == 1
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["line"] for o in out] == [1, 2, 3]
    assert (out[0]["total"], out[1]["error"]["code"], out[2]["total"]) == (29, "bad_json", 7)


def test_solo_through_a_pipe() -> None:
    backwards = [cell_name(i) for i in reversed(range(16))]  # d4 first, a1 last
    answers = [backwards[0], "a1", *backwards[1:]]  # a1 touches nothing yet: refused
    result = run("solo", "--seed", "pipe", stdin="\n".join(answers) + "\n")
    assert result.returncode == 0, result.stderr
    assert "cell? a1\n  cell a1 does not touch a placed card" in result.stdout
    dealt = deal("pipe")
    assert f"  {dealt.cards[0]} -> d4" in result.stdout
    assert f"  {dealt.cards[15]} -> a1" in result.stdout
    score = score_board(list(reversed(dealt.cards)), dealt.starter)
    assert f"total  {score.total:>3}" in result.stdout
    assert result.stdout.rstrip().endswith("cribsquares solo --seed=pipe")
    assert "Traceback" not in result.stdout + result.stderr


def test_bare_cribsquares_prints_the_help() -> None:
    done = run()
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: cribsquares")
    for command in ("hand", "tally", "play", "tournament"):
        assert command in done.stdout
    assert done.stderr == ""
