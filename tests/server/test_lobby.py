"""The lobby, driven directly: rooms by id and invite code, listing, limits, forgetting rooms."""

from __future__ import annotations

import pytest

from engine.grid import cell_name
from protocol.deals import Place
from protocol.fields import Pace, Visibility
from protocol.head_to_head import GetLeaderboard
from protocol.rooms import CreateRoom, JoinRoom, LeaveRoom, ListRooms, Ready, Rooms, RoomState
from server import errors
from server.config import LobbyConfig
from server.limits import TokenBucket
from server.lobby import Lobby
from server.ratings import Entry, Rating
from server.room import views
from tests.server.roomkit import ALICE, BOB, CAROL, FixedIds, bots


def make_lobby(**config: int) -> Lobby:
    return Lobby(LobbyConfig(**config), ids=FixedIds(), bots=bots)


def create(lobby: Lobby, who=ALICE, **fields) -> str:  # type: ignore[no-untyped-def]
    outs = lobby.handle(who, CreateRoom(name="r", **fields), 0)
    state = outs[0].message
    assert isinstance(state, RoomState)
    return state.room.id


def test_private_rooms_are_unlisted_and_joined_by_code() -> None:
    lobby = make_lobby()
    public = create(lobby)
    private = create(lobby, visibility=Visibility.PRIVATE)
    listed = lobby.handle(BOB, ListRooms(), 0)[0].message
    assert isinstance(listed, Rooms) and [r.id for r in listed.rooms] == [public]
    with pytest.raises(errors.RoomNotFound):
        lobby.handle(BOB, JoinRoom(room_id=private), 0)
    with pytest.raises(errors.RoomNotFound):
        lobby.handle(BOB, JoinRoom(invite_code="wrong"), 0)
    code = lobby.rooms[private].invite_code
    assert code is not None
    state = lobby.handle(BOB, JoinRoom(invite_code=code), 0)[0].message
    assert isinstance(state, RoomState) and state.room.invite_code == code
    assert {r.id for r in lobby.rooms_of(BOB.id)} == {private}


def test_room_commands_need_membership() -> None:
    lobby = make_lobby()
    room_id = create(lobby)
    with pytest.raises(errors.NotInRoom):
        lobby.handle(BOB, Ready(room_id=room_id), 0)
    with pytest.raises(errors.NotInRoom):
        lobby.handle(BOB, Place(room_id="nowhere", turn=1, cell="a1"), 0)


def test_waiting_rooms_per_player_are_limited() -> None:
    lobby = make_lobby(max_waiting_rooms_per_player=2)
    create(lobby)
    create(lobby)
    with pytest.raises(errors.LimitReached):
        create(lobby)
    create(lobby, who=BOB)


def test_rooms_are_forgotten_when_nobody_needs_them() -> None:
    lobby = make_lobby(finished_ttl_ms=1_000)
    room_id = create(lobby)
    lobby.handle(ALICE, LeaveRoom(room_id=room_id), 0)
    assert room_id not in lobby.rooms and lobby.rooms_of(ALICE.id) == []
    solo = create(lobby, seats=1)
    lobby.handle(ALICE, Ready(room_id=solo), 0)
    room = lobby.rooms[solo]
    while room.match is not None and room.phase == "playing":
        turn = views.waiting_turn(room, ALICE.id) or 0
        cell = cell_name(room.match.boards[ALICE.id].grid.legal_cells()[0])
        lobby.handle(ALICE, Place(room_id=solo, turn=turn, cell=cell), 0)
    assert solo in lobby.rooms  # finished, alice still there
    lobby.tick(1_000)
    assert solo not in lobby.rooms


def test_reconnect_gives_snapshots_of_every_room() -> None:
    lobby = make_lobby()
    a = create(lobby)
    b = create(lobby, who=CAROL)
    lobby.handle(ALICE, JoinRoom(room_id=b), 0)
    lobby.disconnect(ALICE.id, 10)
    outs = lobby.connect(ALICE, 20)
    states = [o.message for o in outs if isinstance(o.message, RoomState)]
    assert sorted(s.room.id for s in states) == sorted([a, b])


def test_token_bucket() -> None:
    bucket = TokenBucket(rate=10, burst=3, now_ms=0)
    assert [bucket.take(0) for _ in range(4)] == [True, True, True, False]
    assert bucket.should_warn(0) and not bucket.should_warn(500) and bucket.should_warn(1_000)
    assert bucket.take(100) and not bucket.take(100)
    assert [bucket.take(10_000) for _ in range(4)] == [True, True, True, False]


def test_the_clock_visits_only_rooms_with_something_due(monkeypatch: pytest.MonkeyPatch) -> None:
    lobby = make_lobby(grace_ms=5_000)
    idle = create(lobby)
    playing = create(lobby, who=BOB, seats=1, card_clock_ms=10_000)
    lobby.handle(BOB, Ready(room_id=playing), 0)
    ticked: list[str] = []
    for room in lobby.rooms.values():
        real = room.tick
        monkeypatch.setattr(room, "tick", lambda now, r=room, t=real: ticked.append(r.id) or t(now))
    lobby.tick(9_999)
    assert ticked == []
    outs = lobby.tick(10_000)  # bob's card clock runs out: his card is placed for him
    assert ticked == [playing] and any(o.message.type == "placed" for o in outs)
    assert lobby.rooms[playing].match.boards[BOB.id].placed == 1  # type: ignore[union-attr]
    lobby.disconnect(ALICE.id, 10_000)  # alice's seat in the idle room: grace until 15,000
    lobby.tick(14_999)
    assert idle in lobby.rooms and ticked == [playing]
    lobby.tick(15_000)
    assert idle not in lobby.rooms


def test_leaderboard_ranks_settled_players_and_lists_provisional_ones_after() -> None:
    lobby = make_lobby()
    lobby.ratings.load(
        [
            ("lockstep", Entry("id-new", "newcomer", Rating(1900.0, 300.0), 1)),
            ("lockstep", Entry("id-alice", "alice", Rating(1700.0, 90.0), 30)),
            ("lockstep", Entry("id-bob", "bob", Rating(1750.0, 100.0), 25)),
            ("race", Entry("id-bob", "bob", Rating(1400.0, 80.0), 9)),
        ]
    )
    board = lobby.leaderboard(ALICE, GetLeaderboard(pace=Pace.LOCKSTEP, top=2))
    assert [(e.rank, e.player.name) for e in board.top] == [(1, "bob"), (2, "alice")]
    assert board.players == 2
    assert [e.player.name for e in board.around] == ["bob", "alice", "newcomer"]
    assert board.around[-1].rank == 0 and board.around[-1].provisional
    race = lobby.leaderboard(ALICE, GetLeaderboard(pace=Pace.RACE, around="BOB"))
    assert [(e.rank, e.rating) for e in race.top] == [(1, 1400)]
