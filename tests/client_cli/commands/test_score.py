"""``cribsquares score``: a board, and JSON Lines batches."""

from __future__ import annotations

import json

import pytest

from engine.cards import Card, parse_cards
from engine.deal import deal
from engine.scoring import score_board, score_hand
from tests.client_cli.commands.helpers import Runner, assert_one_line_error

# The board worked out line by line in tests/engine/test_scoring.py: 97 points.
ROWS = [
    ["5H", "5D", "5S", "JC"],
    ["TH", "JD", "QS", "KH"],
    ["AH", "2S", "3D", "4C"],
    ["9C", "8D", "7H", "6S"],
]
BOARD = [card for row in ROWS for card in row]


def test_board_itemized(run_cli: Runner) -> None:
    result = run_cli("score", *BOARD, "--starter", "5C")
    assert result.code == 0 and result.err == ""
    out = result.out
    lines = out.splitlines()
    assert lines[0] == "starter 5C"
    assert "1  5H  5D  5S  JC  = 29" in lines
    assert "4  9C  8D  7H  6S  =  9" in lines
    assert "   10  10  10  10" in lines
    assert "row 1 (a1-d1): 5H 5D 5S JC  = 29" in lines
    assert "row 2 (a2-d2): TH JD QS KH  = 12" in lines
    assert "column d (d1-d4): JC KH 4C 6S  = 10" in lines
    assert "  nobs     JC               1" in lines
    assert "  run      AH 2S 3D 4C 5C   5" in lines
    assert [line.split() for line in lines[-3:]] == [
        ["lines", "97"],
        ["heels", "0"],
        ["total", "97", "a", "win"],
    ]


def test_heels_and_no_win(run_cli: Runner) -> None:
    cards = [str(c) for c in deal("demo").cards]  # no jack of hearts among them
    result = run_cli("score", *cards, "--starter", "JH")
    score = score_board(parse_cards(cards), Card.parse("JH"))
    assert score.heels == 2 and not score.win
    assert "heels    2  (the starter is a jack)" in result.out
    assert result.out.splitlines()[-1] == f"total  {score.total:>3}  no win: 61 needed"


def test_json_is_the_engine_to_dict(run_cli: Runner) -> None:
    result = run_cli("score", *BOARD, "-s", "5c", "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data == score_board(parse_cards(BOARD), Card.parse("5C")).to_dict()
    assert set(data) == {"starter", "rows", "columns", "heels", "total", "win"}
    assert [row["total"] for row in data["rows"]] == [29, 12, 7, 9]
    assert (data["total"], data["win"]) == (97, True)


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        ([*BOARD[:15], "--starter", "5C"], "a board has 16 cards, got 15"),
        ([*BOARD, "--starter", "5H"], "5H appears more than once"),
        ([*BOARD[:15], "5H", "--starter", "2C"], "5H appears more than once"),
        (BOARD, "--starter"),
        ([], "16 cards"),
        ([*BOARD[:15], "1Z", "--starter", "2C"], "unknown card '1Z'"),
        (["--jsonl", "5H"], "--jsonl reads its cards from stdin"),
        (["--jsonl", "--starter", "5H"], "--jsonl reads its cards from stdin"),
        (["--jsonl", "--json"], "not allowed with"),
    ],
)
def test_bad_arguments_are_one_line_on_stderr(
    run_cli: Runner, argv: list[str], fragment: str
) -> None:
    assert_one_line_error(run_cli("score", *argv), fragment)


def _jsonl(*objects: object) -> str:
    return "".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objects)


def test_jsonl_good_and_bad_lines_in_order(run_cli: Runner) -> None:
    hand = {"hand": ["5H", "5D", "5S", "JC"], "starter": "5C"}
    board = {"board": ROWS, "starter": "5C"}
    stdin = _jsonl(
        hand,
        "not json",
        {"hand": ["5H", "5D", "5S"], "starter": "5C"},
        board,
        {"hand": ["5H", "5D", "5S", "5C"], "starter": "5C"},
        {"hand": ["5H", "5D", "5S", "QQ"], "starter": "5C"},
        {"hand": ["5H", "5D", "5S", "JC"]},
        "",
        {"board": ROWS[:3], "starter": "5C"},
        {"board": [*ROWS[:3], ROWS[3][:3]], "starter": "2C"},
        {"board": [*ROWS[:3], [*ROWS[3][:3], "5H"]], "starter": "2C"},
        {"hand": ["2C", "4D", "6H", "8S"], "starter": "QC"},
        ["5H"],
        {"hand": ["5H", "5D", "5S", "JC"], "board": ROWS, "starter": "5C"},
        {"hand": ["5H", "5D", "5S", "JC"], "starter": "5C", "extra": 1},
        {"hand": "5H 5D 5S JC", "starter": "5C"},
        {"hand": [5, 5, 5, 11], "starter": "5C"},
        {"board": "rows", "starter": "5C"},
        {"board": [*ROWS[:3], "9C 8D 7H 6S"], "starter": "5C"},
    )
    result = run_cli("score", "--jsonl", stdin=stdin)
    assert result.err == ""
    assert result.code == 1, "some lines were errors"
    out = [json.loads(line) for line in result.out.splitlines()]
    assert [o["line"] for o in out] == list(range(1, 20)), "one answer per line, in order"

    hand_score = score_hand(parse_cards(hand["hand"]), Card.parse("5C")).to_dict()
    assert out[0] == {"line": 1, **hand_score}
    assert out[3] == {"line": 4, **score_board(parse_cards(BOARD), Card.parse("5C")).to_dict()}
    assert out[3]["total"] == 97
    assert out[11]["total"] == 0 and "error" not in out[11]
    codes = {o["line"]: o["error"]["code"] for o in out if "error" in o}
    assert codes == {
        2: "bad_json",
        3: "bad_count",
        5: "duplicate_card",
        6: "bad_card",
        7: "bad_input",
        8: "bad_json",
        9: "bad_count",
        10: "bad_count",
        11: "duplicate_card",
        13: "bad_input",
        14: "bad_input",
        15: "bad_input",
        16: "bad_input",
        17: "bad_card",
        18: "bad_input",
        19: "bad_input",
    }
    reasons = {o["line"]: o["error"]["reason"] for o in out if "error" in o}
    assert "4 cards, got 3" in reasons[3]
    assert "QQ" in reasons[6]
    assert "starter" in reasons[7]
    assert "blank line" in reasons[8]
    assert "row 4 has 3 cards" in reasons[10]
    assert "extra" in reasons[15]
    for o in out:
        assert set(o) == {"line", "error"} or "total" in o


def test_jsonl_all_good_exits_zero(run_cli: Runner) -> None:
    lines = [{"hand": ["AC", "2D", "3H", "4S"], "starter": "5C"}] * 3
    result = run_cli("score", "--jsonl", stdin=_jsonl(*lines).replace("\n", "\r\n"))
    assert result.code == 0
    assert [json.loads(line)["total"] for line in result.out.splitlines()] == [7, 7, 7]


def test_jsonl_empty_input(run_cli: Runner) -> None:
    result = run_cli("score", "--jsonl", stdin="")
    assert (result.code, result.out, result.err) == (0, "", "")


def test_jsonl_survives_hostile_lines(run_cli: Runner) -> None:
    good = _jsonl({"hand": ["5H", "5D", "5S", "JC"], "starter": "5C"}).encode()
    stdin = (
        b"\xff\xfe not utf-8\n"
        + b"[" * 100_000
        + b"\n"
        + b'{"hand": ' + b"1" * 5000 + b"}\n"
        + good
    )  # fmt: skip
    result = run_cli("score", "--jsonl", stdin=stdin)
    out = [json.loads(line) for line in result.out.splitlines()]
    assert [o.get("error", {}).get("code") for o in out] == ["bad_json"] * 3 + [None]
    assert out[3]["total"] == 29
    assert "UTF-8" in out[0]["error"]["reason"]
    assert result.code == 1 and "Traceback" not in result.err
