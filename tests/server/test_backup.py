"""``cribsquares backup``: a copy taken while a match is played restores to a server that
resumes that match (issue "Running it for real", *Backups*, for SQLite), by the steps
docs/operations.md gives; and what it refuses, each in one line."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from client_cli.cli import main
from tests.server.live import running_server, signed_in

pytestmark = pytest.mark.timeout(60)


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exc:  # argparse's own refusals
            status = int(exc.code or 0)
    return status, out.getvalue(), err.getvalue()


async def test_a_backup_taken_mid_match_restores_to_a_server_that_resumes_it(
    tmp_path: Path,
) -> None:
    db, copy = tmp_path / "live.db", tmp_path / "copy.db"
    async with running_server(db) as live:
        alice = await signed_in(live, "alice")
        await alice.send(type="create_room", name="solo", seats=1, card_clock_ms=60_000)
        room_id = (await alice.until("room_state"))["room"]["id"]
        await alice.send(type="ready", room_id=room_id)
        for _ in range(3):
            card = await alice.until("card")
            await alice.send(type="place", room_id=room_id, turn=card["turn"],
                             cell=card["legal"][0])  # fmt: skip
            await alice.until("placed")
        card = await alice.until("card")
        # Taken while the server runs, the match waiting for her fourth card.
        status, out, err = await asyncio.to_thread(
            cli, "backup", "--db", str(db), "--to", str(copy), "--json"
        )
        assert status == 0, err
        report: dict[str, Any] = json.loads(out)
        assert report["series_playing"] == 1 and report["bytes"] == copy.stat().st_size > 0
        assert report["schema_version"] >= 6
        # Played after the backup: the restore loses it, as the docs say.
        await alice.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])
        await alice.until("placed")
        await alice.close()
        token = alice.token
    # The restore, as docs/operations.md gives it: the server stopped, its -wal and -shm
    # gone, the copy over the file.
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(copy, db)
    async with running_server(db) as live:
        back = await signed_in(live, None, token=token)  # type: ignore[arg-type]
        state = await back.until("room_state")
        assert state["room"]["id"] == room_id
        you = state["you"]  # her fourth card again, three placements on her board
        assert (you["turn"], you["card"], len(you["placements"])) == (card["turn"], card["card"], 3)
        await back.send(type="place", room_id=room_id, turn=you["turn"], cell=you["legal"][0])
        assert (await back.until("placed"))["turn"] == card["turn"]
        await back.close()


def test_what_a_backup_refuses_is_one_line(tmp_path: Path) -> None:
    taken = tmp_path / "taken.db"
    taken.write_text("")
    cases = {
        ("--db", str(tmp_path / "none.db"), "--to", str(tmp_path / "a.db")): "no database at",
        ("--db", str(taken), "--to", str(taken)): "a backup never overwrites a file",
        ("--store", "postgresql://u@127.0.0.1:1/db", "--to", str(tmp_path / "b.db")): "pg_dump",
        ("--db", str(taken), "--to", str(tmp_path / "no" / "c.db")): "no directory",
    }
    for argv, said in cases.items():
        status, out, err = cli("backup", *argv)
        assert status == 2 and out == "" and said in err and len(err.splitlines()) == 1, err
    not_a_store = tmp_path / "other.db"
    not_a_store.write_bytes(b"not a database" * 100)
    status, _, err = cli("backup", "--db", str(not_a_store), "--to", str(tmp_path / "d.db"))
    assert status == 2 and "could not be copied" in err and len(err.splitlines()) == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db", "taken.db"]  # nothing left
