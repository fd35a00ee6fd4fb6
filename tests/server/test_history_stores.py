"""`cribsquares history` and `analyze` read what a real server stored, on either store."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.server.live import server_process
from tests.server.stores import StoreUnderTest
from tests.server.test_restart import play_solo

ROOT = Path(__file__).resolve().parents[2]
FAST = ("--simulations", "200", "--budget", "2000")
pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "client_cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


async def play_solo_on(store: str) -> dict:  # type: ignore[type-arg]
    """alice's solo match on a real server storing in ``store``; its result."""
    with server_process(store) as (_, live):
        _, _, result = await play_solo(live)
    return result


async def test_history_and_analyze_read_the_store_the_server_wrote(
    store: StoreUnderTest,
) -> None:
    result = await play_solo_on(store.target)
    match_id = result["match_id"]
    score = result["boards"][0]["score"]["total"]

    recent = cli("history", "--store", store.target, "--json")
    assert recent.returncode == 0, recent.stderr
    [listed] = json.loads(recent.stdout)["matches"]
    assert listed["match_id"] == match_id and listed["status"] == "finished"

    mine = cli("history", "alice", "--store", store.target)
    assert mine.returncode == 0, mine.stderr
    assert f"rank 1, {score} points" in mine.stdout

    whole = json.loads(
        cli("history", "--store", store.target, "--match", match_id, "--json").stdout
    )
    assert whole["seed"] == result["seed"]
    assert [b["score"] for b in whole["boards"]] == [score]

    analysed = cli("analyze", match_id, "--store", store.target, "--json", *FAST)
    assert analysed.returncode == 0, analysed.stderr
    [board] = json.loads(analysed.stdout)["boards"]
    assert board["player"] == "alice" and board["analysis"]["score"] == score

    unknown = cli("history", "--store", store.target, "--match", "no-such-match")
    assert unknown.returncode == 2
    assert unknown.stderr.count("\n") == 1 and "no match no-such-match" in unknown.stderr


@pytest.mark.parametrize("command", ["history", "analyze"])
def test_a_store_that_cannot_be_read_is_one_line(command: str, tmp_path: Path) -> None:
    """Refused, unreachable, not a cribsquares database: one line, exit status 2, and a
    password in the URL is not printed."""
    junk = tmp_path / "junk.db"
    junk.write_text("not a database\n")
    match = ["some-match"] if command == "analyze" else []
    for store, fragment in [
        ("postgresql://ada:hunter2@127.0.0.1:9/cribsquares", "cannot read postgresql://ada:***@"),
        (str(junk), "could not be read as a cribsquares store"),
        (str(tmp_path / "missing.db"), "no database at"),
        ("redis://127.0.0.1/0", "a path, sqlite:///PATH or postgresql://"),
    ]:
        done = cli(command, *match, "--store", store)
        assert done.returncode == 2, (store, done.stdout)
        assert done.stderr.count("\n") == 1 and fragment in done.stderr, done.stderr
        assert "hunter2" not in done.stderr


def test_db_and_store_are_one_or_the_other() -> None:
    done = cli("history", "--db", "a.db", "--store", "b.db")
    assert done.returncode == 2 and "not allowed with argument --db" in done.stderr


async def test_the_same_lines_as_before_on_a_file(tmp_path: Path) -> None:
    """`--db PATH` and `--store PATH` name the same file and print the same."""
    db = tmp_path / "s.db"
    await play_solo_on(str(db))
    by_db, by_store = cli("history", "--db", str(db)), cli("history", "--store", str(db))
    assert by_db.returncode == by_store.returncode == 0
    assert by_db.stdout == by_store.stdout and "1 player" in by_db.stdout
