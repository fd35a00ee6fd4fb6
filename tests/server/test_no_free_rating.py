"""No free rating: a rated series a side never played is aborted, and of two who
forfeit the first to leave loses. The room directly, then the farming attack over
real sockets against a live server."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from protocol.fields import Pace, PlayerInfo
from protocol.rooms import LeaveRoom
from server.events import Abandoned, SeriesEnded
from server.limits import Quota
from server.room import TURNS, Room, RoomSettings, views
from server.series import Series
from server.storage import Storage, StoredPlayer
from tests.server.live import running_server, signed_in
from tests.server.roomkit import ALICE, BOB, SECRET, FixedIds, Mailbox, place, seat_and_start
from tests.server.test_head_to_head import FAST, get

pytestmark = pytest.mark.timeout(120)


def rated_room(deals: int = 1, *, pace: Pace = Pace.LOCKSTEP) -> Room:
    settings = RoomSettings(name="rated", pace=pace, best_of=deals, rated=True, card_clock_ms=1_000)
    return Room(
        "room1", settings, ALICE, now_ms=0, server_secret=SECRET, match_id="match1",
        ids=FixedIds(), between_deals_ms=100,
    )  # fmt: skip


def play_deal(room: Room, box: Mailbox, *people: PlayerInfo, now_ms: int = 10) -> int:
    """Each of ``people`` places every card it is dealt until the deal is over."""
    series = room.series
    deals = len(series.deals)
    while len(series.deals) == deals and room.phase == "playing":
        for who in people:
            if views.waiting_turn(room, who.id) is not None:
                place(room, box, who, now_ms)
        now_ms += 10
    return now_ms


def alice_plays_the_clock_plays_bob(
    room: Room, box: Mailbox, now_ms: int = 0, until: Callable[[], bool] | None = None
) -> int:
    """Until the series is over (or ``until`` says so), alice places each card as it
    comes; bob's go by the card clock. Returns the time then."""
    while not (until() if until is not None else room.series.finished):
        if views.waiting_turn(room, ALICE.id) is not None:
            place(room, box, ALICE, now_ms)
        now_ms += 1_000
        box.add(room.tick(now_ms))
    return now_ms


async def stored_rated_duel(path: Path, deals: int) -> tuple[Storage, Room, Mailbox]:
    """A store with alice and bob in it, and a rated room of theirs started."""
    storage = await Storage.open(path, opened_ms=0)
    for who in (ALICE, BOB):
        await storage.create_player(StoredPlayer(who.id, who.name, False, False), who.id, 0)
    room = rated_room(deals)
    box = Mailbox.opening(room)
    seat_and_start(room, box, BOB)
    return storage, room, box


def ended(box: Mailbox) -> SeriesEnded:
    (found,) = [e for e in box.take_events() if isinstance(e, SeriesEnded)]
    return found


def abandonments(events: list[Any]) -> list[tuple[str, str]]:
    return [(e.player_id, e.kind) for e in events if isinstance(e, Abandoned)]


@pytest.mark.parametrize("pace", [Pace.LOCKSTEP, Pace.RACE])
@pytest.mark.parametrize("deals", [1, 3, 5])
def test_leaving_before_placing_a_card_aborts_a_rated_series(deals: int, pace: Pace) -> None:
    room = rated_room(deals, pace=pace)
    box = Mailbox.opening(room)
    seat_and_start(room, box, BOB)
    box.add(room.handle(BOB, LeaveRoom(room_id=room.id), 5))
    play_deal(room, box, ALICE)
    events = box.take_events()
    (end,) = [e for e in events if isinstance(e, SeriesEnded)]
    assert end.aborted and end.winner_id is None and end.deals == 1
    assert abandonments(events) == [(BOB.id, "left")]  # counted once, for the leaver
    result = box.result(ALICE)
    assert result.series is not None and result.series.aborted and result.series.finished
    assert result.series.winner is None and room.phase == "finished"


def test_a_player_who_never_moves_aborts_it_and_is_recorded_idle() -> None:
    room = rated_room(3)
    box = Mailbox.opening(room)
    seat_and_start(room, box, BOB)
    alice_plays_the_clock_plays_bob(room, box)
    events = box.take_events()
    (end,) = [e for e in events if isinstance(e, SeriesEnded)]
    assert end.aborted and end.deals == 1
    assert abandonments(events) == [(BOB.id, "idle")]


def test_one_card_placed_is_a_game_played_and_a_later_leaver_forfeits() -> None:
    room = rated_room(1)
    box = Mailbox.opening(room)
    seat_and_start(room, box, BOB)
    place(room, box, BOB, 1)
    box.add(room.handle(BOB, LeaveRoom(room_id=room.id), 2))
    play_deal(room, box, ALICE)
    end = ended(box)
    assert not end.aborted and end.winner_id == ALICE.id
    # Best of three: both play the first deal; bob leaves in the second without a card.
    room = rated_room(3)
    box = Mailbox.opening(room)
    seat_and_start(room, box, BOB)
    now = play_deal(room, box, ALICE, BOB)
    box.add(room.tick(now + 200))  # the second deal begins
    assert room.series.started == 2
    box.add(room.handle(BOB, LeaveRoom(room_id=room.id), now + 300))
    play_deal(room, box, ALICE, now_ms=now + 400)
    end = ended(box)
    assert not end.aborted and end.winner_id == ALICE.id


@pytest.mark.parametrize("first", [ALICE, BOB])
def test_when_both_leave_the_first_to_leave_loses(first: PlayerInfo) -> None:
    second = BOB if first is ALICE else ALICE
    room = rated_room(1)
    box = Mailbox.opening(room)
    seat_and_start(room, box, BOB)
    place(room, box, ALICE, 1)
    place(room, box, BOB, 1)
    box.add(room.handle(first, LeaveRoom(room_id=room.id), 2))
    box.add(room.handle(second, LeaveRoom(room_id=room.id), 3))
    assert room.series.finished  # the server played both boards out, the same way
    end = ended(box)
    assert not end.aborted and end.winner_id == second.id
    assert [s[0] for s in end.standings] == [second.id, first.id]


def test_the_forfeit_order_ranks_and_a_series_without_order_still_ranks() -> None:
    series = Series("s", 1, ("a", "b", "c"), ["x"])
    series.forfeit("c")
    series.forfeit("a")
    assert [s.player_id for s in series.standings()] == ["b", "a", "c"]


async def test_a_resignation_before_a_card_is_an_abort_stored_at_once(tmp_path: Path) -> None:
    """Bob resigned before a card: the deal ends there, the series is aborted, and
    that is stored: a restart finds nothing to resume."""
    storage, room, box = await stored_rated_duel(tmp_path / "db", 3)
    place(room, box, ALICE, 1)
    box.add(room.handle(BOB, LeaveRoom(room_id=room.id), 2))
    events = box.take_events()
    (end,) = [e for e in events if isinstance(e, SeriesEnded)]
    assert end.aborted and end.winner_id is None and end.deals == 1
    await storage.persist(events)
    assert await storage.unfinished() == []
    await storage.close()


# ----------------------------------------------------------------------
# Over real sockets: the farming attack of the finding, twenty times in a row


async def test_farming_wins_off_fresh_accounts_that_leave_moves_no_rating(tmp_path: Path) -> None:
    # The farmer places 320 cards as fast as it can: no flood limit in the way (FAST
    # raises it), nor the quota on new players (20 an hour per address would stop it
    # first): what is tested here is that no rating moves.
    async with running_server(
        tmp_path / "farm.db", new_players_per_address=Quota(1_000, 60), **FAST
    ) as live:
        farmer = await signed_in(live, "farmer")
        for i in range(20):
            await farmer.send(type="create_room", name="farm", seats=2, rated=True, ref="c")
            room_id = (await farmer.until("room_state"))["room"]["id"]
            fresh = await signed_in(live, f"throwaway{i}")
            await fresh.send(type="join_room", room_id=room_id)
            await fresh.until("room_state")
            await fresh.send(type="ready", room_id=room_id)
            await farmer.send(type="ready", room_id=room_id)
            await fresh.until("match_started")
            await fresh.send(type="leave_room", room_id=room_id)
            await fresh.until("left")
            # The resignation ends the deal at once: the server placed every card.
            result = await farmer.play_to_end(room_id)
            mine = next(b for b in result["boards"] if b["player"]["id"] == farmer.id)
            assert len(mine["placements"]) == TURNS
            assert result["series"]["aborted"] and result["series"]["winner"] is None
            record = await get(live, f"/api/players/throwaway{i}/matches")
            assert record["abandoned"] == {"left": 1, "timeout": 0, "idle": 0}
            await fresh.close()
        await farmer.still_alive()
        assert not [m for m in farmer.log if m["type"] == "ratings"]
        rated = await get(live, "/api/players/farmer/ratings")
        assert rated["ratings"] == {} and rated["history"] == []
        board = await get(live, "/api/leaderboard/lockstep?top=100")
        assert board["top"] == []
        series = await get(live, f"/api/series/{result['match_id']}")
        assert series["status"] == "aborted" and series["winner_id"] is None
        await farmer.close()


async def test_both_leaving_a_rated_match_the_first_loses_over_the_wire(tmp_path: Path) -> None:
    async with running_server(tmp_path / "both.db", **FAST) as live:
        ann = await signed_in(live, "ann")
        ben = await signed_in(live, "ben")
        await ann.send(type="create_room", name="duel", seats=2, rated=True)
        room_id = (await ann.until("room_state"))["room"]["id"]
        await ben.send(type="join_room", room_id=room_id)
        await ben.until("room_state")
        for c in (ann, ben):
            await c.send(type="ready", room_id=room_id)
        for c in (ann, ben):
            card = await c.until("card")
            await c.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])
            await c.until("placed")
        await ann.send(type="leave_room", room_id=room_id)
        await ann.until("left")
        await ben.send(type="leave_room", room_id=room_id)
        await ben.until("left")
        await asyncio.sleep(0.3)
        ann_record = await get(live, "/api/players/ann/ratings")
        ben_record = await get(live, "/api/players/ben/ratings")
        assert ann_record["history"][0]["result"] == "loss"
        assert ben_record["history"][0]["result"] == "win"
        assert ben_record["ratings"]["lockstep"]["rating"] > 1500
        await ann.close()
        await ben.close()


def test_a_player_the_clock_played_for_gains_no_rating_and_is_marked_idle() -> None:
    """bob places card 1 and stays, connected and idle: the card clock places his other
    15 cards by the fallback rule, which alone would often win. He is ranked as one
    who left, the series is alice's, and his idle mark is recorded."""
    room = rated_room(1)
    box = Mailbox.opening(room)
    seat_and_start(room, box, BOB)
    place(room, box, BOB, 1)
    alice_plays_the_clock_plays_bob(room, box, now_ms=1)
    events = box.take_events()
    (end,) = [e for e in events if isinstance(e, SeriesEnded)]
    assert not end.aborted and end.winner_id == ALICE.id
    assert abandonments(events) == [(BOB.id, "idle")]
    result = box.result(ALICE)
    assert [b.player.id for b in result.boards] == [ALICE.id, BOB.id]
    assert [n.text for n in result.ranking] == [
        "bob let the clock place 15 of its 16 cards: ranked last"
    ]


def test_the_clock_placing_a_few_cards_is_no_forfeit() -> None:
    """Half the cards or fewer placed by the clock: the deal ranks by its score."""
    room = rated_room(1)
    box = Mailbox.opening(room)
    seat_and_start(room, box, BOB)
    now = 0
    while not room.series.finished:  # bob places cards 1 to 8, the clock the other 8
        for who in (ALICE, BOB):
            turn = views.waiting_turn(room, who.id)
            if turn is not None and (who is ALICE or turn <= 8):
                place(room, box, who, now)
        now += 100  # within the card clock: what is placed here is not the clock's
        box.add(room.tick(now))
    clocked = [p for p in room.match.boards[BOB.id].placements if p.auto]  # type: ignore[union-attr]
    assert len(clocked) == 8
    assert abandonments(box.take_events()) == []
    assert all(n.reason != "left" for n in box.result(ALICE).ranking)


async def test_the_clock_s_cards_before_a_restart_still_count(tmp_path: Path) -> None:
    """bob idles: the clock places his cards 2 to 7 before the server restarts and
    his cards 8 to 16 after. The 15 the clock placed are counted across the restart
    (the stored placements say which were the server's), so he is ranked as one who
    left, with his idle mark, as without a restart."""
    from engine.grid import cell_name
    from protocol.deals import Place
    from server.room.restore import restore

    storage, room, box = await stored_rated_duel(tmp_path / "r.db", 1)
    place(room, box, BOB, 1)
    bob = room.match.boards[BOB.id] if room.match is not None else None
    now = alice_plays_the_clock_plays_bob(
        room, box, 1, until=lambda: bob is not None and bob.placed >= 7
    )
    assert room.match is not None and room.match.boards[BOB.id].clocked == 6
    before = {pid: board.clocked for pid, board in room.match.boards.items()}
    await storage.persist(box.take_events())
    (saved,) = await storage.unfinished()
    await storage.close()
    back = restore(saved, now)
    assert back.match is not None
    assert {pid: board.clocked for pid, board in back.match.boards.items()} == before
    box = Mailbox.opening(back)
    box.add(back.resume(now))
    box.add(back.set_connected(ALICE.id, True, now))  # alice is back; bob stays idle
    while not back.series.finished:  # alice places each card as it comes (as she is
        turn = views.waiting_turn(back, ALICE.id)  # back: from the state, not a card)
        if turn is not None and back.match is not None:
            cell = cell_name(back.match.boards[ALICE.id].grid.legal_cells()[0])
            box.add(back.handle(ALICE, Place(room_id=back.id, turn=turn, cell=cell), now))
        now += 1_000
        box.add(back.tick(now))
    events = box.take_events()
    (end,) = [e for e in events if isinstance(e, SeriesEnded)]
    assert end.winner_id == ALICE.id
    assert (BOB.id, "idle") in abandonments(events)
