"""Acknowledged means stored: the database fails under the real server, mid-match.

The faults are the database's own, made from outside the server process the way
an operator's mistake or a bug would make them: a trigger that refuses one
placement (a write that can never commit), and another program holding the
lock the writer needs (a write that cannot commit for now). Every test runs on
SQLite and on PostgreSQL (tests/server/stores.py). Each test then
reads the database and checks, placement by placement, that every ``placed``
a player received is stored and every stored placement was acknowledged.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.server.live import Client, Live, server_process, signed_in
from tests.server.stores import StoreUnderTest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


@dataclass
class Player:
    """A client that plays whatever it is dealt and remembers what it was told."""

    client: Client
    room_id: str
    pick: int = 0  # which legal cell it takes
    acked: dict[int, dict[str, Any]] = field(default_factory=dict)  # turn -> placed
    errors: list[dict[str, Any]] = field(default_factory=list)
    states: int = 0  # room_state snapshots received after the start
    sent: dict[str, tuple[int, str]] = field(default_factory=dict)  # ref -> (turn, cell)
    on_error: Callable[[dict[str, Any]], None] | None = None
    delay: float = 0.0

    async def place(self, turn: int, legal: list[str]) -> None:
        if self.delay:
            await asyncio.sleep(self.delay)
        cell = legal[min(self.pick, len(legal) - 1)]
        ref = f"t{turn}-{len(self.sent)}"
        self.sent[ref] = (turn, cell)
        await self.client.send(type="place", room_id=self.room_id, turn=turn, cell=cell, ref=ref)

    async def play(self) -> dict[str, Any]:
        while True:
            message = await self.client.recv(timeout=30)
            kind = message["type"]
            if kind == "card":
                await self.place(message["turn"], message["legal"])
            elif kind == "placed":
                assert message["turn"] not in self.acked, message
                self.acked[message["turn"]] = message
            elif kind == "error":
                self.errors.append(message)
                if self.on_error is not None:
                    self.on_error(message)
            elif kind == "room_state" and message["room"]["id"] == self.room_id:
                self.states += 1
                you = message["you"]
                if you is not None and you["turn"] is not None:
                    await self.place(you["turn"], you["legal"])
            elif kind == "match_result":
                return message


def stored(db: StoreUnderTest, match_id: str, player_id: str) -> dict[int, tuple[str, str, bool]]:
    rows = db.rows(
        "SELECT turn, cell, card, auto FROM placements"
        " WHERE match_id = {match_id} AND player_id = {player_id}",
        {"match_id": match_id, "player_id": player_id},
    )
    return {turn: (cell, card, bool(auto)) for turn, cell, card, auto in rows}


def assert_acknowledged_is_stored(db: StoreUnderTest, match_id: str, player: Player) -> None:
    """Both ways: nothing acknowledged is missing, nothing stored went unacknowledged."""
    assert player.client.id is not None
    on_disk = stored(db, match_id, player.client.id)
    told = {t: (p["cell"], p["card"], p["auto"]) for t, p in player.acked.items()}
    assert told == on_disk
    assert sorted(on_disk) == list(range(1, 17))


async def duel(live: Live, a: str, b: str, **room: Any) -> tuple[Client, Client, str, str]:
    """``a`` creates a room, ``b`` joins, both ready: the match has started."""
    first, second = await signed_in(live, a), await signed_in(live, b)
    await first.send(type="create_room", name=f"{a} v {b}", seats=2, **room)
    room_id = (await first.until("room_state"))["room"]["id"]
    await second.send(type="join_room", room_id=room_id)
    await second.until("room_state")
    for c in (first, second):
        await c.send(type="ready", room_id=room_id)
    match_id = ""
    for c in (first, second):
        match_id = (await c.until("match_started"))["match_id"]
    return first, second, room_id, match_id


async def solo_two_cards_in(client: Client) -> tuple[Player, str, dict[str, Any]]:
    """A solo room, two cards placed and acknowledged: the player, the match, card 3."""
    await client.send(type="create_room", name="solo", seats=1)
    room = (await client.until("room_state"))["room"]["id"]
    await client.send(type="ready", room_id=room)
    match = (await client.until("match_started"))["match_id"]
    player = Player(client, room)
    for _ in range(2):
        card = await client.until("card")
        await player.place(card["turn"], card["legal"])
        player.acked[card["turn"]] = await client.until("placed")
    return player, match, await client.until("card")


def health(live: Live) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(live.http + "/healthz", timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


async def test_a_write_that_can_never_commit_is_not_acknowledged_and_its_room_goes_back(
    store: StoreUnderTest,
) -> None:
    db = store
    with server_process(db.target) as (process, live):
        alice, bob, room, match = await duel(live, "alice", "bob")
        carol, dave, other, other_match = await duel(live, "carol", "dave")
        # Alice's fifth placement will be refused by the database itself.
        db.refuse(
            "lose_one",
            "placements",
            f"NEW.match_id = '{match}' AND NEW.player_id = '{alice.id}' AND NEW.turn = 5",
            "injected fault",
        )
        a, b = Player(alice, room), Player(bob, room, pick=3)

        def repair(error: dict[str, Any]) -> None:
            # Alice heard of it: the fault goes, and she places the card elsewhere.
            if error["code"] == "storage_failed" and error["ref"] is not None:
                db.allow("lose_one", "placements")
                a.pick = 2

        a.on_error = repair
        c, d = Player(carol, other, delay=0.05), Player(dave, other, pick=1, delay=0.05)
        results = await asyncio.gather(a.play(), b.play(), c.play(), d.play())

        # Alice's first try at turn 5 was refused, with her ref, and never acknowledged.
        (first_try,) = [r for r, (turn, _) in a.sent.items() if turn == 5][:1]
        failed = [e for e in a.errors if e["ref"] is not None]
        assert [(e["code"], e["ref"], e["room_id"]) for e in failed] == [
            ("storage_failed", first_try, room)
        ]
        assert a.acked[5]["ref"] != first_try
        tries = [cell for turn, cell in a.sent.values() if turn == 5]
        assert len(tries) == 2 and tries[0] != tries[1]
        # Both were told the room went back to what is stored, and got its snapshot.
        for p in (a, b):
            notices = [e for e in p.errors if e["ref"] is None]
            assert [(e["code"], e["room_id"]) for e in notices] == [("storage_failed", room)]
            assert p.states == 1
        # The match ended as played: alice's turn 5 where she put it the second time.
        boards = {x["player"]["name"]: x for x in results[0]["boards"]}
        assert boards["alice"]["placements"][4]["cell"] == tries[1]
        for p in (a, b):
            assert_acknowledged_is_stored(db, match, p)
        # The other room played on to its end, every acknowledged card stored.
        assert results[2]["match_id"] == other_match == results[3]["match_id"]
        for p in (c, d):
            assert_acknowledged_is_stored(db, other_match, p)
        await carol.still_alive()
        process.terminate()
        _, log = process.communicate(timeout=30)
    assert "a write failed and is lost" in log and "injected fault" in log
    assert f"room {room} rebuilt from the database" in log


async def test_while_the_database_is_locked_replies_wait_and_new_requests_are_refused(
    store: StoreUnderTest,
) -> None:
    db = store
    with server_process(db.target) as (process, live):
        alice = await signed_in(live, "alice")
        bob = await signed_in(live, "bob")
        a, match, card = await solo_two_cards_in(alice)
        with db.write_lock():  # another program takes the lock and keeps it
            await a.place(card["turn"], card["legal"])
            for _ in range(150):  # the writer gives up waiting after 5 s, then retries
                status, body = health(live)
                if status == 503:
                    break
                await asyncio.sleep(0.1)
            assert (status, body["status"]) == (503, "storage_failing"), body
            assert db.locked_text in body["storage"]
            # Meanwhile: no acknowledgement, nothing on disk, new requests refused.
            assert stored(db, match, alice.id or "").keys() == {1, 2}
            await bob.send(type="list_rooms", ref="l")
            refused = await bob.until("error")
            assert (refused["code"], refused["ref"]) == ("storage_failed", "l")
            assert "nothing was done" in refused["reason"]
            await bob.still_alive()  # a ping is answered all the same
            with pytest.raises(TimeoutError):
                await alice.until("placed", timeout=0.5)
        # The lock gone, the held placement commits and only then is acknowledged.
        placed = await alice.until("placed", timeout=15)
        assert placed["turn"] == 3 and placed["ref"] in a.sent
        a.acked[3] = placed
        assert health(live)[0] == 200
        await a.play()
        assert_acknowledged_is_stored(db, match, a)
        process.terminate()
        _, log = process.communicate(timeout=30)
    assert f"storage: cannot write ({db.locked_text}" in log
    assert "storage: writing again after" in log


async def test_a_server_killed_while_it_cannot_write_never_acknowledged_what_it_held(
    store: StoreUnderTest,
) -> None:
    db = store
    with server_process(db.target) as (process, live):
        alice = await signed_in(live, "alice")
        a, match, card = await solo_two_cards_in(alice)
        with db.write_lock():
            await a.place(card["turn"], card["legal"])
            # Past the writer's first attempt (it waits 5 s for the lock), and more.
            with pytest.raises(TimeoutError):
                await alice.until("placed", timeout=7)
            assert health(live)[0] == 503
            process.kill()
            process.wait(timeout=10)
        token = alice.token
    assert stored(db, match, alice.id or "").keys() == {1, 2} == a.acked.keys()
    with server_process(db.target) as (_, live):
        back = await Client.connect(live)
        await back.send(type="hello", protocol=1, token=token)
        await back.until("welcome")
        state = await back.until("room_state")
        assert [p["turn"] for p in state["you"]["placements"]] == [1, 2]
        assert state["you"]["turn"] == 3
