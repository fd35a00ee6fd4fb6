"""``cribsquares deal``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.client_cli.commands.helpers import Runner, assert_one_line_error

VECTORS = json.loads(
    (Path(__file__).parents[2] / "engine" / "data" / "deal_vectors.json").read_text("utf-8")
)["deals"]


def test_human_output_of_the_worked_example(run_cli: Runner) -> None:
    result = run_cli("deal", "friday night")
    assert result.code == 0 and result.err == ""
    assert result.out.splitlines() == [
        "seed        friday night",
        "version     1",
        "commitment  9a894ea32eac851ef36a65d223914eeba4d1a2d00b4982a058e45404f1eeb99e",
        "cards        1:6S   2:2D   3:5H   4:8H   5:8S   6:2H   7:AC   8:JS",
        "             9:9S  10:TS  11:KH  12:JD  13:4H  14:KD  15:JC  16:QH",
        "starter     TH",
    ]


def test_json_matches_the_vectors(run_cli: Runner) -> None:
    for vector in VECTORS:
        result = run_cli("deal", vector["seed"], "--json")
        assert result.code == 0
        data = json.loads(result.out)
        assert data == {
            "seed": vector["seed"],
            "version": 1,
            "commitment": vector["commitment"],
            "cards": vector["cards"],
            "starter": vector["cards"][16],
        }


def test_bad_seeds(run_cli: Runner) -> None:
    assert_one_line_error(run_cli("deal", ""), "the seed is empty")
    assert_one_line_error(run_cli("deal", "x" * 257), "longer than 256 bytes")
    assert_one_line_error(run_cli("deal", "bad\udcff"), "not valid Unicode")
    assert_one_line_error(run_cli("deal"), "SEED")
