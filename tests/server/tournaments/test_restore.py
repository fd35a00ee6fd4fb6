"""A director rebuilt from its snapshot is the director it was: every observable the
same, and it goes on exactly as the original would (property-tested over random
tournaments); the clocks skip the time the server was away; a table whose room
could not be rebuilt ends with the deals it finished; the snapshot is stored,
read back and dropped once the tournament is over."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.fields import PlayerInfo
from protocol.tournaments import (
    AddTournamentBot,
    CreateTournament,
    JoinTournament,
    ManageTournament,
    TournamentFormat,
)
from server.bots import bot_factory
from server.config import LobbyConfig
from server.events import Event, TournamentCreated, TournamentSnapshot
from server.lobby import Lobby
from server.requests import Forfeit, OpenTable, StopTable
from server.room.restore import restore as restore_room
from server.storage import Storage, StoredPlayer
from server.tournaments.director import SNAPSHOT_INTERVAL_MS, Director
from server.tournaments.formats import settings_for, swiss
from server.tournaments.model import Phase, Request
from server.tournaments.result import DirectorResult
from server.tournaments.snapshot import SettingsRecord, settings_json
from tests.server.roomkit import (
    ALICE,
    BOB,
    CAROL,
    FixedIds,
    Mailbox,
    events_of,
    make_room,
    place,
    seat_and_start,
)

PEOPLE = [PlayerInfo(id=f"id-p{i}", name=f"p{i}") for i in range(6)]


def new_director(fmt: str, rounds: int, late_join: bool, tables: Tables | None = None) -> Director:
    """A new tournament, its creation (and first snapshot) kept by ``tables``."""
    msg = CreateTournament(
        name="cup",
        format=TournamentFormat(fmt),
        rounds=rounds,
        best_of=3 if fmt == "knockout" else 1,
        max_players=6,
        late_join=late_join,
        round_clock_ms=10_000,
    )
    settings_ = settings_for(msg, 0, between_rounds_ms=1_000, between_deals_ms=500)
    director = Director("t1", settings_, ALICE, now_ms=0, root_secret="ab" * 32)
    (tables or Tables()).took(director.opened(0))
    return director


class Tables:
    """Stands in for the desk and the lobby: keeps the events of a director's steps,
    opens the tables it asks for, ends them on demand."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.requests: list[Request] = []

    def took(self, stepped: DirectorResult) -> DirectorResult:
        """A director's step done: its events kept, its requests to carry out."""
        self.events += stepped.events
        self.requests += stepped.requests
        return stepped

    def take_events(self) -> list[Event]:
        events, self.events = self.events, []
        return events

    def carry_out(self, d: Director, now: int) -> list[object]:
        done: list[object] = []
        while True:
            requests, self.requests = self.requests, []
            if not requests:
                return done
            opened = False
            for req in requests:
                if isinstance(req, OpenTable):
                    opened = True
                    room = f"room-{req.round}-{req.table}"
                    d.table_opened(req.round, req.table, room, f"series-{room}")
                    done.append(("open", room, [p.id for p in req.players], req.root, req.embargo))
                elif isinstance(req, StopTable):
                    done.append(("stop", req.room_id))
                    self.took(d.table_ended(req.room_id, None, now))
                elif isinstance(req, Forfeit):
                    done.append(("forfeit", req.room_id, req.player.id))
            if opened:
                self.took(d.tables_opened(now))


def step(d: Director, tables: Tables, op: tuple[str, int, int], now: int) -> list[object]:
    """One random thing happens to the tournament; a refusal changes nothing."""
    kind, k, x = op
    try:
        if kind == "register":
            tables.took(d.register(PEOPLE[k % len(PEOPLE)], f"c{k}", now))
        elif kind == "bots":
            tables.took(d.add_bots(ALICE, "greedy", 1 + k % 2, now))
        elif kind == "leave":
            tables.took(d.leave(PEOPLE[k % len(PEOPLE)], now))
        elif kind in ("start", "pause", "resume", "cancel"):
            tables.took(d.manage(ALICE, kind, now))
        elif kind == "remove":
            tables.took(d.manage(ALICE, "remove", now, player_id=PEOPLE[k % len(PEOPLE)].id))
        elif kind == "tick":
            tables.took(d.tick(now))
        elif kind in ("deal", "end") and d.room_ids():
            room = sorted(d.room_ids())[k % len(d.room_ids())]
            _, t = d.tables_by_room[room]
            if kind == "deal":
                tables.took(
                    d.deal_ended(
                        room, {p: (x * (i + 3)) % 29 for i, p in enumerate(t.players)}, now
                    )
                )
            else:
                tables.took(d.table_ended(room, t.players[x % len(t.players)], now))
    except ValueError:  # every refusal is a RoomError, a ValueError
        pass
    return tables.carry_out(d, now)


def observed(d: Director, now: int) -> dict[str, Any]:
    return {
        "info": d.info(now).model_dump(mode="json"),
        "summary": d.summary(now).model_dump(mode="json"),
        "standings": [s.model_dump(mode="json") for s in d.standings()],
        "snapshot": d.snapshot(),
        "phase": d.phase,
        "rooms": sorted(d.room_ids()),
        "members": d.members(),
        "round_deadline": d.rounds[-1].ends_at if d.rounds else None,
        "next_at": d.next_at,
    }


def ops(*rare: str) -> st.SearchStrategy[tuple[str, int, int]]:
    kinds = ["register"] * 6 + ["bots"] * 3 + ["start"] * 4 + ["tick"] * 5 + ["deal"] * 6
    kinds += ["end"] * 6 + ["leave", "pause", "resume", "resume", "remove", *rare]
    return st.tuples(st.sampled_from(kinds), st.integers(0, 11), st.integers(0, 97))


@settings(max_examples=60, deadline=None)
@given(
    fmt=st.sampled_from(["duplicate", "swiss", "knockout"]),
    rounds=st.integers(1, 4),
    late_join=st.booleans(),
    entrants=st.integers(0, 5),
    start=st.booleans(),
    before=st.lists(ops(), max_size=40),
    after=st.lists(ops("cancel"), max_size=25),
)
def test_a_restored_director_is_the_same_and_goes_on_the_same(
    fmt: str,
    rounds: int,
    late_join: bool,
    entrants: int,
    start: bool,
    before: list[Any],
    after: list[Any],
) -> None:
    tables = Tables()
    original = new_director(fmt, rounds, late_join, tables)
    now = 0
    preamble = [("register", i, 0) for i in range(entrants)] + [("start", 0, 0)] * start
    for op in preamble + before:
        now += 700
        step(original, tables, op, now)
    now += SNAPSHOT_INTERVAL_MS  # what changed is in the snapshot
    step(original, tables, ("tick", 0, 0), now)
    tables.take_events()
    assert original.over or original.stored == original.snapshot()
    state = json.loads(json.dumps(original.snapshot()))  # as stored: plain JSON
    # Taken back as stored (when that snapshot was taken), with no time away.
    saved = original.stored_at
    copy = Director.restore(state, saved_ms=saved, now_ms=saved)
    assert observed(copy, now) == observed(original, now)
    assert copy.round_secrets == original.round_secrets and copy.commitment == original.commitment
    copy_tables = Tables()
    for op in after:
        now += 700
        done = step(original, tables, op, now), step(copy, copy_tables, op, now)
        assert done[0] == done[1]  # the same tables opened, stopped and forfeited
        assert observed(copy, now) == observed(original, now)
        events = tables.take_events(), copy_tables.take_events()
        assert events[0] == events[1]


def test_the_snapshot_is_taken_only_when_something_changed() -> None:
    tables = Tables()
    d = new_director("swiss", 2, True, tables)
    first = tables.take_events()
    assert isinstance(first[0], TournamentCreated) and isinstance(first[-1], TournamentSnapshot)
    assert d.tick(5).events == []  # nothing changed
    (_, snap) = tables.took(d.register(BOB, "b", 10)).events
    assert isinstance(snap, TournamentSnapshot) and snap.at_ms == 10
    assert [e["player"]["id"] for e in snap.state["entrants"]] == [BOB.id]  # type: ignore[index, union-attr]
    tables.took(d.register(CAROL, "c", 20))
    tables.take_events()
    started = tables.took(d.manage(ALICE, "start", 30))
    assert started.requests  # tables not opened yet: no snapshot until they are
    assert not any(isinstance(e, TournamentSnapshot) for e in started.events)
    tables.carry_out(d, 30)
    snaps = [e for e in tables.take_events() if isinstance(e, TournamentSnapshot)]
    assert len(snaps) == 1
    (table,) = snaps[0].state["rounds"][0]["tables"]  # type: ignore[index]
    assert table["room_id"] == "room-1-1"
    cancelled = d.manage(ALICE, "cancel", 40)
    assert not any(isinstance(e, TournamentSnapshot) for e in cancelled.events)  # over


def test_a_tampered_chain_is_refused() -> None:
    d = new_director("duplicate", 2, True)
    state = d.snapshot()
    try:
        Director.restore({**state, "root_secret": "cd" * 32}, saved_ms=0, now_ms=0)
    except ValueError as exc:
        assert "committed" in str(exc)
    else:
        raise AssertionError("a snapshot on another chain was taken")
    try:
        Director.restore({k: v for k, v in state.items() if k != "rounds"}, saved_ms=0, now_ms=0)
    except ValueError as exc:
        assert "incomplete" in str(exc)
    else:
        raise AssertionError("an incomplete snapshot was taken")


def playing_round(round_clock_ms: int = 60_000) -> tuple[Director, Tables]:
    d = new_director("swiss", 2, False)
    d.settings = SettingsRecord.model_validate(
        {**settings_json(d.settings), "round_clock_ms": round_clock_ms}
    ).settings()
    tables = Tables()
    d.register(BOB, "b", 0)
    d.register(CAROL, "c", 0)
    tables.took(d.manage(ALICE, "start", 1_000))
    tables.carry_out(d, 1_000)
    return d, tables


def test_the_round_clock_does_not_run_while_the_server_is_away() -> None:
    d, _ = playing_round()
    ends = d.rounds[0].ends_at
    assert ends == 61_000
    state = d.snapshot()
    # Saved at 5 s, back at 65 s: the round clock would have run out; it has 56 s left.
    back = Director.restore(state, saved_ms=5_000, now_ms=65_000)
    assert back.rounds[0].ends_at == ends + 60_000
    assert back.info(65_000).round_left_ms == 56_000
    # A placement stored at 20 s at one of its tables: 15 s less of it was downtime.
    room = d.room_ids()[0]
    back = Director.restore(state, saved_ms=5_000, now_ms=65_000, room_activity={room: 20_000})
    assert back.info(65_000).round_left_ms == 41_000
    ticked = back.tick(65_000)  # nothing to do but store the clock moved on
    assert ticked.messages == [] and ticked.requests == []


def test_the_break_between_rounds_and_a_pause_survive_a_restart() -> None:
    d, _ = playing_round()
    room = d.room_ids()[0]
    d.table_ended(room, None, 10_000)
    assert d.phase == Phase.BETWEEN and d.next_at == 11_000
    back = Director.restore(d.snapshot(), saved_ms=10_000, now_ms=100_000)
    assert back.phase == Phase.BETWEEN and back.next_at == 101_000
    assert back.rounds[0].finished and back.info(100_000).history[0].server_secret
    d.manage(ALICE, "pause", 10_500)
    back = Director.restore(d.snapshot(), saved_ms=10_500, now_ms=100_000)
    assert back.phase == Phase.PAUSED and back.next_deadline() is None
    back.manage(ALICE, "resume", 100_000)
    assert back.phase == Phase.BETWEEN and back.next_at == 101_000


def test_a_round_whose_clock_ran_out_stops_its_tables_again() -> None:
    d, _ = playing_round(round_clock_ms=5_000)
    assert [type(r) for r in d.tick(6_000).requests] == [StopTable]
    assert d.rounds[0].stopped  # the server stops before carrying them out
    back = Director.restore(d.snapshot(), saved_ms=6_000, now_ms=50_000)
    alive = back.room_ids()  # the table's room was rebuilt
    assert [type(r) for r in back.resumed(alive, 50_000).requests] == [StopTable]


def lobby() -> Lobby:
    return Lobby(
        LobbyConfig(between_rounds_ms=0, between_deals_ms=0), ids=FixedIds(), bots=bot_factory
    )


def test_a_table_that_cannot_be_rebuilt_ends_with_the_deals_it_finished() -> None:
    lb = lobby()
    lb.handle(ALICE, CreateTournament(name="cup", format="swiss", rounds=2), 0)  # type: ignore[arg-type]
    (d,) = lb.tournaments.directors.values()
    for who in (ALICE, BOB, CAROL):
        lb.handle(who, JoinTournament(tournament_id=d.id, contribution=who.name), 0)
    lb.handle(ALICE, ManageTournament(tournament_id=d.id, action="start"), 0)
    (room,) = d.room_ids()  # two play, one has the bye
    state = d.snapshot()
    # The server restarts; the table's series cannot be rebuilt.
    lb2 = lobby()
    lb2.ids.n = 100  # type: ignore[attr-defined]  # no room id of before
    back = lb2.tournaments.restore(state, 0, {}, 1_000)
    assert lb2.tournaments.claims(room)
    lb2.tournaments_resumed(1_000)
    assert not lb2.tournaments.claims(room)
    first = back.rounds[0]
    table = next(t for t in first.tables if t.room_id == room)
    assert first.finished and table.status == "finished" and table.winner is None  # a draw
    lb2.tick(1_000)
    assert back.phase == Phase.PLAYING and len(back.rounds) == 2  # round 2 opened as usual
    assert all(t.room_id in lb2.rooms for t in back.rounds[1].tables if t.status == "playing")
    drawn = [g for g in swiss.games(back) if g.b is not None]
    assert [g.score_a for g in drawn] == [0.5]


def test_a_table_lost_after_some_deals_goes_to_the_one_ahead() -> None:
    d = new_director("knockout", 1, False)
    d.register(BOB, "b", 0)
    d.register(CAROL, "c", 0)
    tables = Tables()
    tables.took(d.manage(ALICE, "start", 0))
    tables.carry_out(d, 0)
    (room,) = d.room_ids()
    d.deal_ended(room, {BOB.id: 30, CAROL.id: 20}, 10)
    d.deal_ended(room, {BOB.id: 10, CAROL.id: 20}, 20)
    d.deal_ended(room, {BOB.id: 12, CAROL.id: 25}, 30)  # hypothetically: carol 2 deals to 1
    back = Director.restore(d.snapshot(), saved_ms=30, now_ms=40)
    back.resumed((), 40)
    assert back.phase == Phase.FINISHED
    assert back.standings()[0].player.id == CAROL.id


def test_a_knockout_s_bracket_is_its_own_and_reads_back_from_a_version_1_snapshot() -> None:
    """The bracket is the knockout format's own state (``own``), not the director's; a
    snapshot of version 1, which kept it beside the rounds, restores the same bracket."""
    d = new_director("knockout", 1, False)
    for p in PEOPLE[:3]:
        d.register(p, p.name, 0)
    tables = Tables()
    tables.took(d.manage(ALICE, "start", 0))
    tables.carry_out(d, 0)
    state = json.loads(json.dumps(d.snapshot()))
    assert state["version"] == 2 and state["own"] == {"bracket": d.format.bracket(d)}
    assert "bracket" not in state and "had_bye" not in state
    assert len(d.format.bracket(d)[0]) == 4 and d.format.bracket(d)[0].count(None) == 1
    old = {k: v for k, v in state.items() if k != "own"}
    old |= {"version": 1, "bracket": state["own"]["bracket"], "had_bye": []}
    back = Director.restore(old, saved_ms=0, now_ms=0)
    assert back.format.bracket(back) == d.format.bracket(d)
    assert back.snapshot() == state  # written again as version 2
    with pytest.raises(ValueError, match="the format's own state"):
        Director.restore(state | {"own": {"bracket": 7}}, saved_ms=0, now_ms=0)


async def test_the_snapshot_is_stored_read_back_and_dropped_at_the_end(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "db", opened_ms=0)
    lb = lobby()
    cup = CreateTournament(name="cup", format="duplicate", rounds=1)  # type: ignore[arg-type]
    created = events_of(lb, lambda: lb.handle(ALICE, cup, 0))
    (d,) = lb.tournaments.directors.values()
    await storage.persist(
        created + events_of(lb, lambda: lb.handle(BOB, JoinTournament(tournament_id=d.id), 5))
    )
    (stored,) = await storage.unfinished_tournaments()
    assert stored.tournament_id == d.id and stored.saved_ms == 5
    assert stored.state == json.loads(json.dumps(d.snapshot()))
    cancelled = events_of(
        lb,
        lambda: lb.handle(ALICE, AddTournamentBot(tournament_id=d.id, count=1), 6),
        lambda: lb.handle(ALICE, ManageTournament(tournament_id=d.id, action="cancel"), 7),
    )
    await storage.persist(cancelled)
    assert await storage.unfinished_tournaments() == []
    assert (await storage.tournament(d.id) or {})["status"] == "cancelled"
    # One from before snapshots were stored is abandoned at the next start.
    old_cup = CreateTournament(name="old", format="duplicate", rounds=1)  # type: ignore[arg-type]
    created = events_of(lb, lambda: lb.handle(BOB, old_cup, 8))
    await storage.persist([e for e in created if not isinstance(e, TournamentSnapshot)])
    (old,) = await storage.unfinished_tournaments()
    assert old.state is None
    await storage.abandon_tournament(old.tournament_id, 0)
    assert await storage.unfinished_tournaments() == []
    assert (await storage.tournament(old.tournament_id) or {})["status"] == "abandoned"
    await storage.close()


async def test_a_bot_programs_seat_is_resumed_like_a_persons(tmp_path: Path) -> None:
    """A program that signed in as a bot (a tournament may take it) is not a server bot:
    after a restart its seat waits for it to reconnect, as a person's does."""
    storage = await Storage.open(tmp_path / "db", opened_ms=0)
    program = PlayerInfo(id="p-0a1b2c", name="prog", bot=True)
    await storage.create_player(StoredPlayer(ALICE.id, ALICE.name, False, False), "h1", 0)
    await storage.create_player(StoredPlayer(program.id, program.name, False, True), "h2", 0)
    room = make_room(2)
    box = Mailbox.opening(room)
    seat_and_start(room, box, program)
    place(room, box, ALICE, 5)
    await storage.persist(box.take_events())
    (saved,) = await storage.unfinished()
    back = restore_room(saved, 1_000, bots=bot_factory)
    seat = back.seat_of(program.id)
    assert seat is not None and seat.bot is None and not seat.connected
    assert [p.turn for p in back.view_for(ALICE.id, 1_000).you.placements] == [1]  # type: ignore[union-attr]
    await storage.close()


def test_results_newer_than_the_snapshot_come_from_the_tables_series() -> None:
    """Within a round a snapshot waits up to SNAPSHOT_INTERVAL_MS; a restart reads
    the tables' stored series for what came after it (Director.catch_up)."""
    tables = Tables()
    original = new_director("swiss", 2, False, tables)
    now = 0
    for op in [("register", 0, 0), ("register", 1, 0), ("register", 2, 0), ("register", 3, 0)]:
        now += 100
        step(original, tables, op, now)
    now += 100
    step(original, tables, ("start", 0, 0), now)
    tables.take_events()
    stale = json.loads(json.dumps(original.snapshot()))
    saved = now
    rooms = sorted(original.room_ids())
    first, second = rooms[0], rooms[1]
    players = {room: original.tables_by_room[room][1].players for room in rooms}
    # Within the interval: one table finishes, the other has a deal; no new snapshot.
    now += 200
    finished_scores = {players[first][0]: 30, players[first][1]: 12}
    tables.took(original.deal_ended(first, finished_scores, now))
    tables.took(original.table_ended(first, players[first][0], now))
    tables.took(original.deal_ended(second, {players[second][0]: 7, players[second][1]: 19}, now))
    assert not any(isinstance(e, TournamentSnapshot) for e in tables.take_events())

    copy = Director.restore(stale, saved_ms=saved, now_ms=saved)  # no time away
    assert sorted(r for r, _ in copy.playing_tables()) == rooms  # both still playing to it
    copy.catch_up(first, [finished_scores], True, players[first][0], now)
    copy.catch_up(second, [{players[second][0]: 7, players[second][1]: 19}], False, None, now)
    copy.catch_up(second, [{players[second][0]: 7, players[second][1]: 19}], False, None, now)
    assert observed(copy, now) == observed(original, now)  # and a repeat changes nothing


def test_a_snapshot_written_by_the_first_version_of_the_codec_reads_back_whole() -> None:
    """tests/server/tournaments/data/snapshot_v1.json: a Swiss round half played, as the
    JSON codec before the typed records wrote it; read, rebuilt and written again, the
    same JSON, but for its format's own state (a Swiss's byes, kept beside the rounds
    for every format in version 1) under ``own``, version 2."""
    stored = json.loads((Path(__file__).parent / "data" / "snapshot_v1.json").read_text())
    director = Director.restore(stored, saved_ms=50, now_ms=50)
    upgraded = {k: v for k, v in stored.items() if k not in ("bracket", "had_bye")}
    upgraded |= {"version": 2, "own": {"had_bye": stored["had_bye"]}}
    assert stored["settings"]["format"] == "swiss" and director.snapshot() == upgraded
    assert [t.status for t in director.rounds[0].tables] == ["finished", "playing"]
    assert director.room_ids() == ["room-2"]
    with pytest.raises(ValueError, match=r"snapshot incomplete: rounds\.0\.tables\.0\.status"):
        broken = json.loads(json.dumps(stored))
        broken["rounds"][0]["tables"][0]["status"] = "lost"
        Director.restore(broken, saved_ms=50, now_ms=50)
