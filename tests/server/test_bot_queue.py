"""The order server bots think in (server.bot_queue), driven directly, and the pool that
keeps it: a person's game first, owners and rooms in turn, each owner within its
CPU budget; a flood of one account's bots never makes a person's bot wait behind it."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from server.bot_queue import FairQueue
from server.bots import BotPool, think
from server.fallback import fallback_cell
from server.room import BotTurn
from tests.server.test_background import turn as greedy_turn


def test_a_persons_game_goes_first_and_owners_then_rooms_take_turns() -> None:
    queue: FairQueue[str] = FairQueue()
    for n in range(3):  # one account's flood: three rooms of bots alone, two moves each
        for k in range(2):
            queue.push(f"flood{n}.{k}", owner="F", room=f"f{n}", person=False, now_s=0)
    queue.push("other.0", owner="O", room="o", person=False, now_s=0)
    queue.push("person.0", owner="P", room="p", person=True, now_s=0)
    queue.push("person.1", owner="P", room="p", person=True, now_s=0)
    order = []
    while (found := queue.pop(0)) is not None:
        order.append(found[0])
        assert found[1] is False  # nobody over budget: every move thought, not fallen back
    assert order[:2] == ["person.0", "person.1"]  # a person plays there: first
    # then owner F and owner O in turn, and F's rooms in turn, each room in order
    assert order[2:] == ["flood0.0", "other.0", "flood1.0", "flood2.0", "flood0.1",
                         "flood1.1", "flood2.1"]  # fmt: skip
    assert len(queue) == 0


def test_an_owner_over_its_budget_falls_back_in_its_place_until_its_bucket_refills() -> None:
    queue: FairQueue[str] = FairQueue(budget_s=6.0)  # 6 CPU-seconds a minute: 0.1 a second
    queue.charge("F", 6.5, now_s=0)  # in debt by half a second
    assert queue.over_budget("F", 0) and not queue.over_budget("O", 0)
    queue.push("flood", owner="F", room="f", person=True, now_s=0)
    queue.push("other", owner="O", room="o", person=False, now_s=0)
    assert queue.pop(0) == ("flood", True, True)  # by the fallback rule, in its own game's place
    assert queue.pop(0) == ("other", False, False)
    assert queue.tokens("F", 6.0) > 0  # 0.5 s of debt repaid at 0.1 a second
    queue.push("flood again", owner="F", room="f", person=True, now_s=6.0)
    assert queue.pop(6.0) == ("flood again", False, True)
    assert queue.tokens("F", 1_000) == 6.0  # a bucket holds one minute's budget at most


def test_without_a_budget_nobody_is_ever_over_it() -> None:
    queue: FairQueue[str] = FairQueue(budget_s=0)
    queue.charge("F", 1e9, now_s=0)
    assert not queue.over_budget("F", 0)


def test_the_buckets_kept_are_bounded_and_a_forgotten_one_is_full() -> None:
    queue: FairQueue[str] = FairQueue(budget_s=1.0, max_owners=2)
    for owner in ("a", "b", "c"):
        queue.charge(owner, 5.0, now_s=0)
    assert queue.over_budget("b", 0) and queue.over_budget("c", 0)
    assert not queue.over_budget("a", 0)  # forgotten, least recently charged first


@given(st.lists(st.tuples(st.sampled_from("ABC"), st.sampled_from("xyz"), st.booleans()),
                max_size=60))  # fmt: skip
def test_every_move_queued_comes_out_once_each_room_in_order(
    moves: list[tuple[str, str, bool]],
) -> None:
    queue: FairQueue[tuple[int, str, str]] = FairQueue()
    for n, (owner, room, _) in enumerate(moves):
        # a room is its owner's; whether a person plays there is the room's
        person_there = any(p for o, r, p in moves if (o, r) == (owner, room))
        queue.push((n, owner, room), owner=owner, room=owner + room, person=person_there, now_s=0)
    out = []
    while (found := queue.pop(0)) is not None:
        out.append(found[0])
    assert sorted(out) == [(n, o, r) for n, (o, r, _) in enumerate(moves)]
    for owner, room in {(o, r) for o, r, _ in moves}:
        mine = [n for n, o, r in out if (o, r) == (owner, room)]
        assert mine == sorted(mine)
    people = [any(p for o2, r2, p in moves if (o2, r2) == (o, r)) for _, o, r in out]
    assert people == sorted(people, reverse=True)  # every person's game before the others


def flood_turn(n: int) -> BotTurn:
    return replace(greedy_turn(n), room_id=f"flood{n % 7}", owner="flooder")


async def test_a_persons_bot_does_not_wait_behind_a_flood_of_another_accounts_bots() -> None:
    # One worker thread stands in for the process pool: the same order, no processes.
    pool = BotPool(workers=1, executor=ThreadPoolExecutor(1))
    done: list[str] = []

    async def move(name: str, turn: BotTurn) -> None:
        assert await pool.move(turn) == think(turn)
        done.append(name)

    try:
        flood = [asyncio.create_task(move(f"flood{n}", flood_turn(n))) for n in range(40)]
        await asyncio.sleep(0)  # the flood is queued and the worker busy with it
        person = replace(greedy_turn(99), room_id="duel", owner="person", person=True)
        await asyncio.gather(move("person", person), *flood)
    finally:
        await pool.close()
    # At most one move of bots alone is under way per worker, so a person's move
    # waits for the one being made (and the one already handed over), never the 40.
    assert done.index("person") <= 2, done


async def test_a_move_nobody_waits_for_any_more_is_never_computed() -> None:
    pool = BotPool(workers=1, executor=ThreadPoolExecutor(1))
    pool.wanted = lambda turn: turn.turn != 7
    try:
        assert await pool.move(replace(greedy_turn(), turn=7)) is None
        assert await pool.move(greedy_turn()) == think(greedy_turn())
    finally:
        await pool.close()


async def test_an_owner_over_its_budget_gets_the_fallback_rules_move() -> None:
    pool = BotPool(workers=1, executor=ThreadPoolExecutor(1), budget_s=1e-9)
    turn = replace(greedy_turn(), strategy="level-8", owner="flooder")
    try:
        await pool.move(turn)  # its first move spends the whole budget, and more
        assert pool.queue.over_budget("flooder", pool._now())
        fallback = replace(turn, strategy="fallback")
        assert await pool.move(turn) == think(fallback)
        assert think(fallback) == fallback_cell(*_position(turn))
    finally:
        await pool.close()


def _position(turn: BotTurn) -> tuple[object, ...]:
    from engine.cards import Card
    from server.bots import grid_of

    return grid_of(turn), Card.parse(turn.card)
