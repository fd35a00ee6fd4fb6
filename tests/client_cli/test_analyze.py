"""``cribsquares analyze``: a seed and typed moves, a stored match, and the refusals."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from client_cli.cli import main
from engine.deal import deal
from tests.client_cli.commands.helpers import Result, assert_one_line_error
from tests.server.live import Client, running_server

pytestmark = pytest.mark.timeout(60)

ROW_BY_ROW = [f"{col}{row}" for row in "1234" for col in "abcd"]
# Small budgets: the figures are deterministic, only the search is shorter.
FAST = ("--simulations", "200", "--budget", "2000")


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., Result]:
    def go(*argv: str) -> Result:
        try:
            code = main(["analyze", *argv])
        except SystemExit as exit_:
            code = int(exit_.code or 0)
        out = capsys.readouterr()
        return Result(code, out.out, out.err)

    return go


def test_a_seed_and_sixteen_moves(run: Callable[..., Result]) -> None:
    result = run("--seed", "friday night", "--moves", *ROW_BY_ROW, *FAST)
    assert result.code == 0, result.err
    out = result.out
    assert "as played: 39 points" in out and "hindsight best:" in out
    assert "best found within a budget" in out or "proved optimal" in out
    table = out[out.index("turn  card  played  expert  loss") :].splitlines()
    assert len(table) == 17 and table[1].split()[:3] == ["1", "6S", "a1"]
    assert 1 <= out.count("<- costly") <= 3


def test_the_json_is_the_analysis_with_its_inputs(run: Callable[..., Result]) -> None:
    result = run("--seed", "friday night", "--moves", *ROW_BY_ROW, "--json", *FAST)
    assert result.code == 0, result.err
    doc = json.loads(result.out)
    assert doc["source"] == "seed" and doc["seed"] == "friday night" and doc["match_id"] is None
    assert (doc["simulations"], doc["budget"]) == (200, 2000)
    [board] = doc["boards"]
    assert board["player"] is None and board["rank"] is None
    a = board["analysis"]
    d = deal("friday night")
    assert a["cards"] == [str(c) for c in d.cards] and a["starter"] == str(d.starter)
    assert a["placements"] == ROW_BY_ROW and a["score"] == 39
    h = a["hindsight"]
    assert h["score"] >= 39 and sorted(h["cells"]) == sorted(a["cards"])
    assert len(a["moves"]) == 16 and all(m["loss"] >= 0 for m in a["moves"])
    assert a["total_loss"] == pytest.approx(sum(m["loss"] for m in a["moves"]), abs=0.01)


def test_a_partial_game_gets_the_best_completion(run: Callable[..., Result]) -> None:
    result = run("--seed", "s", "--moves", *ROW_BY_ROW[:9], "--json", *FAST)
    a = json.loads(result.out)["boards"][0]["analysis"]
    assert a["score"] is None and len(a["moves"]) == 9
    # 7 free cards: every completion is tried, so the board is proved optimal
    assert a["hindsight"]["optimal"] and a["hindsight"]["method"] == "exhaustive"
    assert a["hindsight"]["placements"][:9] == ROW_BY_ROW[:9]
    text = run("--seed", "s", "--moves", *ROW_BY_ROW[:9], *FAST).out
    assert "9 of 16 placed" in text and "best completion" in text and "proved optimal" in text


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (("--seed", "s", "--moves", "a1", "c3"), "move 2 (c3)"),
        (("--seed", "s", "--moves", "a1", "a1"), "already holds"),
        (("--seed", "s", "--moves", "a1", "z9"), "unknown cell"),
        (("--seed", "s", "--moves", *ROW_BY_ROW, "a1"), "got 17"),
        (("--seed", "s"), "--seed needs --moves"),
        (("m1", "--seed", "s", "--moves", "a1"), "not both"),
        (("--moves", "a1"), "--moves goes with --seed"),
        ((), "give a MATCH_ID"),
        (("m1", "--db", "no-such-file.db"), "no database at"),
        (("--seed", "s", "--moves", "a1", "--simulations", "0"), "at least 1"),
    ],
)
def test_bad_input_is_one_line_on_stderr(
    run: Callable[..., Result], argv: tuple[str, ...], fragment: str
) -> None:
    assert_one_line_error(run(*argv), fragment)


async def test_a_match_played_on_a_real_server(tmp_path: Path, run: Callable[..., Result]) -> None:
    db = tmp_path / "server.db"
    async with running_server(db) as live:
        ada = await Client.connect(live)
        await ada.hello("ada")
        await ada.send(type="create_room", name="solo", seats=1)
        room_id = (await ada.until("room_state"))["room"]["id"]
        await ada.send(type="ready", room_id=room_id)
        result = await ada.play_to_end(room_id)
        await ada.close()
        match_id = result["match_id"]
        score = result["boards"][0]["score"]["total"]
        from_server = await asyncio.to_thread(run, match_id, "--server", live.url, "--json", *FAST)
        unknown = await asyncio.to_thread(run, "no-such-match", "--server", live.url)
    assert_one_line_error(unknown, "no match no-such-match")
    doc = json.loads(from_server.out)
    assert doc["source"] == "server" and doc["match_id"] == match_id and doc["seed"]
    [board] = doc["boards"]
    assert board["player"] == "ada" and board["rank"] == 1
    assert board["analysis"]["score"] == score
    assert board["analysis"]["cards"] == [str(c) for c in deal(doc["seed"]).cards]

    # the database the server left behind gives the same analysis
    from_db = await asyncio.to_thread(run, match_id, "--db", str(db), "--json", *FAST)
    assert json.loads(from_db.out)["boards"] == doc["boards"]
    text = await asyncio.to_thread(run, match_id, "--db", str(db), "--player", "ADA", *FAST)
    assert f"match {match_id}: 1 board(s)" in text.out and "board of ada (rank 1)" in text.out
    assert f"as played: {score} points" in text.out
    assert_one_line_error(
        await asyncio.to_thread(run, match_id, "--db", str(db), "--player", "bob"),
        "no board of bob",
    )
    assert_one_line_error(await asyncio.to_thread(run, "nope", "--db", str(db)), "no match nope")
