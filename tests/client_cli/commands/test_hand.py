"""``cribsquares hand``."""

from __future__ import annotations

import json

import pytest

from engine.cards import Card, parse_cards
from engine.scoring import score_hand
from tests.client_cli.commands.helpers import Runner, assert_one_line_error


def test_the_29_hand_itemized(run_cli: Runner) -> None:
    result = run_cli("hand", "5H", "5D", "5S", "JC", "--starter", "5C")
    assert result.code == 0 and result.err == ""
    lines = result.out.splitlines()
    assert lines[0] == "5H 5D 5S JC  starter 5C"
    items = [line.split() for line in lines[1:-1]]
    assert sum(1 for item in items if item[0] == "fifteen") == 8
    assert ["fifteen", "JC", "5C", "2"] in items
    assert ["fifteen", "5H", "5D", "5S", "2"] in items
    assert sum(1 for item in items if item[0] == "pair") == 6
    assert ["nobs", "JC", "1"] in items
    assert lines[-1].split() == ["total", "29", "(fifteens", "16,", "pairs", "12,", "nobs", "1)"]


def test_runs_and_flush_listed(run_cli: Runner) -> None:
    result = run_cli("hand", "3H", "4H", "5H", "5S", "-s", "5C")
    items = [line.split() for line in result.out.splitlines()[1:-1]]
    assert [item for item in items if item[0] == "run"] == [
        ["run", "3H", "4H", "5H", "3"],
        ["run", "3H", "4H", "5S", "3"],
        ["run", "3H", "4H", "5C", "3"],
    ]
    flush = run_cli("hand", "2H", "4H", "6H", "8H", "-s", "TH").out
    assert "flush    2H 4H 6H 8H TH" in flush
    assert flush.splitlines()[-1].split() == ["total", "5"]


def test_nothing_scores(run_cli: Runner) -> None:
    result = run_cli("hand", "2C", "4D", "6H", "8S", "--starter", "QC")
    assert [line.split() for line in result.out.splitlines()[1:]] == [
        ["nothing", "scores"],
        ["total", "0"],
    ]


@pytest.mark.parametrize(
    "argv",
    [
        ["5H", "5D", "5S", "JC", "--starter", "5C"],
        ["5h", "5d", "5s", "jc", "--starter", "5c"],
        ["5♥", "5♦", "5♠", "J♣", "-s", "5♣"],
    ],
)
def test_json_is_the_engine_to_dict(run_cli: Runner, argv: list[str]) -> None:
    result = run_cli("hand", *argv, "--json")
    assert result.code == 0
    data = json.loads(result.out)
    expected = score_hand(parse_cards(["5H", "5D", "5S", "JC"]), Card.parse("5C")).to_dict()
    assert data == expected
    assert data["total"] == 29
    assert set(data) == {
        "hand", "starter", "fifteens", "pairs", "runs", "flush", "nobs", "points", "total",
    }  # fmt: skip


def test_ten_written_as_10(run_cli: Runner) -> None:
    data = json.loads(run_cli("hand", "5H", "10C", "JD", "QS", "-s", "KH", "--json").out)
    assert data["hand"] == ["5H", "TC", "JD", "QS"]
    assert data["total"] == 12


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["5H", "5D", "5S", "--starter", "5C"], "a hand has 4 cards, got 3"),
        (["5H", "5D", "5S", "JC", "2C", "--starter", "5C"], "a hand has 4 cards, got 5"),
        (["5H", "5D", "5S", "JC", "--starter", "JC"], "JC appears more than once"),
        (["5H", "5D", "5S", "XX", "--starter", "5C"], "unknown card 'XX'"),
        (["5H", "5D", "5S", "JC", "--starter", "11H"], "unknown card '11H'"),
        (["5H", "5D", "5S", "JC"], "--starter"),
        ([], "required"),
        (["5H", "5D", "5S", "JC", "--starter", "5C", "--bogus"], "unrecognized arguments"),
    ],
)
def test_bad_input_is_one_line_on_stderr(run_cli: Runner, argv: list[str], fragment: str) -> None:
    result = run_cli("hand", *argv)
    assert_one_line_error(result, fragment)
    assert result.code == 2
