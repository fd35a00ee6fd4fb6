"""``cribsquares backup``: a copy taken while a match is played restores to a server that
resumes that match (issue "Running it for real", *Backups*), by the steps
docs/operations.md gives; so does a pg_dump of a PostgreSQL store; and what the
command refuses, each in one line."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import shutil
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from client_cli.cli import main
from tests.server.live import running_server, signed_in, solo_three_placed
from tests.services import postgres


class Played(NamedTuple):
    token: str
    room_id: str
    card: dict[str, Any]  # her fourth card, dealt before the backup


pytestmark = pytest.mark.timeout(60)


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exc:  # argparse's own refusals
            status = int(exc.code or 0)
    return status, out.getvalue(), err.getvalue()


async def backed_up_mid_match(store: str, back_up: Callable[[], Awaitable[None]]) -> Played:
    """alice's solo match on a server on ``store``: three cards placed, ``back_up``
    awaited while it waits for her fourth, which she then places (after the backup:
    a restore loses it, as the docs say)."""
    async with running_server(store) as live:  # type: ignore[arg-type]
        alice, room_id, card = await solo_three_placed(live, "alice")
        await back_up()
        await alice.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])
        await alice.until("placed")
        await alice.close()
        assert alice.token is not None
        return Played(alice.token, room_id, card)


async def resumed_from_the_backup(store: str, played: Played) -> None:
    """A server on the restored ``store`` gives alice back her fourth card, three
    placements on her board, and takes it."""
    async with running_server(store) as live:  # type: ignore[arg-type]
        back = await signed_in(live, None, token=played.token)  # type: ignore[arg-type]
        state = await back.until("room_state")
        assert state["room"]["id"] == played.room_id
        you, card = state["you"], played.card
        assert (you["turn"], you["card"], len(you["placements"])) == (card["turn"], card["card"], 3)
        await back.send(type="place", room_id=played.room_id, turn=you["turn"],
                        cell=you["legal"][0])  # fmt: skip
        assert (await back.until("placed"))["turn"] == card["turn"]
        await back.close()


async def test_a_backup_taken_mid_match_restores_to_a_server_that_resumes_it(
    tmp_path: Path,
) -> None:
    db, copy = tmp_path / "live.db", tmp_path / "copy.db"

    async def back_up() -> None:  # while the server runs
        status, out, err = await asyncio.to_thread(
            cli, "backup", "--db", str(db), "--to", str(copy), "--json"
        )
        assert status == 0, err
        report: dict[str, Any] = json.loads(out)
        assert report["series_playing"] == 1 and report["bytes"] == copy.stat().st_size > 0
        assert report["schema_version"] >= 6

    played = await backed_up_mid_match(str(db), back_up)
    # The restore, as docs/operations.md gives it: the server stopped, its -wal and -shm
    # gone, the copy over the file.
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(copy, db)
    await resumed_from_the_backup(str(db), played)


async def test_a_pg_dump_taken_mid_match_restores_to_a_server_that_resumes_it(
    postgres_cluster: postgres.Cluster, tmp_path: Path
) -> None:
    """PostgreSQL: the pg_dump and pg_restore commands docs/operations.md gives."""
    pg = postgres_cluster
    source, target = pg.create_database("live"), pg.create_database("restored")
    dump = tmp_path / "cribsquares.dump"

    async def back_up() -> None:
        done = await asyncio.to_thread(
            subprocess.run,
            [str(pg.bin / "pg_dump"), "--format=custom", "--file", str(dump), pg.url(source)],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr

    played = await backed_up_mid_match(pg.url(source), back_up)
    done = subprocess.run(
        [str(pg.bin / "pg_restore"), "--no-owner", "--dbname", pg.url(target), str(dump)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    await resumed_from_the_backup(pg.url(target), played)


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
