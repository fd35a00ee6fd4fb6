"""``cribsquares tally``."""

from __future__ import annotations

import json

from engine.tally import tally
from tests.client_cli.commands.helpers import Runner


def test_json(run_cli: Runner) -> None:
    result = run_cli("tally", "--json")
    assert result.code == 0
    data = json.loads(result.out)
    expected = tally()
    assert data == {
        "counts": list(expected.counts),
        "pairs": 12_994_800,
        "mean": expected.mean,
        "max": 29,
    }
    assert len(data["counts"]) == 30 and data["counts"][29] == 4


def test_human_table(run_cli: Runner) -> None:
    lines = run_cli("tally").out.splitlines()
    assert lines[0].split() == ["score", "pairs", "share"]
    assert lines[1].split() == ["0", "1,009,008", "7.765%"]
    assert lines[30].split() == ["29", "4", "0.000%"]
    assert lines[-1].split() == ["pairs", "12,994,800", "mean", "4.7692", "max", "29"]
