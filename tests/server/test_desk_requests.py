"""Head to head asks, the lobby opens (server/requests.py): a pairing is a request in
the desk's result, carried out by the lobby once the desk's step is done; the desk
holds no lobby and calls nothing back in it."""

from __future__ import annotations

import ast
from pathlib import Path

from protocol.deals import MatchStarted
from protocol.fields import Pace
from protocol.head_to_head import (
    AnswerChallenge,
    Challenge,
    ChallengeUpdate,
    QueueStatus,
    QuickPlay,
)
from protocol.rooms import RoomState
from server.config import LobbyConfig
from server.head_to_head import HeadToHead
from server.lobby import Lobby
from server.ratings import RatingBook
from server.requests import DeskResult, OpenHeadToHead
from tests.server.roomkit import ALICE, BOB, FixedIds, bots

ROOT = Path(__file__).resolve().parents[2]


def test_the_desk_holds_no_lobby_and_calls_nothing_back_in_it() -> None:
    tree = ast.parse((ROOT / "server/head_to_head.py").read_text(encoding="utf-8"))
    imported = {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert "server.lobby" not in imported
    names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert {"lobby", "settle", "open_room"} & names == set()


def test_an_accepted_challenge_is_a_request_and_opens_no_room() -> None:
    desk = HeadToHead(LobbyConfig(), FixedIds(), RatingBook(), bots)
    offered = desk.challenge(ALICE, BOB, Challenge(opponent="bob", contribution="a"), 0)
    [challenge_id] = desk.challenges
    assert [type(o.message) for o in offered] == [ChallengeUpdate, ChallengeUpdate]

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
    outs = lobby.handle(BOB, QuickPlay(pace=Pace.LOCKSTEP, deals=1, contribution="b"), 0)
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
    assert state.room.id in lobby.rooms and lobby.events  # opened, settled, its events kept
