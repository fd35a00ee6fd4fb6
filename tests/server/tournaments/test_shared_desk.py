"""The tournament desk of a cluster node (``shared``): what it notes for the node to
carry between nodes, driven directly with two lobbies and no sockets. Lobby ``a``
runs the director (the coordinator); a table moves to lobby ``b`` as a handover
moves it; what ``a`` asks of it, and what ``b`` says of it, are noted, not lost."""

from __future__ import annotations

from protocol.deals import CardDealt, Place
from protocol.fields import PlayerInfo, Visibility
from protocol.tournaments import (
    CreateTournament,
    JoinTournament,
    LeaveTournament,
    ManageTournament,
    TournamentFormat,
)
from server.bots import bot_factory
from server.config import LobbyConfig
from server.events import Event, MatchEnded
from server.lobby import Lobby
from server.recovery import StoredTable
from server.requests import Forfeit, StopTable, TableResult, WatchTable
from server.room import Outbound
from server.step import StepOutput
from tests.server.roomkit import FixedIds

PEOPLE = [PlayerInfo(id=f"id-q{i}", name=f"q{i}") for i in range(4)]


def lobby(shared: bool, first_id: int = 0) -> Lobby:
    lb = Lobby(LobbyConfig(between_rounds_ms=0, between_deals_ms=0), ids=FixedIds(),
               bots=bot_factory)  # fmt: skip
    lb.ids.n = first_id  # type: ignore[attr-defined]
    if shared:
        lb.share()  # a cluster's node's
    return lb


def swiss(lb: Lobby, visibility: Visibility = Visibility.PUBLIC) -> tuple[str, StepOutput]:
    """A Swiss tournament of PEOPLE, started: its id, and the start's step output."""
    host = PEOPLE[0]
    made = CreateTournament(name="cup", format=TournamentFormat.SWISS, rounds=2,
                            visibility=visibility, round_clock_ms=100_000)  # fmt: skip
    lb.run(lambda: lb.handle(host, made, 0))
    (d,) = lb.tournaments.directors.values()
    for who in PEOPLE:
        where = {"invite_code": d.invite_code} if d.invite_code else {"tournament_id": d.id}
        join = JoinTournament(contribution=who.name, **where)  # type: ignore[arg-type]
        lb.run(lambda: lb.handle(who, join, 0))  # noqa: B023
    start = ManageTournament(tournament_id=d.id, action="start")
    return d.id, lb.run(lambda: lb.handle(host, start, 0))


def test_one_server_notes_nothing() -> None:
    lb = lobby(shared=False)
    tid, started = swiss(lb)
    assert started.notes is None
    rooms = lb.tournaments.directors[tid].room_ids()
    lb.release(rooms[0])
    ticked = lb.tournaments.tick(200_000)  # the round clock runs out: the table not here
    assert (ticked.placed, ticked.elsewhere, ticked.results) == ([], [], [])  # is not asked


def test_the_tables_opened_are_noted_to_be_placed() -> None:
    lb = lobby(shared=True)
    tid, started = swiss(lb)
    assert started.notes is not None
    assert sorted(started.notes.placed) == sorted(lb.tournaments.directors[tid].room_ids())


def test_what_a_director_asks_of_a_table_elsewhere_is_noted_for_its_owner() -> None:
    lb = lobby(shared=True)
    tid, _ = swiss(lb, Visibility.PRIVATE)
    desk = lb.tournaments
    d = desk.directors[tid]
    away, here = d.room_ids()
    lb.release(away)  # handed to another node
    who = next(p for p in PEOPLE if lb.rooms[here].seat_of(p.id) is None)
    left = lb.run(lambda: lb.handle(who, LeaveTournament(tournament_id=tid), 1_000)).notes
    assert left is not None
    assert sorted(map(repr, left.elsewhere)) == sorted(map(repr, [
        Forfeit(away, who),
        WatchTable(away, False, tuple(d.members())),  # a private tournament's members changed
    ]))  # fmt: skip
    ticked = lb.run(lambda: lb.tick(200_000)).notes  # the round clock runs out: both tables
    assert ticked is not None and ticked.elsewhere == [StopTable(away)]  # are stopped


def test_a_table_whose_director_is_elsewhere_notes_its_results() -> None:
    a, b = lobby(shared=True), lobby(shared=True, first_id=500)
    tid, _ = swiss(a)
    d = a.tournaments.directors[tid]
    room_id = d.room_ids()[0]
    room = a.rooms[room_id]
    a.release(room_id)
    b.registry.add(room)  # as the node it was handed to rebuilds it
    players = [s.player for s in room.seats]
    assert b.tournaments.watchable(room_id, "anyone") is False  # nothing said yet
    b.run(lambda: b.table_request(WatchTable(room_id, True, ()), 0))
    assert b.tournaments.watchable(room_id, "anyone")
    outs: list[Outbound] = []
    events: list[Event] = []
    results: list[TableResult] = []  # what node b tells the director's node
    for turn in range(1, 17):
        for p in players:
            you = room.view_for(p.id, turn).you
            assert you is not None and you.legal
            place = Place(room_id=room_id, turn=turn, cell=you.legal[0])
            played = b.run(lambda: b.handle(p, place, turn))  # noqa: B023
            assert played.notes is not None
            outs += played.messages
            events += played.events
            results += played.notes.results
    assert any(isinstance(o.message, CardDealt) for o in outs)
    series = room.series.id
    assert results == [(room_id, series, 1, False), (room_id, series, 1, True)]
    assert not b.tournaments.watchable(room_id, "anyone")  # its series over: forgotten
    # The coordinator reads the stored series and its director catches up.
    (ended,) = [e for e in events if isinstance(e, MatchEnded)]
    scores = {o.player_id: o.score for o in ended.outcomes}
    winner = max(scores, key=scores.__getitem__) if len(set(scores.values())) > 1 else None
    a.tournament_catch_up(tid, room_id, StoredTable((scores,), True, winner), 100)
    table = next(t for t in d.rounds[0].tables if t.room_id == room_id)
    assert table.status == "finished" and table.winner == winner and table.deals == [scores]
    a.tournament_catch_up(tid, room_id, StoredTable((scores,), True, winner), 100)
    assert table.deals == [scores]  # told twice: counted once
