"""Issue "The core redesign, step 1", point 3: a restart never abandons on a bug.

A start resumes every series and tournament being played. Only the restore's
documented refusals (server.recovery.Unresumable) abandon one; any other exception
(here a restore made to raise, as a bug of a release would) sets it aside as stored:
nothing of it is written but one row of ``quarantine``, ``cribsquares quarantined``
lists it, and a start of a release that resumes it plays it on and clears the row.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from client_cli.cli import main
from server.lobby import Lobby
from server.recovery import Unresumable
from server.tournaments.hosting import TournamentDesk
from tests.server.live import running_server, signed_in, solo_three_placed
from tests.server.test_tournaments_live import FAST, host_with_bots

pytestmark = pytest.mark.timeout(60)


async def quarantined(db: Path) -> list[dict[str, Any]]:
    """What ``cribsquares quarantined --json`` lists (run as from the command line)."""
    return await asyncio.to_thread(_listed, db)


def _listed(db: Path) -> list[dict[str, Any]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["quarantined", "--db", str(db), "--json"]) == 0
    games: list[dict[str, Any]] = json.loads(out.getvalue())["games"]
    return games


def row(db: Path, sql: str, *args: object) -> tuple[Any, ...]:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        found = conn.execute(sql, args).fetchone()
    assert found is not None, sql
    return tuple(found)


async def a_solo_series_begun(db: Path) -> tuple[str, str, dict[str, Any]]:
    """alice's solo room, three cards placed, then the server stops: her token, the
    room's id and the card she was dealt next."""
    async with running_server(db) as live:
        alice, room_id, card = await solo_three_placed(live, "alice")
        await alice.close()
        assert alice.token is not None
        return alice.token, room_id, card


def broken(*_: object, **__: object) -> None:
    raise RuntimeError("a bug of this release")


def refused(*_: object, **__: object) -> None:
    raise Unresumable("the stored seed is not the series'")


async def test_a_series_whose_restore_raises_is_set_aside_then_resumed_by_a_later_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "aside.db"
    token, room_id, card = await a_solo_series_begun(db)
    series_id = row(db, "SELECT id FROM series WHERE room_id = ?", room_id)[0]
    with monkeypatch.context() as patched:
        patched.setattr(Lobby, "restore", broken)
        async with running_server(db):
            pass
    # As stored: neither the series nor its deal is abandoned; one record says why.
    assert row(db, "SELECT status FROM series WHERE id = ?", series_id) == ("playing",)
    assert row(db, "SELECT status FROM matches WHERE series_id = ?", series_id) == ("playing",)
    assert row(db, "SELECT COUNT(*) FROM abandonments") == (0,)
    [aside] = await quarantined(db)
    assert aside["kind"] == "series" and aside["id"] == series_id
    assert aside["reason"] == "RuntimeError: a bug of this release" and aside["release"]
    # A release whose restore works: the series plays on from her fourth card.
    async with running_server(db) as live:
        alice = await signed_in(live, None, token=token)  # type: ignore[arg-type]
        state = await alice.until("room_state")
        assert state["room"]["id"] == room_id
        you = state["you"]  # her card, as she was dealt it before the restarts
        assert (you["turn"], you["card"]) == (card["turn"], card["card"]), you
        await alice.send(type="place", room_id=room_id, turn=you["turn"], cell=you["legal"][0])
        assert (await alice.until("placed"))["turn"] == card["turn"]
        await alice.close()
    assert await quarantined(db) == []


async def test_a_documented_refusal_abandons_the_series_and_sets_nothing_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "refused.db"
    _, room_id, _ = await a_solo_series_begun(db)
    with monkeypatch.context() as patched:
        patched.setattr(Lobby, "restore", refused)
        async with running_server(db):
            pass
    assert row(db, "SELECT status FROM series WHERE room_id = ?", room_id) == ("abandoned",)
    assert await quarantined(db) == []


@pytest.mark.slow  # a round begun: about two seconds
async def test_a_tournament_whose_restore_raises_is_set_aside_with_its_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "cup.db"
    async with running_server(db, **FAST) as live:
        clients, tid = await host_with_bots(live, "swiss", ["alice"], 3, rounds=2)
        await clients[0].until("match_started", timeout=20)  # round 1 is being played
        for c in clients:
            await c.close()
    tables = row(db, "SELECT COUNT(*) FROM series WHERE status = 'playing'")[0]
    assert tables >= 1
    with monkeypatch.context() as patched:
        patched.setattr(TournamentDesk, "restore", broken)
        async with running_server(db, **FAST):
            pass
    assert row(db, "SELECT status FROM tournaments WHERE id = ?", tid) == ("playing",)
    assert row(db, "SELECT COUNT(*) FROM series WHERE status = 'playing'") == (tables,)
    assert [(g["kind"], g["id"]) for g in await quarantined(db)] == [("tournament", tid)]
    async with running_server(db, **FAST):
        pass
    assert await quarantined(db) == []
    assert row(db, "SELECT status FROM tournaments WHERE id = ?", tid) != ("abandoned",)


@pytest.mark.parametrize("versions", [5, 0])
def test_a_store_from_before_the_quarantine_lists_nothing(tmp_path: Path, versions: int) -> None:
    """A store last started by a release from before games could be set aside (its
    schema older than the quarantine's migration): nothing is set aside in it, and the
    operator is told so, not that the store cannot be read. A database that is not a
    store of ours is still refused."""
    from server.storage import migrations
    from server.storage.backends import backend_for

    db = tmp_path / "old.db"
    if versions:
        writer = backend_for(str(db)).open_writer()
        try:
            with writer.transaction() as tx:
                migrations.migrate(tx, migrations.MIGRATIONS[:versions], at_ms=0)
        finally:
            writer.close()
        assert _listed(db) == []
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["quarantined", "--db", str(db)]) == 0
        assert out.getvalue().startswith("No game is set aside")
    else:
        with contextlib.closing(sqlite3.connect(db)) as conn:
            conn.execute("CREATE TABLE unrelated (x INTEGER)")
            conn.commit()
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            assert main(["quarantined", "--db", str(db)]) != 0
        assert "could not be read as a cribsquares store" in err.getvalue()
