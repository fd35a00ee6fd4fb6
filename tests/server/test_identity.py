"""Identity over real sockets: admins by id, names on one key, bots that cannot shadow
a person, room and tournament names, and an old database's names keyed and reported."""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from server.identity import AdminNotFound
from server.limits import Quota
from server.storage import NameInUse, Storage, StoredPlayer
from tests.server.live import ROOT, Client, Live, running_server, signed_in
from tests.server.stores import StoreUnderTest

LOTS = Quota(1_000, 60)  # registrations: the names are tested here, not the quota

pytestmark = pytest.mark.timeout(60)


def http(live: Live, path: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(live.http + urllib.parse.quote(path), timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


async def get(live: Live, path: str) -> tuple[int, Any]:
    return await asyncio.to_thread(http, live, path)


async def hello(live: Live, name: str, **extra: Any) -> tuple[Client, dict[str, Any]]:
    client = await Client.connect(live)
    return client, await client.hello(name, **extra)


# ----------------------------------------------------------------------
# Finding 3: admin rights


async def test_admin_rights_belong_to_a_person_never_to_a_name(tmp_path: Path) -> None:
    db = tmp_path / "admin.db"
    async with running_server(db) as live:  # ada registers; nobody is admin yet
        ada = await signed_in(live, "ada")
        host = await signed_in(live, "host")
        tokens = ada.token, host.token
        await ada.close()
        await host.close()
    async with running_server(db, tournament_admins=("ADA",)) as live:  # resolved to her id
        host = await Client.connect(live)
        await host.hello(token=tokens[1])
        await host.send(type="create_tournament", name="private cup", visibility="private", ref="t")
        tid = (await host.until("tournament"))["tournament"]["id"]
        # The attack of the finding: hello as the admin's name, as a bot program.
        for extra in ({"bot": True}, {}, {"guest": True}):
            impostor, welcome = await hello(live, "ada", **extra)
            assert welcome["type"] == "error" and welcome["code"] == "name_taken", welcome
            await impostor.close()
        # Anyone else, whatever its name, gets nothing of an admin's.
        other = await signed_in(live, "ada-bot", bot=True)
        for message in (
            {"type": "get_tournament", "tournament_id": tid},
            {"type": "add_tournament_bot", "tournament_id": tid},
            {"type": "manage_tournament", "tournament_id": tid, "action": "cancel"},
        ):
            await other.send(**message)
            assert (await other.until("error"))["code"] == "tournament_not_found"
        # The admin herself, by her token: her id is the admin's.
        admin = await Client.connect(live)
        await admin.hello(token=tokens[0])
        await admin.send(type="get_tournament", tournament_id=tid)
        seen = await admin.until("tournament", "error")
        assert seen["type"] == "tournament" and seen["tournament"]["invite_code"]
        await admin.send(type="manage_tournament", tournament_id=tid, action="cancel", ref="x")
        cancelled = await admin.until("tournament", "error")
        assert cancelled["type"] == "tournament", cancelled
        for c in (host, other, admin):
            await c.close()


@pytest.mark.slow
async def test_an_admin_must_be_a_registered_person(tmp_path: Path) -> None:
    db = tmp_path / "who.db"
    async with running_server(db) as live:
        for name, extra in (("botty", {"bot": True}), ("visitor", {"guest": True})):
            client = await signed_in(live, name, **extra)
            await client.close()
    for given in ("nobody", "botty", "visitor"):
        with pytest.raises(AdminNotFound):
            async with running_server(db, tournament_admins=(given,)):
                pass
    process = subprocess.run(
        [sys.executable, "-m", "client_cli", "serve", "--port", "0", "--db", str(db),
         "--admin", "botty"],
        cwd=ROOT, capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert process.returncode == 2
    assert "botty" in process.stderr and "a bot, not a registered person" in process.stderr
    assert "Traceback" not in process.stderr


# ----------------------------------------------------------------------
# Finding 4: names


async def test_no_name_that_reads_as_a_taken_one_registers(tmp_path: Path) -> None:
    # Every name tried is a registration: more than the quota on new players (20 an
    # hour per address) lets one address make.
    async with running_server(tmp_path / "names.db", new_players_per_address=LOTS) as live:
        first = {}
        for name in ("Ärger", "Ada", "pay", "José", "bob1"):
            first[name] = await signed_in(live, name)
        taken = ["äRGER", "ada", "ADA", "ａｄａ", "рау", "Jose\u0301", "bobl", "BOB1"]
        refused = {
            " Ada": "begin or end with a space",
            "Ada ": "begin or end with a space",
            "A\u200dda": "U+200D",
            "A\u200cda": "U+200C",
            "A\u034fda": "U+034F",
            "Аda": "one script",  # a Cyrillic А
            "   ": "begin or end with a space",
            ".": "a letter or a digit",
            "\u3164": "U+3164",
            "\u115f": "U+115F",
            "\u1160": "U+1160",
        }
        for n, name in enumerate(taken):
            for k, extra in enumerate(({}, {"bot": True}, {"guest": True})):
                client, reply = await hello(live, name, **extra)
                assert reply["code"] == "name_taken", (name, extra, reply)
                again = await client.hello(f"fresh{n}x{k}", **extra)
                assert again["type"] == "welcome"  # refused, and the connection goes on
                await client.close()
        for name, why in refused.items():
            client, reply = await hello(live, name)
            assert reply["code"] == "bad_message" and why in reply["reason"], (name, reply)
            await client.close()
        client, reply = await hello(live, "ＺＯＥ")
        assert reply["player"]["name"] == "ZOE"  # stored as the letters it is
        await client.close()
        for c in first.values():
            await c.close()


async def test_a_bot_program_cannot_shadow_a_person_and_is_visibly_a_bot(
    tmp_path: Path,
) -> None:
    async with running_server(tmp_path / "shadow.db") as live:
        ada = await signed_in(live, "ada")
        carol = await signed_in(live, "carol")
        # The finding: a bot program signed in first under ada's name.
        shadow, reply = await hello(live, "Ada", bot=True)
        assert reply["code"] == "name_taken"
        await shadow.close()
        # Challenges by name reach ada herself, whatever the case or width.
        await carol.send(type="challenge", opponent="ＡＤＡ", rated=False, ref="c")
        offered = await ada.until("challenge_state")
        assert offered["challenge"]["opponent"]["id"] == ada.id
        await ada.send(type="answer_challenge", challenge_id=offered["challenge"]["id"],
                       accept=False)  # fmt: skip
        # So do the HTTP lookups.
        for path in ("/api/players/ADA/ratings", "/api/players/ａｄａ/matches"):
            status, found = await get(live, path)
            assert status == 200 and found["player"]["id"] == ada.id, (path, found)
        # A bot program holds its own name, and shows as a bot wherever it appears.
        robo = await signed_in(live, "robo", bot=True)
        status, found = await get(live, "/api/players/ROBO/matches")
        assert status == 200 and found["player"] == {
            "id": robo.id, "name": "robo", "guest": False, "bot": True,
        }  # fmt: skip
        await carol.send(type="challenge", opponent="robo", rated=True)
        assert (await carol.until("error"))["code"] == "not_rateable"
        await carol.send(type="challenge", opponent="robo", rated=False)
        state = await robo.until("challenge_state")
        assert state["challenge"]["opponent"]["bot"] is True
        # Guests are found by id only, never by name.
        guest = await signed_in(live, "wanderer", guest=True)
        assert (await get(live, "/api/players/wanderer/matches"))[0] == 404
        assert (await get(live, f"/api/players/{guest.id}/matches"))[0] == 200
        await carol.send(type="challenge", opponent="wanderer", rated=False)
        assert (await carol.until("error"))["code"] == "player_not_found"
        for c in (ada, carol, robo, guest):
            await c.close()


async def test_the_server_keeps_its_guest_and_bot_names(tmp_path: Path) -> None:
    async with running_server(tmp_path / "kept.db", new_players_per_address=LOTS) as live:
        # the finding: all of these registered, beside the server's own "level-3 bot 1"
        for name in ("guest-1a2b", "guest 1a2b", "expert bot 1", "level-3-bot-1", "greedy_bot_1",
                     "greedy.bot.1", "bot-level-3-1"):  # fmt: skip
            for extra in ({}, {"bot": True}):
                client, reply = await hello(live, name, **extra)
                assert reply["code"] == "name_taken" and "kept" in reply["reason"]
                await client.close()
        # a name that reads as a bot's is a bot program's, never a person's or a guest's
        for name in ("expert bot", "GreedyBot"):
            for extra in ({}, {"guest": True}):
                client, reply = await hello(live, name, **extra)
                assert reply["code"] == "name_taken" and "bot programs" in reply["reason"]
                await client.close()
            client, reply = await hello(live, name, bot=True)
            assert reply["type"] == "welcome" and reply["player"]["bot"] is True
            await client.close()
        client, reply = await hello(live, "guest-1a2b", guest=True)
        assert reply["type"] == "welcome"
        await client.close()


# ----------------------------------------------------------------------
# Finding 7, the server's side: room and tournament names


async def test_room_and_tournament_names_hold_printable_text_only(tmp_path: Path) -> None:
    async with running_server(tmp_path / "titles.db") as live:
        ada = await signed_in(live, "ada")
        for kind in ("create_room", "create_tournament"):
            for name in ("\x1b]0;pwned\x07\x1b[2J", "evil\u202etxt.exe", "a\u200bb", "\x9b2J"):
                await ada.send(type=kind, name=name, ref="r")
                error = await ada.until("error")
                assert error["code"] == "bad_message" and error["ref"] == "r", error
                assert "U+" in error["reason"]
        await ada.send(type="create_room", name="  Friday   night ")
        state = await ada.until("room_state")
        assert state["room"]["name"] == "Friday night"
        await ada.send(type="create_tournament", name=" cup ", format="knockout")
        assert (await ada.until("tournament"))["tournament"]["name"] == "cup"
        await ada.close()


async def test_an_old_database_names_clashing_are_kept_reported_and_found_by_id(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "old.db"
    _old_database(db)
    with caplog.at_level(logging.WARNING, logger="server.identity"):
        storage = await Storage.open(db, opened_ms=0)
    reports = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(reports) == 1, reports
    assert "'Ada' (p-1, found by name) shadows 'ada ' (p-2), 'a\\u200dda' (p-3)" in reports[0]
    assert "\x1b" not in reports[0] and "'Bob' (p-4" in reports[0]
    ids = {row[0] for row in sqlite3.connect(db).execute("SELECT id FROM players")}
    assert ids == {"p-1", "p-2", "p-3", "p-4", "p-5", "p-6", "bot-greedy-1"}  # none merged
    assert (await storage.find_player("ADA"))["id"] == "p-1"  # type: ignore[index]
    for pid in ("p-2", "p-3"):
        assert (await storage.find_player(pid))["id"] == pid  # type: ignore[index]
    assert await storage.shadowed_players() == {"p-2", "p-3", "p-5"}
    with pytest.raises(NameInUse):
        await storage.create_player(StoredPlayer("p-9", "ＡＤＡ", False, False), "h9", 0)
    await storage.close()
    # What an operator may do (docs/operations.md): rename one, restart.
    with sqlite3.connect(db) as con:
        con.execute("UPDATE players SET name = 'ada two', name_key = NULL WHERE id = 'p-2'")
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="server.identity"):
        storage = await Storage.open(db, opened_ms=0)
    assert await storage.shadowed_players() == {"p-3", "p-5"}
    assert (await storage.find_player("Ada Two"))["id"] == "p-2"  # type: ignore[index]
    await storage.close()


def _old_database(path: Path) -> None:
    """The players of a database from before keys: names compared with NOCASE only."""
    with sqlite3.connect(path) as con:
        con.executescript(
            """
            CREATE TABLE players (
                id TEXT PRIMARY KEY, name TEXT NOT NULL, guest INTEGER NOT NULL DEFAULT 0,
                bot INTEGER NOT NULL DEFAULT 0, token_hash TEXT UNIQUE,
                created_ms INTEGER NOT NULL);
            CREATE UNIQUE INDEX players_registered_name
                ON players (name COLLATE NOCASE) WHERE guest = 0 AND bot = 0;
            """
        )
        con.executemany(
            "INSERT INTO players VALUES (?, ?, ?, ?, ?, ?)",
            [
                ("p-1", "Ada", 0, 0, "h1", 1),
                ("p-2", "ada ", 0, 0, "h2", 2),
                ("p-3", "a\u200dda", 0, 0, "h3", 3),
                ("p-4", "Bob", 0, 0, "h4", 4),
                ("p-5", "bob", 0, 1, "h5", 5),  # a bot program: NOCASE let it in
                ("p-6", "ada", 1, 0, "h6", 6),  # a guest holds no name: no clash
                ("bot-greedy-1", "greedy bot 1", 0, 1, None, 7),  # the server's own
            ],
        )


async def test_names_keyed_again_without_separators_are_kept_and_reported(
    store: StoreUnderTest, caplog: pytest.LogCaptureFixture
) -> None:
    """A database whose names were keyed before separators stopped counting (version 1
    of the key), on SQLite and on PostgreSQL: the next start keys them again; the six
    accounts of the finding are all kept, the first holds the name, none is merged."""
    storage = await Storage.open(store.target, opened_ms=0)
    await storage.close()
    names = ["John Smith", "John-Smith", "John_Smith", "John.Smith", "JohnSmith",
             "John Smith.", "Alice", "alice.", "Al ice", "Bob"]  # fmt: skip
    for n, name in enumerate(names, 1):
        store.execute(
            "INSERT INTO players (id, name, guest, bot, token_hash, created_ms, name_key)"
            " VALUES ({id}, {name}, 0, 0, {hash}, {n}, {key})",
            {"id": f"p-{n}", "name": name, "hash": f"h{n}", "n": n, "key": f"old key {n}"},
        )
    store.execute("UPDATE settings SET value = '1; unicode 15.0.0' WHERE name = 'name_key'")
    with caplog.at_level(logging.WARNING, logger="server.identity"):
        storage = await Storage.open(store.target, opened_ms=0)
    try:
        (report,) = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert report.startswith("2 names are shared")
        assert (
            "'John Smith' (p-1, found by name) shadows 'John-Smith' (p-2), 'John_Smith'"
            " (p-3), 'John.Smith' (p-4), 'JohnSmith' (p-5), 'John Smith.' (p-6)"
        ) in report
        assert "'Alice' (p-7, found by name) shadows 'alice.' (p-8), 'Al ice' (p-9)" in report
        assert {r[0] for r in store.rows("SELECT id FROM players")} == {
            f"p-{n}" for n in range(1, 11)
        }  # none merged
        assert await storage.shadowed_players() == {"p-2", "p-3", "p-4", "p-5", "p-6", "p-8",
                                                    "p-9"}  # fmt: skip
        for who, pid in (("john_smith", "p-1"), ("ALICE", "p-7"), ("p-5", "p-5"), ("bob", "p-10")):
            assert (await storage.find_player(who))["id"] == pid  # type: ignore[index]
        for taken in ("JOHN.SMITH", "Al-Ice", "bob."):
            with pytest.raises(NameInUse):
                await storage.create_player(StoredPlayer("p-new", taken, False, False), "hx", 0)
        keys = store.rows("SELECT value FROM settings WHERE name = 'name_key'")
        assert keys[0][0].startswith("2; ")
    finally:
        await storage.close()


def test_the_leaderboard_finds_around_a_name_by_its_key() -> None:
    from protocol.fields import PlayerInfo
    from protocol.head_to_head import GetLeaderboard
    from server import errors
    from server.lobby import Lobby

    lobby = Lobby()
    for pid, name, score in (("p-1", "Ada", 1.0), ("p-2", "ada ", 0.0)):
        lobby.ratings.rate("lockstep", (pid, name), ("p-0", "zed"), score, 0)
    nobody = PlayerInfo(id="", name="")
    board = lobby.leaderboard(nobody, GetLeaderboard(around="ＡＤＡ"))
    assert board.around and board.around[0].player.id == "p-1"  # the higher-rated of the two
    lobby.shadowed = {"p-2"}
    assert lobby.leaderboard(nobody, GetLeaderboard(around="ada")).around
    lobby.shadowed = {"p-1", "p-2"}
    with pytest.raises(errors.PlayerNotFound):
        lobby.leaderboard(nobody, GetLeaderboard(around="ada"))


def test_a_shadowed_account_stays_reachable_by_its_id() -> None:
    """Issue "Hostile load, round 4", point 6: after the name-key migration, an account
    shadowed by an older holder of its key (John-Smith beside John Smith) could be
    neither challenged nor found on the leaderboard, by name or by id. By id it is."""
    from protocol.fields import PlayerInfo
    from protocol.head_to_head import GetLeaderboard
    from server.lobby import Lobby

    lobby = Lobby()
    older = PlayerInfo(id="p-1", name="John Smith")
    shadowed = PlayerInfo(id="p-2", name="John-Smith")
    for who, score in ((older, 1.0), (shadowed, 0.0)):
        lobby.ratings.rate("lockstep", (who.id, who.name), ("p-0", "zed"), score, 0)
    lobby.shadowed = {"p-2"}
    for who in (older, shadowed):
        lobby.connect(who, 0)
    lobby.connect(PlayerInfo(id="p-9", name="guest-9", guest=True), 0)
    assert lobby.find_online("John-Smith") == older  # the name is the older holder's
    assert lobby.find_online("p-2") == shadowed  # the id is its own
    assert lobby.find_online("p-9") is None  # a guest is not challenged, by id either
    nobody = PlayerInfo(id="", name="")
    around = lobby.leaderboard(nobody, GetLeaderboard(around="p-2")).around
    assert any(e.player.id == "p-2" for e in around)
    assert lobby.leaderboard(nobody, GetLeaderboard(around="John-Smith")).around[0].player == older
