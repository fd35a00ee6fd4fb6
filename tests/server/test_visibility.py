"""The embargo and the listing rule, case by case: a tournament table's spectator,
the stored embargo across a restart and its lifting, a database made before
embargoes, a cancelled round, private rooms in public lists, and log lines."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from protocol.deals import MatchResult, Place, Progress
from protocol.prepared import Prepared, progress_message
from protocol.rooms import AddBot, CreateRoom, JoinRoom, RoomState, StartMatch
from protocol.tournaments import (
    AddTournamentBot,
    CreateTournament,
    JoinTournament,
    ManageTournament,
)
from server import visibility
from server.bots import bot_factory, think
from server.config import LobbyConfig
from server.events import (
    CardPlaced,
    EmbargoLifted,
    MatchBegan,
    MatchEnded,
    SeriesBegan,
    TournamentRoundEnded,
    TournamentSnapshot,
)
from server.lobby import Lobby
from server.requests import OpenTable
from server.room import BotTurn, Outbound, Room
from server.storage import Storage, StoredPlayer
from server.tournaments.director import Director
from server.tournaments.result import DirectorResult
from tests.server.roomkit import ALICE, BOB, SPECTATOR, FixedIds

CUP = CreateTournament(name="cup", format="duplicate", rounds=2, pace="lockstep",
                       card_clock_ms=60_000)  # fmt: skip


def lobby(think_elsewhere: bool = False) -> Lobby:
    return Lobby(LobbyConfig(between_rounds_ms=1_000), ids=FixedIds(), bots=bot_factory,
                 think_elsewhere=think_elsewhere)  # fmt: skip


class Run:
    """A pure lobby whose events go to storage as the server's would."""

    def __init__(self, storage: Storage) -> None:
        self.lobby, self.storage = lobby(think_elsewhere=True), storage
        self.outs: list[Outbound] = []
        self.turns: list[BotTurn] = []  # the bots' turns asked for, not answered yet

    async def do(self, step: Callable[..., list[Outbound]], *args: Any) -> list[Outbound]:
        """Run ``step(*args)`` as the server runs a lobby step; store what it decided."""
        output = self.lobby.run(lambda: step(*args))
        self.outs += output.messages
        self.turns += output.bot_turns
        await self.storage.persist(output.events)
        return output.messages


async def duplicate_with_alice_at_card_one(run: Run) -> tuple[Director, Room, list[Room]]:
    """alice and two greedy bots in a duplicate field; SPECTATOR watches every table.
    The bots' tables finish; alice's holds card 1."""
    lb = run.lobby
    for p in (ALICE, SPECTATOR):
        await run.do(lb.connect, p, 0)
    await run.do(lb.handle, ALICE, CUP, 0)
    (director,) = lb.tournaments.directors.values()
    await run.do(lb.handle, ALICE, JoinTournament(tournament_id=director.id, contribution="a"), 0)
    await run.do(lb.handle, ALICE, AddTournamentBot(tournament_id=director.id, count=2), 0)
    await run.do(lb.handle, ALICE, ManageTournament(tournament_id=director.id, action="start"), 0)
    tables = [lb.rooms[t.room_id] for t in director.rounds[0].tables if t.room_id in lb.rooms]
    mine = next(r for r in tables if r.seat_of(ALICE.id))
    for room in tables:
        join = JoinRoom(invite_code=room.invite_code, spectate=True)
        await run.do(lb.handle, SPECTATOR, join, 1)
    while run.turns:
        turns, run.turns = run.turns, []
        for turn in turns:
            await run.do(lb.bot_move, turn.room_id, turn.player_id, turn.turn, think(turn), 2)
    return director, mine, tables


async def alice_plays_out(run: Run, room: Room, now: int) -> None:
    while (you := room.view_for(ALICE.id, now).you) is not None and you.turn is not None:
        place = Place(room_id=room.id, turn=you.turn, cell=you.legal[0])
        await run.do(run.lobby.handle, ALICE, place, now)


async def test_a_finished_table_is_shown_to_its_spectator_and_the_api_once_the_round_is_over(
    tmp_path: Path,
) -> None:
    storage = await Storage.open(tmp_path / "db", opened_ms=0)
    run = Run(storage)
    director, mine, tables = await duplicate_with_alice_at_card_one(run)
    bots_table = next(r for r in tables if r is not mine)
    # The bots' table is over; it stays open while its spectator watches.
    m = bots_table.match
    assert m is not None and m.result is not None
    state = bots_table.view_for(SPECTATOR.id, 10)
    assert state.result is None and state.seed_commitment  # no result, the commitments
    with pytest.raises(AssertionError, match="embargo"):
        bots_table.out.address([SPECTATOR.id], m.result)
    shown = await storage.match(m.id)
    assert shown is not None and shown["status"] == "finished" and shown["embargoed"]
    assert shown["seed"] is None and shown["server_secret"] is None and shown["starter"] is None
    # Nor its scores, ranks or notes: alice, still at card 1, would learn what the deal is worth.
    assert all(set(b) == {"seat", "player", "contribution"} for b in shown["boards"])
    assert shown["ranking"] == []
    # A bot of that table sees it whole, but for the seed and the secret.
    seen = await storage.match(m.id, viewer=shown["boards"][0]["player"]["id"])
    assert seen is not None and seen["seed"] is None and seen["server_secret"] is None
    assert seen["starter"] and all(len(b["cells"]) == 16 and b["score"] for b in seen["boards"])
    assert await storage.tournament_boards(director.id) == []
    # A restart: the storage is read again, and the embargo still holds.
    await storage.close()
    storage = await Storage.open(tmp_path / "db", opened_ms=0)
    run.storage = storage
    assert (await storage.match(m.id) or {})["seed"] is None
    # alice finishes: the round is over, the spectator gets the result, the API the seed.
    before = len(run.outs)
    await alice_plays_out(run, mine, 20)
    assert director.rounds[0].finished
    states = [
        o.message
        for o in run.outs[before:]
        if SPECTATOR.id in o.to
        and isinstance(o.message, RoomState)
        and o.message.room.id == bots_table.id
    ]
    assert states and states[-1].result == m.result.model()
    shown = await storage.match(m.id)
    assert shown is not None and not shown["embargoed"] and shown["seed"] == m.seed
    assert all(len(b["cells"]) == 16 for b in shown["boards"])
    assert len(await storage.tournament_boards(director.id)) == 3
    # Only alice's own result went to alice; the bots' tables' results to no one.
    results = [o for o in run.outs if isinstance(o.message, MatchResult)]
    assert all(o.to == (ALICE.id,) for o in results)
    await storage.close()


async def test_a_tournament_tables_spectator_is_shown_no_card_while_it_is_played(
    tmp_path: Path,
) -> None:
    """Every table of a round plays the same cards, out of step: the card alice holds
    may be one another table has not reached, so her table's room shows none."""
    storage = await Storage.open(tmp_path / "db", opened_ms=0)
    run = Run(storage)
    _, mine, _ = await duplicate_with_alice_at_card_one(run)
    state = mine.view_for(SPECTATOR.id, 10)
    assert state.progress is not None and state.progress.dealt is None
    shown = [
        o.message.model() if isinstance(o.message, Prepared) else o.message
        for o in run.outs
        if SPECTATOR.id in o.to
    ]
    progresses = [m for m in shown if isinstance(m, Progress)]
    assert progresses and all(m.dealt is None for m in progresses)
    with pytest.raises(AssertionError, match="not every player holds"):
        mine.out.address([SPECTATOR.id], progress_message(mine.id, 1, {}, {}, None, (1, "5H")))
    await storage.close()


def test_the_card_everyone_holds() -> None:
    assert visibility.common_turn(True, 5, [5, 4, 16], None) == 5  # lockstep: the turn's
    assert visibility.common_turn(False, 9, [9, 4, 16], None) == 4  # race: the lowest
    assert visibility.common_turn(False, 1, [0, 3], None) is None  # not everyone has one
    assert visibility.common_turn(True, 5, [5, 5], "t1/1") is None  # a round's embargo
    assert visibility.common_turn(False, 5, [5], "daily/2026-03-14") is None
    # Cards the server placed for a player without sending them are not held by it.
    assert visibility.common_turn(True, 16, [], None, sent=[3]) == 3  # the others left
    assert visibility.common_turn(False, 16, [16], None, sent=[2, 6]) == 2  # a deal clock


async def test_a_database_made_before_embargoes_embargoes_its_rounds_in_play(
    tmp_path: Path,
) -> None:
    db = tmp_path / "old.db"
    storage = await Storage.open(db, opened_ms=0)
    run = Run(storage)
    _, _, tables = await duplicate_with_alice_at_card_one(run)
    finished = [r.match.id for r in tables if r.match and r.match.result]
    await storage.close()
    with sqlite3.connect(db) as conn:  # what an earlier version left
        conn.execute("ALTER TABLE matches DROP COLUMN embargo")
        conn.execute("DROP TABLE embargoes")
        conn.execute("DROP TABLE schema_migrations")  # versions came later
    storage = await Storage.open(db, opened_ms=0)
    for mid in finished:
        shown = await storage.match(mid)
        assert shown is not None and shown["embargoed"] and shown["seed"] is None
    await storage.close()


def test_cancelling_a_round_reveals_it_once_its_tables_are_stopped() -> None:
    lb = lobby()
    lb.connect(ALICE, 0)
    lb.handle(ALICE, CUP, 0)
    (director,) = lb.tournaments.directors.values()
    lb.handle(ALICE, JoinTournament(tournament_id=director.id, contribution="a"), 0)
    lb.handle(ALICE, AddTournamentBot(tournament_id=director.id, count=1), 0)
    start = ManageTournament(tournament_id=director.id, action="start")
    lb.run(lambda: lb.handle(ALICE, start, 0))
    cancel = ManageTournament(tournament_id=director.id, action="cancel")
    events = lb.run(lambda: lb.handle(ALICE, cancel, 5)).events
    ended = [e for e in events if isinstance(e, TournamentRoundEnded)]
    lifted = [e for e in events if isinstance(e, EmbargoLifted)]
    assert [e.round for e in ended] == [1] and ended[0].server_secret == director.rounds[0].secret
    assert [e.embargo for e in lifted] == [visibility.round_embargo(director.id, 1)]
    assert director.info(5).history[0].server_secret  # verifiable, though cancelled


async def test_private_rooms_are_not_listed_public_and_rated_ones_are(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "db", opened_ms=0)
    await storage.create_player(StoredPlayer(ALICE.id, ALICE.name, False, False), "h", 0)
    run = Run(storage)
    lb = run.lobby
    await run.do(lb.connect, ALICE, 0)
    ids = {}
    for name, visibility_ in (("open", "public"), ("hidden", "private")):
        await run.do(lb.handle, ALICE, CreateRoom(name=name, seats=2, visibility=visibility_), 0)
        room = next(r for r in lb.rooms.values() if r.settings.name == name)
        await run.do(lb.handle, ALICE, AddBot(room_id=room.id, strategy="greedy"), 0)
        await run.do(lb.handle, ALICE, StartMatch(room_id=room.id), 0)
        assert room.match is not None
        ids[name] = room.match.id
    listed = await storage.player_matches(ALICE.id)
    assert listed is not None and [m["match_id"] for m in listed["matches"]] == [ids["open"]]
    assert [m["match_id"] for m in await storage.recent_matches(10)] == [ids["open"]]
    assert await storage.match(ids["hidden"]) is not None  # by its id, for its members
    await storage.close()


def test_no_repr_names_a_secret_or_a_card() -> None:
    lb = lobby()
    lb.connect(ALICE, 0)
    lb.connect(BOB, 0)
    lb.handle(ALICE, CUP, 0)
    (director,) = lb.tournaments.directors.values()
    for p in (ALICE, BOB):
        lb.handle(p, JoinTournament(tournament_id=director.id, contribution="c"), 0)
    asked: list[object] = []  # what the start asks of the tables' rooms
    manage = director.manage

    def recording(*args: Any, **kwargs: Any) -> DirectorResult:
        stepped = manage(*args, **kwargs)
        asked.extend(stepped.requests)
        return stepped

    director.manage = recording  # type: ignore[method-assign]
    start = ManageTournament(tournament_id=director.id, action="start")
    events: list[Any] = lb.run(lambda: lb.handle(ALICE, start, 0)).events
    rooms = list(lb.rooms.values())
    secrets = {director.rounds[0].secret, *(s for r in rooms for s in r.series.secrets)}
    secrets |= {r.series.root for r in rooms} | {r.match.seed for r in rooms if r.match}
    room = rooms[0]
    you = room.view_for(room.seats[0].player.id, 0).you
    assert you is not None and you.turn is not None
    player = room.seats[0].player
    place = Place(room_id=room.id, turn=you.turn, cell=you.legal[0])
    events += lb.run(lambda: lb.handle(player, place, 1)).events
    kinds = (MatchBegan, SeriesBegan, CardPlaced, MatchEnded, TournamentSnapshot,
             TournamentRoundEnded)  # fmt: skip
    logged = [repr(e) for e in events if isinstance(e, kinds)]
    assert any("MatchBegan" in t for t in logged) and any("CardPlaced" in t for t in logged)
    card = you.card
    assert card is not None
    for text in logged:
        assert not any(s in text for s in secrets), text
        assert f"'{card}'" not in text and f"'{you.legal[0]}'" not in text, text
    opened = [r for r in asked if isinstance(r, OpenTable)]
    assert opened and len(opened) == len(asked)
    hidden = secrets | {r.root for r in opened}  # a table's root is secret too
    assert not any(s in repr(r) for r in opened for s in hidden)
