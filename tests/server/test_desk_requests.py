"""The desks ask, the lobby does (server/requests.py): a pairing, a daily attempt's
room, an embargo lifted in a room are requests in the desk's result, carried out by
the lobby once the desk's step is done; no desk holds the lobby or calls back in it."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

from protocol.daily import PlayDaily
from protocol.deals import MatchStarted
from protocol.fields import Pace
from protocol.head_to_head import (
    AnswerChallenge,
    Challenge,
    ChallengeUpdate,
    QueueStatus,
    QuickPlay,
)
from protocol.rooms import RoomOrigin, RoomState
from server.config import LobbyConfig
from server.events import DailyAttemptBegan, EmbargoLifted, SeriesEnded
from server.head_to_head import HeadToHead
from server.lobby import Lobby
from server.ratings import RatingBook
from server.requests import ActOnTable, DeskResult, OpenHeadToHead
from server.room import Phase, Room, RoomResult, RoomSettings
from tests.server.roomkit import ALICE, BOB, FixedIds, bots
from tests.server.test_embargo_sweep import DAY_MS, NOON, Calendar

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "module", ["server/head_to_head.py", "server/daily/desk.py", "server/tournaments/hosting.py"]
)
def test_the_desk_holds_no_lobby_and_calls_nothing_back_in_it(module: str) -> None:
    tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
    imported = {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert "server.lobby" not in imported
    names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    assert {"lobby", "settle", "open_room"} & names == set()


def test_an_accepted_challenge_is_a_request_and_opens_no_room() -> None:
    desk = HeadToHead(LobbyConfig(), FixedIds(), RatingBook(), bots)
    offered = desk.challenge(ALICE, BOB, Challenge(opponent="bob", contribution="a"), 0)
    [challenge_id] = desk.challenges
    assert [type(o.message) for o in offered.outs] == [ChallengeUpdate, ChallengeUpdate]

    result = desk.answer(BOB, AnswerChallenge(challenge_id=challenge_id, accept=True, ref="y"))
    assert isinstance(result, DeskResult) and result.outs == []
    [opened] = result.requests
    assert isinstance(opened, OpenHeadToHead)
    assert (opened.first, opened.second) == ((ALICE, "a"), (BOB, ""))
    assert opened.settings.seats == 2 and opened.settings.origin.value == "challenge"
    told = opened.notice(BOB.id, "R9")  # the room's id is known once the lobby opens it
    assert isinstance(told, ChallengeUpdate)
    assert (told.state, told.room_id, told.ref) == ("accepted", "R9", "y")
    assert desk.challenges == {}


def test_the_lobby_opens_a_pairing_after_the_step_and_says_it_in_order() -> None:
    lobby = Lobby(LobbyConfig(), ids=FixedIds(), bots=bots)
    lobby.handle(ALICE, QuickPlay(pace=Pace.LOCKSTEP, deals=1, contribution="a"), 0)
    paired = lobby.run(
        lambda: lobby.handle(BOB, QuickPlay(pace=Pace.LOCKSTEP, deals=1, contribution="b"), 0)
    )
    outs = paired.messages
    said = [(o.to, type(o.message).__name__) for o in outs]
    # The desk's own message first (bob waits), then the request's: each person told
    # and sent the room, then the start.
    assert said[:5] == [
        ((BOB.id,), "QueueStatus"),
        ((ALICE.id,), "QueueStatus"),
        ((ALICE.id,), "RoomState"),
        ((BOB.id,), "QueueStatus"),
        ((BOB.id,), "RoomState"),
    ]
    assert any(isinstance(o.message, MatchStarted) for o in outs[5:])
    waiting, matched = outs[0].message, outs[1].message
    assert isinstance(waiting, QueueStatus) and waiting.state == "waiting"
    assert isinstance(matched, QueueStatus) and matched.state == "matched"
    state = outs[2].message
    assert isinstance(state, RoomState) and matched.room_id == state.room.id
    assert state.room.id in lobby.rooms and paired.events  # opened, settled, its events kept


def test_a_daily_attempt_is_stored_after_its_room_and_its_day_ends_before_its_room_shows() -> None:
    calendar = Calendar()
    lobby = Lobby(LobbyConfig(), daily_calendar=calendar)
    lobby.daily.load_secrets({NOON // DAY_MS: "bb" * 32}, set())
    played = lobby.run(lambda: lobby.handle(ALICE, PlayDaily(pace=Pace.RACE, ref="d"), NOON))
    state = played.messages[0].message
    assert isinstance(state, RoomState) and state.ref == "d" and state.room.origin == "daily"
    began = played.events
    kinds = [type(e).__name__ for e in began]
    assert kinds[-1] == "DailyAttemptBegan" and kinds.index("RoomOpened") < len(kinds) - 1
    attempt = began[-1]
    assert isinstance(attempt, DailyAttemptBegan) and attempt.room_id == state.room.id
    assert lobby.daily.attempts[NOON // DAY_MS][ALICE.id].room_id == state.room.id

    later = NOON + 3_600_000  # the race's deal clock long run out: the attempt is over
    lobby.run(lambda: lobby.tick(later))
    assert lobby.rooms[state.room.id].phase == Phase.FINISHED
    calendar.ms += DAY_MS  # and its day is over: the embargo is stored lifted, then the
    stored = lobby.run(lambda: lobby.tick(later + 1)).events  # room shows what it held back
    assert isinstance(stored[0], EmbargoLifted) and stored[0].embargo == "daily/2024-10-04"
    assert lobby.rooms[state.room.id].series.embargo_lifted


def test_requests_are_carried_out_in_the_order_made_whatever_the_nesting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A request made while another is carried out (a table's series ends as it is
    acted on, and its director asks more at once) comes after every request made before
    it, not before the rest of the step's own: first in, first out at any depth."""
    lobby = Lobby(LobbyConfig(), ids=FixedIds(), bots=bots)
    table = RoomSettings(name="table", seats=1, origin=RoomOrigin.TOURNAMENT)
    first, second, third = (lobby.open_room(table, ALICE, "a", 0) for _ in range(3))
    done: list[str] = []

    def act(name: str, *, ends: bool = False) -> Callable[[Room], RoomResult]:
        def acted(room: Room) -> RoomResult:
            done.append(name)
            if ends:  # its series ends: the lobby tells the director (room_event below)
                ended = SeriesEnded(room.series.id, room.id, False, Pace.LOCKSTEP, (), None, 1, 0)
                return RoomResult(events=[ended])
            return RoomResult()

        return acted

    def director(room: Room, event: object, now_ms: int) -> DeskResult:
        asked = ActOnTable(third.id, act("asked as the first ended"), "third")
        return DeskResult(requests=[asked])

    monkeypatch.setattr(lobby.tournaments, "room_event", director)
    made = [
        ActOnTable(first.id, act("first", ends=True), "first"),
        ActOnTable(second.id, act("second"), "second"),
    ]
    lobby.carry_out(DeskResult(requests=made), 0)
    assert done == ["first", "second", "asked as the first ended"]


def test_a_room_done_while_requests_are_carried_out_is_there_for_the_rest_of_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first request leaves its room done (nobody needs it: the lobby may forget
    it); a second, made before, is still for that room. The room is forgotten once the
    queue is empty, not before the second request is carried out (which then found no
    room and was skipped: a finished table's director never heard from it)."""
    lobby = Lobby(LobbyConfig(), ids=FixedIds(), bots=bots)
    table = RoomSettings(name="table", seats=1, origin=RoomOrigin.TOURNAMENT)
    room = lobby.open_room(table, ALICE, "a", 0)
    done: list[str] = []

    def ending(acted_on: Room) -> RoomResult:
        done.append("first")
        monkeypatch.setattr(acted_on, "closable", lambda now_ms, ttl_ms: True)
        return RoomResult()

    def after(acted_on: Room) -> RoomResult:
        done.append("second")
        assert acted_on is room and room.id in lobby.rooms
        return RoomResult()

    made = [ActOnTable(room.id, ending, "first"), ActOnTable(room.id, after, "second")]
    lobby.carry_out(DeskResult(requests=made), 0)
    assert done == ["first", "second"]
    assert room.id not in lobby.rooms and room.id not in lobby.alarms.due(10**12)
    assert lobby.rooms_of(ALICE.id) == []
