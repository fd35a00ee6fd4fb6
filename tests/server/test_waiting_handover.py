"""Quick play's queue and the open challenges handed from one coordinator to the next,
driven directly (no sockets, no Redis): what one lobby's head-to-head writes
(server/shell/cluster/waiting.py) is what the next one takes back, with each
player's place, ticket and wait; a player not connected as then loses their place,
and a challenge of theirs is withdrawn, both players told."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Collection, Mapping

import pytest

from protocol.fields import Pace, PlayerInfo
from protocol.head_to_head import (
    AnswerChallenge,
    CancelQuickPlay,
    Challenge,
    ChallengeUpdate,
    QueueStatus,
    QuickPlay,
)
from server import errors
from server.lobby import Lobby
from server.room import Outbound
from server.shell.cluster import waiting
from tests.server.roomkit import ALICE, BOB, CAROL, DAVE, FixedIds, bots

EVERYONE = (ALICE, BOB, CAROL, DAVE)


def coordinator(players: Collection[PlayerInfo] = EVERYONE) -> Lobby:
    lobby = Lobby(ids=FixedIds(), bots=bots)
    lobby.share()  # a cluster's node's
    for p in players:
        lobby.connect(p, 0)
    return lobby


def changed(lobby: Lobby) -> tuple[set[str], set[str]]:
    """Whose wait and which challenges the steps so far changed. (They were called
    directly, not through Lobby.run: the next run hands over what they noted.)"""
    notes = lobby.run(list).notes
    assert notes is not None
    return notes.waiting, notes.challenges


def copied(
    lobby: Lobby, connected: Callable[[str], Collection[str]]
) -> tuple[dict[str, str], list[str]]:
    """What the coordinator writes after the steps so far (upsert, remove)."""
    return waiting.changes(lobby.head_to_head, changed(lobby), connected)


def copy(lobby: Lobby, nodes: Mapping[str, set[str]], into: dict[str, str]) -> None:
    """What the coordinator writes after its steps, applied to ``into`` (the hash)."""
    upsert, remove = waiting.changes(
        lobby.head_to_head, changed(lobby), lambda pid: nodes.get(pid, set())
    )
    into.update(upsert)
    for key in remove:
        into.pop(key, None)


def take_over(
    hashed: dict[str, str], nodes: Mapping[str, set[str]], alive: set[str], now_ms: int
) -> tuple[Lobby, list[Outbound]]:
    """The next coordinator: everyone still connected somewhere is online in it."""
    online = [p for p in EVERYONE if nodes.get(p.id, set()) & alive]
    successor = coordinator(online)
    taken = waiting.read(hashed)
    present = taken.present(lambda pid: nodes.get(pid, set()), alive)
    outs = successor.restore_waiting(taken.waiting, taken.challenges, present, now_ms)
    return successor, outs


def to(outs: list[Outbound], player: PlayerInfo, kind: type) -> list:  # type: ignore[type-arg]
    return [o.message for o in outs if player.id in o.to and isinstance(o.message, kind)]


def test_places_tickets_and_challenges_survive_the_coordinator() -> None:
    lobby = coordinator()
    nodes = {p.id: {"b"} for p in EVERYONE}
    hashed: dict[str, str] = {}
    race = QuickPlay(pace=Pace.RACE, deals=3, contribution="a-share", ref="q")
    lobby.handle(ALICE, race, 1_000)
    lobby.handle(BOB, QuickPlay(deals=5, contribution="b-share"), 2_000)
    offered = lobby.handle(CAROL, Challenge(opponent="dave", deals=3, rated=False), 3_000)
    cid = to(offered, DAVE, ChallengeUpdate)[0].challenge.id
    copy(lobby, nodes, hashed)
    assert sorted(hashed) == [f"c:{cid}", f"q:{ALICE.id}", f"q:{BOB.id}"]

    successor, outs = take_over(hashed, nodes, {"b", "c"}, 5_000)
    assert outs == []  # nobody to pair yet, nothing withdrawn: nobody is told anything
    desk = successor.head_to_head
    kept = desk.waiting(ALICE.id)
    assert kept is not None and kept.asked == race and kept.player == ALICE
    assert kept.ticket.since_ms == 1_000 and kept.ticket.pace == "race"  # the wait goes on
    assert desk.challenges[cid].info.challenger == CAROL
    with pytest.raises(errors.AlreadyQueued):  # never queued twice
        successor.handle(ALICE, race, 6_000)

    # An opponent for alice's game arrives: the two are paired, in alice's room settings.
    outs = successor.handle(DAVE, QuickPlay(pace=Pace.RACE, deals=3, contribution="d"), 7_000)
    rooms = {m.room_id for p in (ALICE, DAVE) for m in to(outs, p, QueueStatus) if m.room_id}
    (room_id,) = rooms
    room = successor.rooms[room_id]
    assert [s.player.id for s in room.seats] == [ALICE.id, DAVE.id]
    assert room.settings.best_of == 3 and room.settings.pace == Pace.RACE
    # dave accepts carol's challenge on the new coordinator
    outs = successor.handle(DAVE, AnswerChallenge(challenge_id=cid, accept=True), 8_000)
    assert [u.state for u in to(outs, CAROL, ChallengeUpdate)] == ["accepted"]

    # What the successor writes in turn: bob still waiting, the rest over.
    copy(successor, nodes, hashed)
    assert sorted(hashed) == [f"q:{BOB.id}"]


def test_a_player_whose_connection_went_with_the_coordinator_loses_their_place() -> None:
    lobby = coordinator()
    # alice and carol were connected through the coordinator ("a") only; bob through "b".
    nodes = {ALICE.id: {"a"}, BOB.id: {"b"}, CAROL.id: {"a"}, DAVE.id: {"b"}}
    hashed: dict[str, str] = {}
    lobby.handle(ALICE, QuickPlay(deals=3), 1_000)
    lobby.handle(BOB, QuickPlay(deals=5), 1_000)
    offered = lobby.handle(CAROL, Challenge(opponent="dave"), 2_000)
    cid = to(offered, DAVE, ChallengeUpdate)[0].challenge.id
    copy(lobby, nodes, hashed)

    # "a" dies; alice came back at once through "b": a new connection, not the one she
    # queued on. Her place went with it, as a closed connection's does on one server.
    nodes = {ALICE.id: {"b"}, BOB.id: {"b"}, DAVE.id: {"b"}}
    successor, outs = take_over(hashed, nodes, {"b"}, 5_000)
    desk = successor.head_to_head
    assert desk.waiting(ALICE.id) is None and desk.waiting(BOB.id) is not None
    assert cid not in desk.challenges
    withdrawn = to(outs, DAVE, ChallengeUpdate)
    assert [(u.challenge.id, u.state) for u in withdrawn] == [(cid, "cancelled")]
    assert to(outs, CAROL, ChallengeUpdate) == withdrawn  # addressed to both
    successor.handle(ALICE, QuickPlay(deals=3), 6_000)  # she may queue again: a new ticket
    again = desk.waiting(ALICE.id)
    assert again is not None and again.ticket.since_ms == 6_000
    copy(successor, nodes, hashed)
    assert sorted(hashed) == [f"q:{ALICE.id}", f"q:{BOB.id}"]


def test_the_wait_for_a_bot_counts_from_when_the_player_joined() -> None:
    lobby = coordinator()
    nodes = {p.id: {"b"} for p in EVERYONE}
    hashed: dict[str, str] = {}
    lobby.handle(ALICE, QuickPlay(bot_after_ms=10_000, bot_level="fallback"), 0)
    copy(lobby, nodes, hashed)
    successor, outs = take_over(hashed, nodes, {"b"}, 4_000)
    assert outs == []
    assert not to(successor.tick(9_999), ALICE, QueueStatus)
    outs = successor.tick(10_000)  # not 14,000: the wait did not start again
    assert [m.state for m in to(outs, ALICE, QueueStatus)] == ["matched"]


def test_an_expired_challenge_is_told_expired_and_a_bad_entry_is_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    lobby = coordinator()
    nodes = {p.id: {"b"} for p in EVERYONE}
    hashed: dict[str, str] = {}
    offered = lobby.handle(CAROL, Challenge(opponent="dave"), 0)
    cid = to(offered, DAVE, ChallengeUpdate)[0].challenge.id
    lobby.handle(BOB, QuickPlay(), 0)
    copy(lobby, nodes, hashed)
    hashed[f"q:{ALICE.id}"] = "not json"
    hashed[f"q:{DAVE.id}"] = json.dumps({"player": {"id": DAVE.id}})
    with caplog.at_level(logging.WARNING):
        successor, outs = take_over(hashed, nodes, {"b"}, 60_000)
    assert [(u.challenge.id, u.state) for u in to(outs, DAVE, ChallengeUpdate)] == [
        (cid, "expired")
    ]
    assert [u.state for u in to(outs, CAROL, ChallengeUpdate)] == ["expired"]
    desk = successor.head_to_head
    assert desk.waiting(BOB.id) is not None
    assert desk.waiting(ALICE.id) is None and desk.waiting(DAVE.id) is None
    assert sum("does not decode" in r.getMessage() for r in caplog.records) == 2


def test_a_deposed_coordinator_forgets_and_writes_nothing() -> None:
    lobby = coordinator()
    lobby.handle(ALICE, QuickPlay(), 0)
    lobby.handle(CAROL, Challenge(opponent="dave"), 0)
    changed(lobby)  # copied as the coordinator ran those steps
    lobby.head_to_head.clear()
    assert waiting.changes(lobby.head_to_head, changed(lobby), lambda pid: {"b"}) == ({}, [])
    with pytest.raises(errors.NotQueued):
        lobby.handle(ALICE, CancelQuickPlay(), 0)
    assert lobby.head_to_head.challenges == {}
    lobby.handle(ALICE, QuickPlay(), 1_000)  # a player may queue there again, and is copied
    upsert, _ = waiting.changes(lobby.head_to_head, changed(lobby), lambda pid: {"b"})
    assert list(upsert) == [f"q:{ALICE.id}"]
