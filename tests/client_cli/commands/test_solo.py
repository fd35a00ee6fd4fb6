"""``cribsquares solo``, played to the end by feeding cell names on stdin."""

from __future__ import annotations

import re

from engine.cards import Card
from engine.deal import commitment, deal
from engine.grid import cell_name
from engine.scoring import score_board
from tests.client_cli.commands.helpers import Runner, assert_one_line_error

ROW_BY_ROW = [cell_name(i) for i in range(16)]


def test_a_whole_game_row_by_row(run_cli: Runner) -> None:
    result = run_cli("solo", "--seed", "friday night", stdin="\n".join(ROW_BY_ROW) + "\n")
    assert result.code == 0 and result.err == ""
    dealt = deal("friday night")
    score = score_board(dealt.cards, dealt.starter)
    out = result.out
    assert f"commitment {commitment('friday night')}" in out
    for number, card in enumerate(dealt.cards, start=1):
        assert f"card {number} of 16: {card}" in out
        assert f"  {card} -> {ROW_BY_ROW[number - 1]}" in out
    assert f"The starter is {dealt.starter}." in out
    assert f"total  {score.total:>3}" in out
    assert "row 1 (a1-d1): 6S 2D 5H 8H" in out
    assert out.rstrip().endswith("cribsquares solo --seed='friday night'")


def test_cells_chosen_are_where_the_cards_go(run_cli: Runner) -> None:
    """From the bottom right backwards: the first card dealt ends in d4."""
    backwards = list(reversed(ROW_BY_ROW))
    result = run_cli("solo", "--seed=demo", stdin="\n".join(backwards) + "\n")
    assert result.code == 0
    dealt = deal("demo")
    board = list(reversed(dealt.cards))
    score = score_board(board, dealt.starter)
    first_row = " ".join(str(c) for c in board[:4])
    assert f"row 1 (a1-d1): {first_row}  = {score.rows[0].total}" in result.out
    assert f"total  {score.total:>3}" in result.out


def test_illegal_and_unknown_cells_are_refused_and_asked_again(run_cli: Runner) -> None:
    answers = ["a1", "d4", "a1", "z9", "", "?", "B1", *ROW_BY_ROW[2:]]
    result = run_cli("solo", "--seed", "demo", stdin="\n".join(answers) + "\n")
    assert result.code == 0
    out = result.out
    assert "cell d4 does not touch a placed card (across, down or diagonally)" in out
    assert "legal cells: b1 a2 b2" in out
    assert "cell a1 already holds KH" in out
    assert "unknown cell 'z9'" in out
    assert "type a cell such as b3" in out
    assert out.count("every later\ncard must touch") == 2, "the rules, once at the start, once on ?"
    assert "  QC -> b1" in out
    # The refused answers were not placements: card 2 was asked for until b1.
    assert out.count("card 2 of 16: QC") == 1
    assert out.count("cell? ") == len(answers)
    assert "total" in out.splitlines()[-3]


def test_end_of_input_abandons_cleanly(run_cli: Runner) -> None:
    result = run_cli("solo", "--seed", "demo", stdin="a1\nb2\n")
    assert result.code == 1
    assert "Traceback" not in result.out + result.err
    lines = result.out.splitlines()
    assert lines[-2] == "Game abandoned (end of input) after 2 of 16 cards."
    assert lines[-1] == "seed 'demo': replay with  cribsquares solo --seed=demo"


def test_quit(run_cli: Runner) -> None:
    result = run_cli("solo", "--seed", "demo", stdin="a1\nq\nb1\n")
    assert result.code == 1
    assert "Game abandoned (you quit) after 1 of 16 cards." in result.out
    assert "card 3 of 16" not in result.out


def test_without_a_seed_one_is_drawn_and_printed(run_cli: Runner) -> None:
    first = run_cli("solo", stdin="\n".join(ROW_BY_ROW) + "\n")
    second = run_cli("solo", stdin="")
    seeds = []
    for result in (first, second):
        match = re.search(r"seed '([0-9a-f]{12})': replay with", result.out)
        assert match, result.out[-200:]
        seeds.append(match.group(1))
    assert seeds[0] != seeds[1]
    dealt = deal(seeds[0])
    assert f"card 1 of 16: {dealt.cards[0]}" in first.out
    assert f"commitment {commitment(seeds[0])}" in first.out
    assert f"The starter is {dealt.starter}." in first.out
    assert isinstance(dealt.starter, Card)


def test_bad_seed(run_cli: Runner) -> None:
    assert_one_line_error(run_cli("solo", "--seed", ""), "the seed is empty")
