"""The room state machine, driven directly with an injected clock: no sockets."""

from __future__ import annotations

import gc
import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from engine.cards import Card
from engine.deal import commitment, room_seed, verify
from engine.grid import Grid, cell_name, parse_cell
from engine.scoring import score_board
from protocol.deals import CardDealt, MatchResult, MatchStarted, Place, Placed, Progress
from protocol.fields import Pace, PlayerInfo
from protocol.prepared import Prepared
from protocol.rooms import (
    AddBot,
    JoinRoom,
    LeaveRoom,
    Ready,
    Resync,
    RoomState,
    RoomUpdate,
    StartMatch,
)
from protocol.wire import dump_server
from server import errors
from server.bots import bot_factory, think
from server.events import (
    CardPlaced,
    MatchBegan,
    MatchEnded,
    RoomOpened,
    SeriesBegan,
    SeriesEnded,
)
from server.fallback import fallback_cell
from server.room import PROGRESS_DELAY_MS, TRANSITIONS, Phase, Room, RoomResult, views
from tests.server.roomkit import (
    ALICE,
    BOB,
    CAROL,
    DAVE,
    SECRET,
    SPECTATOR,
    Mailbox,
    answer_bots,
    make_room,
    place,
    player,
    seat_and_start,
)
from tests.server.wholestate import whole


def play_lockstep(room: Room, box: Mailbox, players, now: int = 0, step: int = 100) -> int:
    """Everyone places the first legal cell each turn until the result."""
    while room.phase == Phase.PLAYING:
        for p in players:
            now += step
            place(room, box, p, now)
    return now


def test_lockstep_match_from_ready_to_result() -> None:
    room, box = make_room(2), Mailbox()
    seat_and_start(room, box, BOB)
    assert room.phase == Phase.PLAYING
    started = box.of(ALICE, MatchStarted)[0]
    assert isinstance(started, MatchStarted)
    assert started.contributions == ["alice's share", "bob's share"]
    play_lockstep(room, box, [ALICE, BOB])
    assert room.phase == Phase.FINISHED
    result = box.result(ALICE)
    assert result == box.result(BOB)
    assert [b.player.id for b in result.boards] in (["id-alice", "id-bob"], ["id-bob", "id-alice"])
    cards_a = [Card.parse(m.card) for m in box.of(ALICE, CardDealt)]  # type: ignore[attr-defined]
    cards_b = [Card.parse(m.card) for m in box.of(BOB, CardDealt)]  # type: ignore[attr-defined]
    assert cards_a == cards_b and len(cards_a) == 16
    # Everything a client needs to verify the deal.
    assert commitment(result.server_secret) == started.server_commitment
    assert room_seed(result.server_secret, started.contributions) == result.seed
    assert commitment(result.seed) == started.seed_commitment
    assert verify(result.seed, started.seed_commitment, [*cards_a, Card.parse(result.starter)])
    for board in result.boards:
        grid = Grid.replay((parse_cell(p.cell), Card.parse(p.card)) for p in board.placements)
        assert board.score.total == score_board(grid.cards(), Card.parse(result.starter)).total


def test_a_finished_deal_is_kept_as_the_text_it_sent() -> None:
    """The room holds on to a finished deal's result as its JSON alone (no graph of
    boards, placements and itemized scores for the collector to walk), and a
    snapshot asked for afterwards carries exactly the result that was sent."""
    zoe = player('zoë "z"')
    room, box = make_room(2), Mailbox()
    seat_and_start(room, box, zoe)
    sent: list[str] = []
    now = 0
    while room.phase == Phase.PLAYING:
        for p in (ALICE, zoe):
            now += 100
            card = box.last_card(p)
            outs = box.add(room.handle(p, Place(room_id=room.id, turn=card.turn,
                                                cell=card.legal[0]), now))  # fmt: skip
            sent += [o.text() for o in outs if isinstance(o.message, MatchResult)]
    assert len(sent) == 1
    result = box.result(zoe)
    assert dump_server(result) == sent[0]
    seen: set[int] = set()
    found: list[object] = []
    stack: list[object] = [room.match]
    while stack and len(seen) < 100_000:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type):
            continue
        seen.add(id(obj))
        if isinstance(obj, BaseModel):  # a pydantic model the deal still holds
            found.append(obj)
        stack.extend(gc.get_referents(obj))
    assert found == [] and len(seen) < 100_000
    for who in (ALICE, zoe):
        (state,) = [o.text() for o in room.handle(who, Resync(room_id=room.id), now + 1).messages]
        assert json.loads(state)["result"] == json.loads(sent[0])
    assert room.view_for(zoe.id, now + 1).result == result


def test_lockstep_next_card_waits_for_everyone() -> None:
    room, box = make_room(2), Mailbox()
    seat_and_start(room, box, BOB)
    place(room, box, ALICE, 500)
    assert len(box.of(ALICE, CardDealt)) == 1
    box.add(room.tick(500 + PROGRESS_DELAY_MS))
    progress = box.of(BOB, Progress)[-1]
    assert isinstance(progress, Progress)
    assert progress.placed == {"id-alice": 1, "id-bob": 0}
    place(room, box, BOB, 700)
    assert [m.turn for m in box.of(ALICE, CardDealt)] == [1, 2]  # type: ignore[attr-defined]
    assert box.last_card(BOB).deadline_ms == 10_000


def test_progress_of_an_open_turn_is_delayed_and_shared() -> None:
    room, box = make_room(4), Mailbox()
    seat_and_start(room, box, BOB, CAROL, DAVE)
    before = len(box.of(DAVE, Progress))
    place(room, box, ALICE, 1_000)
    place(room, box, BOB, 1_040)
    # Nothing yet: one progress is due a delay after the first of them.
    assert len(box.of(DAVE, Progress)) == before
    assert room.next_deadline(1_000) == 1_000 + PROGRESS_DELAY_MS
    assert room.tick(1_000 + PROGRESS_DELAY_MS - 1) == RoomResult()
    outs = box.add(room.tick(1_000 + PROGRESS_DELAY_MS))
    assert [type(o.message) for o in outs] == [Progress]
    assert set(outs[0].to) == {"id-alice", "id-bob", "id-carol", "id-dave"}
    sent = outs[0].message
    assert isinstance(sent, Progress)
    assert sent.placed == {"id-alice": 1, "id-bob": 1, "id-carol": 0, "id-dave": 0}
    assert "cell" not in sent.model_dump_json() and room.progress_due is None
    assert room.tick(5_000) == RoomResult()  # sent once
    # The placement that completes the turn is announced at once, with the next
    # cards, and takes the delayed progress with it.
    place(room, box, CAROL, 5_100)
    assert room.progress_due == 5_100 + PROGRESS_DELAY_MS
    outs = box.add(room.handle(DAVE, Place(room_id=room.id, turn=1, cell="b1"), 5_150))
    kinds = [type(o.message) for o in outs]
    assert kinds == [Placed] + [CardDealt] * 4 + [Progress]
    last = outs[-1].message
    assert isinstance(last, Progress) and last.turn == 2
    assert set(last.placed.values()) == {1}
    assert room.progress_due is None and room.tick(5_100 + PROGRESS_DELAY_MS) == RoomResult()


def test_solo_room_on_the_server() -> None:
    room, box = make_room(1), Mailbox()
    box.add(room.handle(ALICE, Ready(room_id=room.id), 0))
    play_lockstep(room, box, [ALICE])
    result = box.result(ALICE)
    assert len(result.boards) == 1 and result.boards[0].rank == 1


def test_creator_starts_without_everyone_ready() -> None:
    room, box = make_room(4), Mailbox()
    box.add(room.handle(BOB, JoinRoom(room_id=room.id), 0))
    with pytest.raises(errors.NotCreator):
        room.handle(BOB, StartMatch(room_id=room.id), 0)
    box.add(room.handle(ALICE, StartMatch(room_id=room.id, ref="go"), 0))
    assert room.phase == Phase.PLAYING
    assert len(room.match.boards) == 2  # type: ignore[union-attr]
    # Empty contributions are filled with the player id.
    assert room.match.contributions == ("alice's share", "id-bob")  # type: ignore[union-attr]


def test_card_clock_auto_places_for_the_late_player() -> None:
    room, box = make_room(2, card_clock_ms=5_000), Mailbox()
    seat_and_start(room, box, BOB)
    place(room, box, ALICE, 1_000)
    box.add(room.tick(1_000 + PROGRESS_DELAY_MS))  # Alice's progress
    assert room.tick(4_999) == RoomResult()
    box.add(room.tick(5_000))
    auto = box.of(BOB, Placed)
    first = box.of(BOB, CardDealt)[0]
    expected = cell_name(fallback_cell(Grid(), Card.parse(first.card)))  # type: ignore[attr-defined]
    assert len(auto) == 1 and auto[0].auto and auto[0].cell == expected  # type: ignore[attr-defined]
    assert not box.of(ALICE, Placed)[0].auto  # type: ignore[attr-defined]
    assert box.last_card(ALICE).turn == 2 and box.last_card(BOB).turn == 2
    placed = [e for e in box.take_events() if isinstance(e, CardPlaced)]
    assert [(e.player_id, e.auto, e.elapsed_ms) for e in placed] == [
        ("id-alice", False, 1_000),
        ("id-bob", True, 5_000),
    ]


def whys(box: Mailbox, who: PlayerInfo) -> list[str | None]:
    """Why each card ``who`` was told of was placed for it (None: it placed it)."""
    return [m.why for m in box.of(who, Placed) if isinstance(m, Placed)]


def test_a_card_placed_for_a_player_says_why() -> None:
    """Each cause in its words: the card clock, the deal clock, a round's clock, the
    others leaving, and being away; a card one placed oneself has none."""
    room, box = make_room(2, card_clock_ms=5_000), Mailbox()
    seat_and_start(room, box, BOB)
    place(room, box, ALICE, 1_000)
    box.add(room.tick(5_000))
    assert whys(box, ALICE) == [None] and whys(box, BOB) == ["card_clock"]

    room, box = make_room(2, pace=Pace.RACE, deal_clock_ms=30_000), Mailbox()
    seat_and_start(room, box, BOB)
    place(room, box, ALICE, 1_000)
    box.add(room.tick(30_000))  # each was sent one card more: only that one is told
    assert whys(box, ALICE) == [None, "deal_clock"] and whys(box, BOB) == ["deal_clock"]

    room, box = make_room(2), Mailbox()
    seat_and_start(room, box, BOB)
    box.add(room.time_up(3_000))  # a tournament round's clock, above the room's
    assert whys(box, ALICE) == whys(box, BOB) == ["round_clock"]

    room, box = make_room(2), Mailbox()
    seat_and_start(room, box, BOB)
    box.add(room.handle(BOB, LeaveRoom(room_id=room.id), 10))  # the deal ends for alice
    assert room.phase == Phase.FINISHED
    assert whys(box, ALICE) == ["others_left"] and whys(box, BOB) == []

    room, box = make_room(2, card_clock_ms=1_000, grace_ms=2_500), Mailbox()
    seat_and_start(room, box, BOB)
    box.add(room.set_connected("id-bob", False, 0))
    for now in (1_000, 2_000, 3_000):  # away past the grace from 2.5 s on
        place(room, box, ALICE, now - 10)
        box.add(room.tick(now))
    assert whys(box, BOB)[:3] == ["card_clock", "card_clock", "away"]


def test_an_absent_player_is_auto_placed_until_the_match_ends() -> None:
    room, box = make_room(2, card_clock_ms=1_000, grace_ms=2_000), Mailbox()
    seat_and_start(room, box, BOB)
    box.add(room.set_connected("id-bob", False, 0))
    now = 0
    while room.phase == Phase.PLAYING:
        place(room, box, ALICE, now + 10)
        now += 1_000
        box.add(room.tick(now))
    result = box.result(ALICE)
    bob = next(b for b in result.boards if b.player.id == "id-bob")
    assert all(p.auto for p in bob.placements) and len(bob.placements) == 16


def test_equal_lockstep_scores_share_a_rank() -> None:
    room, box = make_room(3), Mailbox()
    seat_and_start(room, box, BOB, CAROL)
    play_lockstep(room, box, [ALICE, BOB, CAROL])  # everyone builds the same board
    ranks = [b.rank for b in box.result(ALICE).boards]
    assert ranks == [1, 1, 1]
    assert [b.seat for b in box.result(ALICE).boards] == [0, 1, 2]


def test_race_each_player_goes_at_its_own_pace_and_time_breaks_ties() -> None:
    room, box = make_room(2, pace=Pace.RACE), Mailbox()
    seat_and_start(room, box, BOB)
    now = 0
    for _ in range(16):
        now += 100
        place(room, box, ALICE, now)
    assert room.phase == Phase.PLAYING
    assert len(box.of(ALICE, CardDealt)) == 16 and len(box.of(BOB, CardDealt)) == 1
    box.add(room.tick(now + PROGRESS_DELAY_MS))
    progress = box.of(BOB, Progress)[-1]
    assert progress.placed == {"id-alice": 16, "id-bob": 0}  # type: ignore[attr-defined]
    for _ in range(16):
        now += 200
        place(room, box, BOB, now)
    result = box.result(BOB)
    assert [(b.player.id, b.rank, b.time_used_ms) for b in result.boards] == [
        ("id-alice", 1, 1_600),
        ("id-bob", 2, 4_800),  # its clock ran from the start
    ]


def test_race_deal_clock_auto_places_the_rest() -> None:
    room, box = make_room(2, pace=Pace.RACE, deal_clock_ms=30_000), Mailbox()
    seat_and_start(room, box, BOB)
    for i in range(5):
        place(room, box, ALICE, 1_000 * (i + 1))
    box.add(room.tick(29_999))
    assert room.phase == Phase.PLAYING
    box.add(room.tick(30_000))
    assert room.phase == Phase.FINISHED
    boards = {b.player.id: b for b in box.result(ALICE).boards}
    assert [p.auto for p in boards["id-alice"].placements] == [False] * 5 + [True] * 11
    assert all(p.auto for p in boards["id-bob"].placements)


def dealt_shown(box: Mailbox, who: PlayerInfo) -> list[int]:
    """The turns of every ``progress.dealt`` ``who`` was shown (models or prepared text)."""
    turns = []
    for m in box.of(who):
        model = m.model() if isinstance(m, Prepared) else m
        progress = model if isinstance(model, Progress) else getattr(model, "progress", None)
        if isinstance(progress, Progress) and progress.dealt is not None:
            turns.append(progress.dealt.turn)
    return turns


def sent_turns(box: Mailbox, who: PlayerInfo) -> int:
    cards = [m for m in box.of(who) if isinstance(m, CardDealt)]
    return max((c.turn for c in cards), default=0)


def test_the_deal_clock_filling_the_boards_shows_no_card_a_player_was_never_sent() -> None:
    """A race whose deal clock runs out: the server fills both boards, and the
    ``progress`` before the result shows no card beyond the last one bob was sent."""
    room, box = make_room(2, pace=Pace.RACE, deal_clock_ms=30_000), Mailbox()
    box.add(room.handle(SPECTATOR, JoinRoom(room_id=room.id, spectate=True), 0))
    seat_and_start(room, box, BOB)
    for i in range(5):
        place(room, box, ALICE, 1_000 * (i + 1))
    place(room, box, BOB, 6_000)
    box.add(room.tick(30_000))
    assert room.phase == Phase.FINISHED
    held = min(sent_turns(box, ALICE), sent_turns(box, BOB))
    assert held == 2
    for who in (ALICE, BOB, SPECTATOR):
        assert dealt_shown(box, who) and max(dealt_shown(box, who)) <= held, who.name


def test_the_others_leaving_shows_no_card_the_stayer_was_never_sent() -> None:
    """Lockstep, bob leaves at card 3: the deal ends at once, alice's board filled for
    her; no ``progress`` shows her a card after the third."""
    room, box = make_room(2), Mailbox()
    seat_and_start(room, box, BOB)
    for now in (100, 200):
        place(room, box, ALICE, now)
        place(room, box, BOB, now + 10)
    box.add(room.handle(BOB, LeaveRoom(room_id=room.id), 300))
    assert room.phase == Phase.FINISHED
    assert sent_turns(box, ALICE) == 3
    assert max(dealt_shown(box, ALICE)) <= 3


def test_reconnect_restores_board_card_and_clock() -> None:
    room, box = make_room(2, card_clock_ms=10_000), Mailbox()
    seat_and_start(room, box, BOB)
    place(room, box, ALICE, 100)
    place(room, box, BOB, 200)
    box.add(room.set_connected("id-bob", False, 1_000))
    assert not room.info(0).players[1].connected
    alice_progress = box.of(ALICE, Progress)[-1]
    assert alice_progress.connected["id-bob"] is False  # type: ignore[attr-defined]
    outs = box.add(room.set_connected("id-bob", True, 4_200))
    state = outs[0].message
    assert outs[0].to == ("id-bob",) and isinstance(state, RoomState)
    assert state.you is not None
    assert state.you.turn == 2 and state.you.card == box.last_card(BOB).card
    assert state.you.deadline_ms == 10_000 - (4_200 - 200)
    assert [p.turn for p in state.you.placements] == [1]
    assert state.you.cells.count(None) == 15
    assert state.progress is not None and state.progress.connected["id-bob"] is True


def test_waiting_seat_is_freed_after_the_grace_period() -> None:
    room, box = make_room(3, grace_ms=5_000), Mailbox()
    box.add(room.handle(BOB, JoinRoom(room_id=room.id), 0))
    room.set_connected("id-bob", False, 1_000)
    assert room.tick(5_999) == RoomResult()
    box.add(room.tick(6_000))
    assert [s.player.id for s in room.seats] == ["id-alice"]


def test_spectators_see_progress_and_then_every_board() -> None:
    room, box = make_room(2), Mailbox()
    box.add(room.handle(SPECTATOR, JoinRoom(room_id=room.id, spectate=True), 0))
    seat_and_start(room, box, BOB)
    with pytest.raises(errors.NotSeated):
        room.handle(SPECTATOR, Place(room_id=room.id, turn=1, cell="a1"), 0)
    play_lockstep(room, box, [ALICE, BOB])
    kinds = {type(m) for m in box.of(SPECTATOR)}
    assert kinds <= {RoomState, RoomUpdate, MatchStarted, Progress, MatchResult}
    state = box.of(SPECTATOR, RoomState)[0]
    assert state.you is None  # type: ignore[attr-defined]
    assert len(box.result(SPECTATOR).boards) == 2


def test_bot_seat_plays_instantly() -> None:
    room, box = make_room(2), Mailbox()
    with pytest.raises(errors.UnknownStrategy):
        room.handle(ALICE, AddBot(room_id=room.id, strategy="nonsense"), 0)
    box.add(room.handle(ALICE, AddBot(room_id=room.id, strategy="fallback"), 0))
    box.add(room.handle(ALICE, Ready(room_id=room.id), 0))
    assert room.phase == Phase.PLAYING
    play_lockstep(room, box, [ALICE])
    boards = box.result(ALICE).boards
    assert {b.player.id for b in boards} == {"id-alice", "bot-fallback-1"}
    assert not any(p.auto for b in boards for p in b.placements)


def test_leaving_a_deal_of_two_ends_it_at_once_with_the_leaver_last() -> None:
    room, box = make_room(2, card_clock_ms=1_000), Mailbox()
    seat_and_start(room, box, BOB)
    place(room, box, ALICE, 5)
    box.add(room.handle(BOB, LeaveRoom(room_id=room.id), 10))
    assert not room.is_member("id-bob")
    assert room.phase == Phase.FINISHED  # alice has nothing left to play for
    result = box.result(ALICE)
    assert [b.player.id for b in result.boards] == ["id-alice", "id-bob"]
    assert [b.rank for b in result.boards] == [1, 2]  # whatever the boards scored
    assert [(n.player_id, n.reason, n.text) for n in result.ranking] == [
        ("id-bob", "left", "bob resigned: ranked last")
    ]
    alice_board = result.boards[0]
    assert not alice_board.placements[0].auto and all(p.auto for p in alice_board.placements[1:])
    assert result.series is not None and result.series.finished
    assert result.series.winner is not None and result.series.winner.id == "id-alice"
    assert room.series.forfeited == {"id-bob"}


def test_leaving_a_deal_of_three_the_others_play_on_and_the_leaver_is_last() -> None:
    room, box = make_room(3, card_clock_ms=1_000), Mailbox()
    seat_and_start(room, box, BOB, CAROL)
    box.add(room.handle(BOB, LeaveRoom(room_id=room.id), 10))
    assert room.phase == Phase.PLAYING
    assert room.match is not None and room.match.boards["id-bob"].placed == 1  # at once
    place(room, box, ALICE, 20)
    place(room, box, CAROL, 20)  # turn 2 is dealt; bob's card goes down at once again
    assert room.match.boards["id-bob"].placed == 2
    outs = box.add(room.handle(BOB, JoinRoom(room_id=room.id), 100))
    state = outs[0].message
    assert isinstance(state, RoomState) and state.you is not None
    assert state.you.turn is None and all(p.auto for p in state.you.placements)
    place(room, box, ALICE, 120)
    place(room, box, CAROL, 120)  # back in his seat, bob plays turn 3 himself
    assert box.last_card(BOB).turn == 3
    assert room.series.forfeited == {"id-bob"}  # the forfeit stands
    now = 200
    while room.phase == Phase.PLAYING:
        for who in (ALICE, BOB, CAROL):
            if views.waiting_turn(room, who.id) is not None:
                place(room, box, who, now)
        now += 10
    result = box.result(CAROL)
    assert result.boards[-1].player.id == "id-bob"
    assert result.boards[-1].rank == 3 and all(b.rank < 3 for b in result.boards[:-1])
    assert [n.player_id for n in result.ranking if n.reason == "left"] == ["id-bob"]


def test_events_tell_storage_what_happened() -> None:
    room, box = make_room(1), Mailbox()
    box.add(room.handle(ALICE, Ready(room_id=room.id), 0))
    play_lockstep(room, box, [ALICE])
    opened = room.opened()  # the lobby stores it as it opens the room
    assert isinstance(opened, RoomOpened) and opened.room_id == room.id and opened.at_ms == 0
    events = [opened, *box.take_events()]
    assert isinstance(events[1], SeriesBegan)
    assert isinstance(events[2], MatchBegan)
    assert sum(isinstance(e, CardPlaced) for e in events) == 16
    assert isinstance(events[-2], MatchEnded) and isinstance(events[-1], SeriesEnded)
    assert events[2].seed == box.result(ALICE).seed
    assert box.take_events() == []


def test_phase_transitions_follow_the_table() -> None:
    assert TRANSITIONS[Phase.WAITING] == {Phase.PLAYING}
    assert TRANSITIONS[Phase.PLAYING] == {Phase.BETWEEN, Phase.FINISHED}
    assert TRANSITIONS[Phase.FINISHED] == {Phase.PLAYING}  # only a rematch reopens play
    room = make_room(1)
    with pytest.raises(AssertionError):
        room.go(Phase.FINISHED)


# ----------------------------------------------------------------------
# Refused commands change nothing


def _waiting() -> tuple[Room, Mailbox]:
    room, box = make_room(2), Mailbox()
    return room, box


def _full() -> tuple[Room, Mailbox]:
    room, box = make_room(2), Mailbox()
    box.add(room.handle(BOB, JoinRoom(room_id=room.id), 0))
    return room, box


def _playing() -> tuple[Room, Mailbox]:
    room, box = make_room(2), Mailbox()
    box.add(room.handle(SPECTATOR, JoinRoom(room_id=room.id, spectate=True), 0))
    seat_and_start(room, box, BOB)
    place(room, box, ALICE, 100, "b2")
    place(room, box, BOB, 100)
    place(room, box, ALICE, 200, "c3")
    return room, box


def _turn_over() -> tuple[Room, Mailbox]:
    """Lockstep: both placed turn 2 (it is over), alice turn 3 too (it is not)."""
    room, box = _playing()
    place(room, box, BOB, 300)
    place(room, box, ALICE, 400)
    return room, box


R = "room1"
REFUSALS = [
    (_waiting, ALICE, Place(room_id=R, turn=1, cell="a1"), "not_playing"),
    (_waiting, CAROL, Ready(room_id=R), "not_in_room"),
    (_waiting, CAROL, Resync(room_id=R), "not_in_room"),
    (_waiting, CAROL, LeaveRoom(room_id=R), "not_in_room"),
    (_waiting, ALICE, AddBot(room_id=R, strategy="nope"), "unknown_strategy"),
    (_full, BOB, StartMatch(room_id=R), "not_creator"),
    (_full, BOB, AddBot(room_id=R), "not_creator"),
    (_full, CAROL, JoinRoom(room_id=R), "room_full"),
    (_full, ALICE, AddBot(room_id=R, strategy="fallback"), "room_full"),
    (_playing, CAROL, JoinRoom(room_id=R), "room_started"),
    (_playing, ALICE, Ready(room_id=R), "room_started"),
    (_playing, ALICE, StartMatch(room_id=R), "room_started"),
    (_playing, ALICE, Place(room_id=R, turn=2, cell="d4"), "already_placed"),
    (_playing, ALICE, Place(room_id=R, turn=1, cell="d4"), "past_turn"),
    (_playing, BOB, Place(room_id=R, turn=3, cell="b1"), "future_turn"),
    (_playing, BOB, Place(room_id=R, turn=16, cell="b1"), "future_turn"),
    (_playing, BOB, Place(room_id=R, turn=2, cell="d4"), "illegal_cell"),
    (_playing, BOB, Place(room_id=R, turn=2, cell="a1"), "occupied_cell"),
    (_playing, BOB, Place(room_id=R, turn=2, cell="z9"), "bad_cell"),
    (_playing, SPECTATOR, Place(room_id=R, turn=2, cell="b1"), "not_seated"),
    (_playing, SPECTATOR, Ready(room_id=R), "not_seated"),
    (_playing, BOB, Place(room_id=R, turn=2, cell="B1"), "bad_cell"),  # one spelling only
    (_turn_over, ALICE, Place(room_id=R, turn=2, cell="d4"), "past_turn"),
    (_turn_over, ALICE, Place(room_id=R, turn=3, cell="d4"), "already_placed"),
]


@pytest.mark.parametrize(("setup", "who", "command", "code"), REFUSALS)
def test_refused_commands_leave_the_room_exactly_as_it_was(setup, who, command, code) -> None:  # type: ignore[no-untyped-def]
    room, _ = setup()
    before = whole(room)
    with pytest.raises(errors.RoomError) as caught:
        room.handle(who, command, 300)
    assert caught.value.code == code
    assert isinstance(caught.value, ValueError)
    assert whole(room) == before
    assert room.conclude([]) == RoomResult()  # and noted nothing


# ----------------------------------------------------------------------
# Hidden information, over random matches

CARD_TEXT = re.compile(r'"([A2-9TJQK][CDHS])"')


def _check_private(box: Mailbox, room: Room) -> None:
    """What each recipient got before the result: its own board and cards so far, nothing else."""
    m = room.match
    assert m is not None
    for pid, messages in box.inbox.items():
        seen: set[str] = set()
        for msg in messages:
            if isinstance(msg, MatchResult):
                break
            if isinstance(msg, CardDealt):
                assert pid in m.boards
                assert msg.card == str(m.deal.cards[msg.turn - 1])
                seen.add(msg.card)
            if isinstance(msg, Placed):
                own = m.boards[pid].placements[msg.turn - 1]
                assert (msg.cell, msg.card) == (own.out().cell, own.out().card)
            if isinstance(msg, RoomState) and msg.you is not None:
                own_cells = m.boards[pid].cells()
                assert all(c is None or c == own_cells[i] for i, c in enumerate(msg.you.cells))
                if msg.you.card is not None:
                    seen.add(msg.you.card)
            assert not isinstance(msg, RoomState) or msg.result is None
            # The card every player holds is checked when sent (_check_common).
            text = msg.model_dump_json(exclude={"dealt": True, "progress": {"dealt"}})
            for card in CARD_TEXT.findall(text):
                assert card in seen, f"{pid} saw {card} before it was dealt to it: {text}"


def _check_common(room: Room, result: RoomResult) -> RoomResult:
    """A card shown to the whole room (``progress.dealt``) is, when it is sent, no
    further on than the card any seated player holds (or placed, or holds next)."""
    m = room.match
    for out in result.messages:
        message = out.message.model() if isinstance(out.message, Prepared) else out.message
        progress = getattr(message, "progress", message)
        if not isinstance(progress, Progress) or progress.dealt is None:
            continue
        assert m is not None
        assert progress.dealt.card == str(m.deal.cards[progress.dealt.turn - 1])
        for board in m.boards.values():
            assert progress.dealt.turn <= len(board.placements) + 1, (progress, board.placed)
    assert room.conclude([]) == RoomResult(), "the room kept something of its step"
    return result


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(1, 4), race=st.booleans())
def test_nobody_sees_a_future_card_or_another_board_before_the_result(
    seed: int, seats: int, race: bool
) -> None:
    rng = random.Random(seed)
    room = make_room(seats, pace=Pace.RACE if race else Pace.LOCKSTEP, card_clock_ms=3_000)
    box = Mailbox()
    box.add(
        _check_common(room, room.handle(SPECTATOR, JoinRoom(room_id=room.id, spectate=True), 0))
    )
    for p in [BOB, CAROL, DAVE][: rng.randint(0, seats - 1)]:
        box.add(_check_common(room, room.handle(p, JoinRoom(room_id=room.id), 0)))
    if rng.random() < 0.5 and len(room.seats) < seats:
        box.add(
            _check_common(room, room.handle(ALICE, AddBot(room_id=room.id, strategy="fallback"), 0))
        )
    box.add(_check_common(room, room.handle(ALICE, StartMatch(room_id=room.id), 0)))
    humans = [s.player for s in room.seats if s.bot is None]
    now = 0
    while room.phase == Phase.PLAYING:
        now += rng.choice([10, 200, 1_500, 4_000])
        box.add(_check_common(room, room.tick(now)))
        who = rng.choice(humans)
        roll = rng.random()
        if roll < 0.1:
            box.add(_check_common(room, room.set_connected(who.id, rng.random() < 0.5, now)))
            continue
        if roll < 0.15:
            box.add(_check_common(room, room.handle(who, Resync(room_id=room.id), now)))
            continue
        turn = views.waiting_turn(room, who.id)
        if turn is None or not room.is_member(who.id):
            continue
        board = room.match.boards[who.id]  # type: ignore[union-attr]
        cell = rng.choice(board.grid.legal_cells())
        names = "abcd"
        box.add(
            _check_common(
                room,
                room.handle(
                    who,
                    Place(room_id=room.id, turn=turn, cell=f"{names[cell % 4]}{cell // 4 + 1}"),
                    now,
                ),
            )
        )
        _check_private(box, room)
    _check_private(box, room)
    assert room.phase == Phase.FINISHED
    for pid in room.members():
        assert len([m for m in box.inbox.get(pid, []) if isinstance(m, MatchResult)]) == 1


def test_the_room_is_shown_the_card_every_player_holds() -> None:
    """Lockstep: the turn's card, to every member with the progress; a race: the
    card of the lowest turn any board has reached."""
    room, box = make_room(2), Mailbox()
    box.add(room.handle(SPECTATOR, JoinRoom(room_id=room.id, spectate=True), 0))
    seat_and_start(room, box, BOB)
    assert room.match is not None
    state = room.view_for(SPECTATOR.id, 1)
    assert state.progress is not None and state.progress.dealt is not None
    assert (state.progress.dealt.turn, state.progress.dealt.card) == (
        1,
        str(room.match.deal.cards[0]),
    )
    place(room, box, ALICE, 1)
    place(room, box, BOB, 1)
    shown = [m for m in box.of(SPECTATOR, Progress) if isinstance(m, Progress) and m.dealt]
    assert shown[-1].dealt is not None and shown[-1].dealt.turn == 2
    assert shown[-1].dealt.card == str(room.match.deal.cards[1])

    race, box = make_room(2, pace=Pace.RACE), Mailbox()
    seat_and_start(race, box, BOB)
    for turn in (1, 2, 3):
        place(race, box, ALICE, turn)
    assert race.match is not None
    progress = race.view_for(SPECTATOR.id, 1).progress
    assert progress is not None and progress.dealt is not None
    assert progress.dealt.turn == 1  # bob holds card 1 still; alice is on card 4


def test_secret_is_never_sent_before_the_result() -> None:
    room, box = make_room(2), Mailbox()
    seat_and_start(room, box, BOB)
    place(room, box, ALICE, 1)
    for messages in box.inbox.values():
        for msg in messages:
            assert SECRET not in msg.model_dump_json()
            assert room.match.seed not in msg.model_dump_json()  # type: ignore[union-attr]


def test_server_bot_factory() -> None:
    from server.bots import bot_factory, strategy_names

    assert "fallback" in strategy_names()
    grid = Grid()
    assert grid.why_illegal(bot_factory("fallback", "x")(grid, Card.parse("5H"))) is None
    with pytest.raises(KeyError):
        bot_factory("no-such-strategy", "x")


def test_a_bot_thinking_elsewhere_is_asked_and_its_answer_is_its_placement() -> None:
    room, box = make_room(2, think_elsewhere=True, strategies=bot_factory), Mailbox()
    box.add(room.handle(ALICE, AddBot(room_id=room.id, strategy="expert"), 0))
    box.add(room.handle(ALICE, Ready(room_id=room.id), 0))
    bot = "bot-expert-1"
    for turn in range(1, 17):
        asked = box.take_bot_turns()
        assert [(t.player_id, t.turn, t.strategy) for t in asked] == [(bot, turn, "expert")]
        board = room.match.boards[bot]  # type: ignore[union-attr]
        assert asked[0].placements == tuple((p.cell, str(p.card)) for p in board.placements)
        assert asked[0].card == str(room.match.deal.cards[turn - 1])  # type: ignore[union-attr]
        place(room, box, ALICE, turn * 10)
        assert box.take_bot_turns() == []  # asked once per turn
        cell = think(asked[0])
        assert think(asked[0]) == cell  # seeded per seat and turn: the same move again
        box.add(room.bot_move(bot, turn, cell, turn * 10 + 5))
    boards = box.result(ALICE).boards
    assert not any(p.auto for b in boards for p in b.placements)
    ours = next(b for b in boards if b.player.id == bot)
    assert [p.elapsed_ms for p in ours.placements] == [15] + [10] * 15


def test_a_late_bot_answer_is_refused_and_the_clock_covers_a_slow_bot() -> None:
    room, box = make_room(2, think_elsewhere=True, card_clock_ms=1_000), Mailbox()
    box.add(room.handle(ALICE, AddBot(room_id=room.id, strategy="fallback"), 0))
    box.add(room.handle(ALICE, Ready(room_id=room.id), 0))
    (turn,) = box.take_bot_turns()
    place(room, box, ALICE, 100)
    box.add(room.tick(1_000))  # the bot has not answered: the clock places for it
    board = room.match.boards[turn.player_id]  # type: ignore[union-attr]
    assert board.placed == 1 and board.placements[0].auto
    before = whole(room)
    with pytest.raises(errors.PastTurn):
        room.bot_move(turn.player_id, 1, fallback_cell(Grid(), Card.parse(turn.card)), 1_001)
    with pytest.raises(errors.NotSeated):
        room.bot_move(ALICE.id, 2, 0, 1_001)
    (second,) = box.take_bot_turns()
    assert second.turn == 2
    taken = board.placements[0].cell
    with pytest.raises(errors.RuleError):
        room.bot_move(second.player_id, 2, taken, 1_001)
    assert whole(room) == before
    box.add(room.bot_move(second.player_id, 2, think(second), 1_002))
    assert board.placed == 2 and not board.placements[1].auto


def test_race_bots_thinking_elsewhere_are_asked_card_by_card() -> None:
    room = make_room(2, pace=Pace.RACE, think_elsewhere=True, strategies=bot_factory)
    box = Mailbox()
    box.add(room.handle(ALICE, AddBot(room_id=room.id, strategy="greedy"), 0))
    box.add(room.handle(ALICE, Ready(room_id=room.id), 0))
    assert answer_bots(room, box, 50) == 16
    for t in range(16):
        place(room, box, ALICE, 100 + t)
    assert room.phase == Phase.FINISHED


def test_each_command_is_refused_outside_the_phases_its_table_allows() -> None:
    from server.room.phases import COMMANDS, require

    for command, allowed in COMMANDS.items():
        for phase in Phase:
            if phase in allowed.phases:
                require(phase, command)
            else:
                with pytest.raises(allowed.refusal):
                    require(phase, command)
    require(Phase.PLAYING, LeaveRoom)  # not in the table: any phase


def test_rank_notes_name_the_deciding_figure() -> None:
    from server.room.results import rank_notes

    rows = [((0, -39, 17_660), ALICE), ((0, -39, 17_690), BOB), ((0, -39, 17_690), CAROL),
            ((1, -55, 9_000), DAVE)]  # fmt: skip
    notes = rank_notes(rows, [1, 2, 2, 4])
    assert [(n.player_id, n.reason, n.text) for n in notes] == [
        ("id-dave", "left", "dave resigned: ranked last"),
        ("id-alice", "time_used", "alice won on time used: 17.66 s against bob's 17.69 s"),
    ]  # fmt: skip  (bob and carol share second: no note between them)
    assert (notes[1].against, notes[1].time_used_ms, notes[1].against_ms) == (
        "id-bob", 17_660, 17_690,
    )  # fmt: skip
    close = rank_notes([((0, -20, 5_001), BOB), ((0, -20, 5_004), CAROL)], [2, 3])
    assert close[0].text == "bob ranked above carol on time used: 5.001 s against carol's 5.004 s"
    assert rank_notes([((0, -20, 0), BOB), ((0, -20, 0), CAROL)], [1, 1]) == []  # lockstep


def test_a_finished_room_waits_out_the_grace_of_a_player_who_dropped_or_is_moving() -> None:
    """The cluster's resync answered not_in_room: a player moving to its room's node
    (node_hint) is connected nowhere for a moment, and a finished room whose last
    connected player dropped was forgotten at once; its player, back a moment later,
    found its own room gone. Now the room waits out the grace, then closes."""
    from protocol.rooms import Resync
    from server.room import Phase

    room = make_room(grace_ms=5_000)
    box = Mailbox()
    seat_and_start(room, box, BOB)
    now = 0
    while room.phase != Phase.FINISHED:
        now += 10
        for who in (ALICE, BOB):
            place(room, box, who, now)
    room.handle(ALICE, LeaveRoom(room_id=room.id), now)  # one leaves for good
    room.set_connected(BOB.id, False, now)  # the other's connection closes: a move
    assert not room.closable(now + 100, 600_000)
    due = room.next_deadline(now)  # the room update held back for the others first
    assert due is not None and due < now + 5_000
    room.tick(due)
    assert room.next_deadline(due) == now + 5_000  # then looked at when the grace ends
    room.set_connected(BOB.id, True, now + 100)  # back, on the room's node
    (state,) = room.handle(BOB, Resync(room_id=room.id), now + 150).messages
    assert state.message.type == "room_state"
    room.set_connected(BOB.id, False, now + 200)  # gone for good this time
    assert not room.closable(now + 5_199, 600_000)
    assert room.closable(now + 5_200, 600_000)  # the grace is over: nobody waits


def test_the_progress_that_completes_a_match_is_its_last_moment_of_play() -> None:
    """As docs/protocol.md says: the progress just before match_result keeps the clock
    as it stood and card 16 as dealt; a snapshot's progress after it has both null."""
    room, box = make_room(2), Mailbox()
    seat_and_start(room, box, BOB)
    now = play_lockstep(room, box, [ALICE, BOB])
    got = [m.model() if isinstance(m, Prepared) else m for m in box.of(ALICE)]
    at = next(i for i, m in enumerate(got) if isinstance(m, MatchResult))
    last = got[at - 1]
    assert isinstance(last, Progress) and last.deadline_ms is not None
    assert last.dealt is not None and last.dealt.turn == 16
    assert last.dealt.card == str(room.match.deal.cards[15])  # type: ignore[union-attr]
    after = room.view_for("id-alice", now + 10).progress
    assert after is not None and after.deadline_ms is None and after.dealt is None
