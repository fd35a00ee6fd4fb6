"""Refused means unchanged, proved whole: random command sequences drive a room and
a tournament, and every command refused leaves the whole state (every attribute
reachable from it: tests/server/wholestate.py) as it was, its clock included."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from protocol.deals import Place
from protocol.fields import Pace, PlayerInfo
from protocol.rooms import AddBot, JoinRoom, LeaveRoom, Ready, Rematch, Resync, StartMatch
from protocol.tournaments import CreateTournament
from server import errors
from server.requests import OpenTable
from server.room import Room
from server.tournaments.director import Director
from server.tournaments.formats import settings_for
from tests.server.roomkit import ALICE, BOB, CAROL, DAVE, SPECTATOR, make_room, player
from tests.server.wholestate import whole

PEOPLE = [ALICE, BOB, CAROL, DAVE, SPECTATOR, player("zed", guest=True)]
CELLS = ["a1", "b2", "c3", "d4", "a4", "d1", "b3", "z9", "B1"]
STEP = st.tuples(
    st.sampled_from(
        [
            "join",
            "watch",
            "leave",
            "ready",
            "start",
            "bot",
            "place",
            "play",
            "play",
            "play",
            "play",
            "rematch",
            "resync",
            "tick",
            "away",
            "back",
        ]
    ),
    st.integers(0, len(PEOPLE) - 1),
    st.integers(0, 16),
    st.integers(0, len(CELLS) - 1),
)


def room_command(
    room: Room, who: PlayerInfo, kind: str, turn: int, cell: int, now: int
) -> BaseModel | None:
    rid = room.id
    match kind:
        case "join":
            return JoinRoom(room_id=rid, contribution=f"c{turn}")
        case "watch":
            return JoinRoom(room_id=rid, spectate=True)
        case "leave":
            return LeaveRoom(room_id=rid)
        case "ready":
            return Ready(room_id=rid)
        case "start":
            return StartMatch(room_id=rid)
        case "bot":
            return AddBot(room_id=rid, strategy="fallback" if turn % 3 else "nonsense")
        case "place":
            return Place(room_id=rid, turn=max(1, turn), cell=CELLS[cell])
        case "play":  # the card it holds, on a legal cell, if it holds one
            you = room.view_for(who.id, now).you if room.is_member(who.id) else None
            if you is None or you.turn is None or not you.legal:
                return Place(room_id=rid, turn=max(1, turn), cell=CELLS[cell])
            return Place(room_id=rid, turn=you.turn, cell=you.legal[cell % len(you.legal)])
        case "rematch":
            return Rematch(room_id=rid)
        case "resync":
            return Resync(room_id=rid)
    return None


@settings(max_examples=150, deadline=None)
@given(
    seats=st.integers(1, 4),
    race=st.booleans(),
    steps=st.lists(STEP, min_size=5, max_size=60),
)
def test_a_refused_room_command_changes_nothing_at_all(
    seats: int, race: bool, steps: list[tuple[str, int, int, int]]
) -> None:
    room = make_room(seats, pace=Pace.RACE if race else Pace.LOCKSTEP, card_clock_ms=2_000)
    now = 0
    for kind, who, turn, cell in steps:
        now += 150 * (turn + 1)
        person = PEOPLE[who]
        if kind == "tick":
            room.tick(now)
            continue
        if kind in ("away", "back"):
            room.set_connected(person.id, kind == "back", now)
            continue
        command = room_command(room, person, kind, turn, cell, now)
        assert command is not None
        before = whole(room)
        try:
            room.handle(person, command, now)  # type: ignore[arg-type]
        except errors.RoomError:
            assert whole(room) == before, (
                f"{kind} by {person.name} was refused but changed the room"
            )


def new_director() -> Director:
    settings_ = settings_for(
        CreateTournament(name="cup", rounds=2, max_players=4, late_join=True),
        0, between_rounds_ms=1_000, between_deals_ms=500,
    )  # fmt: skip
    director = Director("t1", settings_, ALICE, now_ms=0, root_secret="ab" * 32)
    director.opened(0)
    return director


TOURNAMENT_STEP = st.tuples(
    st.sampled_from(
        [
            "register",
            "watch",
            "leave",
            "start",
            "pause",
            "resume",
            "cancel",
            "remove",
            "bots",
            "tick",
            "deal",
            "end",
        ]
    ),
    st.integers(0, len(PEOPLE) - 1),
    st.integers(0, 5),
)


@settings(max_examples=150, deadline=None)
@given(steps=st.lists(TOURNAMENT_STEP, min_size=5, max_size=50))
def test_a_refused_tournament_command_changes_nothing_at_all(
    steps: list[tuple[str, int, int]],
) -> None:
    director = new_director()
    now = 0
    for kind, who, k in steps:
        now += 400
        person: PlayerInfo = PEOPLE[who]
        if kind == "tick":
            director.tick(now)
            continue
        if kind in ("deal", "end"):
            rooms = sorted(director.room_ids())
            if rooms:
                room = rooms[k % len(rooms)]
                players = director.tables_by_room[room][1].players
                if kind == "deal":
                    director.deal_ended(room, {p: 3 * k + i for i, p in enumerate(players)}, now)
                else:
                    director.table_ended(room, players[k % len(players)], now)
            continue
        before = whole(director)
        try:
            match kind:
                case "register":
                    stepped = director.register(person, f"c{k}", now)
                case "watch":
                    stepped = director.spectate(person, now)
                case "leave":
                    stepped = director.leave(person, now)
                case "bots":
                    stepped = director.add_bots(person, "greedy", 1 + k % 3, now)
                case "remove":
                    stepped = director.manage(person, "remove", now, player_id=PEOPLE[k].id)
                case _:
                    stepped = director.manage(person, kind, now)
        except errors.RoomError:
            assert whole(director) == before, f"{kind} by {person.name} was refused but changed it"
            continue
        opened = [r for r in stepped.requests if isinstance(r, OpenTable)]
        for r in opened:  # as the lobby opens them
            director.table_opened(r.round, r.table, f"room-{r.round}-{r.table}", f"s-{r.table}")
        if opened:
            director.tables_opened(now)
