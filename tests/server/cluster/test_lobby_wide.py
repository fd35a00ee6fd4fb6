"""Lobby-wide work on the coordinator: quick play pairs players signed in to different
nodes, a challenge reaches a player on another node, rated results move ratings; a
room it opens plays on the node its players are on."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.server.cluster.nodes import cluster
from tests.server.cluster.test_tournament_tables import owners
from tests.server.live import Client, signed_in

pytestmark = pytest.mark.timeout(120)


async def matched(client: Client) -> str:
    while True:
        queue = await client.until("queue")
        if queue["state"] == "matched":
            return str(queue["room_id"])


async def test_quick_play_and_a_challenge_across_nodes(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    with cluster(cluster_db, redis_url, 3, logs=tmp_path) as nodes:
        a, b, c = (n.live for n in nodes)
        alice = await signed_in(a, "alice")
        bob = await signed_in(b, "bob")
        await alice.send(type="quickplay", pace="lockstep", deals=1, contribution="a", ref="q")
        waiting = await alice.until("queue")
        assert waiting["state"] == "waiting" and waiting["ref"] == "q"
        await bob.send(type="quickplay", pace="lockstep", deals=1, contribution="b")
        rooms = {await matched(alice), await matched(bob)}
        assert len(rooms) == 1
        (room_id,) = rooms
        for x in (alice, bob):
            state = await x.until("room_state")
            assert state["room"]["origin"] == "quickplay" and state["room"]["rated"]
        results = await asyncio.gather(alice.play_to_end(room_id, 0), bob.play_to_end(room_id, 5))
        assert results[0] == results[1]
        ratings = await alice.until("ratings")
        assert ratings == await bob.until("ratings")
        after = {c["player"]["name"]: c["after"] for c in ratings["changes"]}
        # bob's node did not run the room: its leaderboard has the new ratings all the same
        for _ in range(50):
            await bob.send(type="get_leaderboard", pace="lockstep", top=10)
            board = {
                e["player"]["name"]: e["rating"] for e in (await bob.until("leaderboard"))["top"]
            }
            if board == after:
                break
            await asyncio.sleep(0.1)
        assert board == after

        # carol (third node) challenges dave (first node) by name
        carol = await signed_in(c, "carol")
        dave = await signed_in(a, "dave")
        for _ in range(50):  # a sign-in reaches the other nodes within moments
            await carol.send(type="list_online", ref="who")
            online = {p["name"] for p in (await carol.until("online"))["players"]}
            if "dave" in online:
                break
            await asyncio.sleep(0.1)
        assert {"alice", "bob", "dave"} <= online
        await carol.send(type="challenge", opponent="DAVE", deals=1, pace="race", rated=False)
        assert (await carol.until("challenge_state"))["state"] == "offered"
        cid = (await dave.until("challenge_state"))["challenge"]["id"]
        await dave.send(type="answer_challenge", challenge_id=cid, accept=True, contribution="d")
        ids = set()
        for x in (carol, dave):
            accepted = await x.until("challenge_state")
            assert accepted["state"] == "accepted"
            ids.add(accepted["room_id"])
        (duel,) = ids
        results = await asyncio.gather(carol.play_to_end(duel), dave.play_to_end(duel, 3))
        assert results[0] == results[1]

        # erin in three tabs, two on the second node and one on the third, each counting
        # its refs from 1: her request runs on the coordinator (the first node), and its
        # answer carries the ref to the asking tab alone (tests/server/test_refs.py).
        far = await signed_in(c, "erin")
        near, asking = [await Client.connect(b) for _ in range(2)]
        for tab in (near, asking):
            assert (await tab.hello(token=far.token))["player"]["id"] == far.id
        await asking.send(type="quickplay", pace="race", deals=1, contribution="e", ref="w1")
        answers = [await tab.until("queue") for tab in (asking, near, far)]
        assert [q["state"] for q in answers] == ["waiting"] * 3
        assert [q.get("ref") for q in answers] == ["w1", None, None], answers
        await far.send(type="cancel_quickplay", ref="w1")  # from the third node's tab
        answers = [await tab.until("queue") for tab in (far, near, asking)]
        assert [q["state"] for q in answers] == ["cancelled"] * 3
        assert [q.get("ref") for q in answers] == ["w1", None, None], answers


async def owner_settles(redis_url: str, room_id: str, expected: str) -> None:
    """The room's lease comes to be ``expected``'s (a room handed over; bounded)."""
    for _ in range(100):
        if (await asyncio.to_thread(owners, redis_url, {room_id})).get(room_id) == expected:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"room {room_id} is not {expected}'s: {owners(redis_url, {room_id})}")


async def test_a_head_to_head_room_plays_on_the_node_its_players_are_on(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    """The coordinator pairs; the room goes to the node both players are connected to,
    so that nothing of theirs is forwarded, and they play it there to the end. A pair
    one of whom is on the coordinator stays there."""
    with cluster(cluster_db, redis_url, 3, logs=tmp_path) as nodes:
        coordinator, one, two = nodes
        alice, bob = await signed_in(one.live, "alice"), await signed_in(one.live, "bob")
        await alice.send(type="quickplay", pace="lockstep", deals=1, contribution="a", ref="q")
        assert (await alice.until("queue"))["state"] == "waiting"
        await bob.send(type="quickplay", pace="lockstep", deals=1, contribution="b")
        (room_id,) = {await matched(alice), await matched(bob)}
        await owner_settles(redis_url, room_id, one.id)
        results = await asyncio.gather(alice.play_to_end(room_id, 0), bob.play_to_end(room_id, 5))
        assert results[0] == results[1]
        assert [len(b["placements"]) for b in results[0]["boards"]] == [16, 16]

        # a challenge between two players on the third node: played there
        carol, dave = await signed_in(two.live, "carol"), await signed_in(two.live, "dave")
        for _ in range(50):  # until dave's sign-in has reached the coordinator
            await carol.send(type="challenge", opponent="dave", deals=1, rated=False, ref="c")
            if (await carol.until("challenge_state", "error"))["type"] == "challenge_state":
                break
            await asyncio.sleep(0.1)
        cid = (await dave.until("challenge_state"))["challenge"]["id"]
        await dave.send(type="answer_challenge", challenge_id=cid, accept=True, contribution="d")
        duel = (await dave.until("challenge_state"))["room_id"]
        await owner_settles(redis_url, duel, two.id)
        results = await asyncio.gather(carol.play_to_end(duel), dave.play_to_end(duel, 3))
        assert results[0] == results[1]

        # erin on the coordinator, frank elsewhere: the room stays where it was opened
        erin = await signed_in(coordinator.live, "erin")
        frank = await signed_in(two.live, "frank")
        await erin.send(type="quickplay", pace="race", deals=1, contribution="e", ref="q")
        assert (await erin.until("queue"))["state"] == "waiting"
        await frank.send(type="quickplay", pace="race", deals=1, contribution="f")
        (race,) = {await matched(erin), await matched(frank)}
        await asyncio.sleep(0.5)  # time enough for a handover, were there one
        assert (await asyncio.to_thread(owners, redis_url, {race})).get(race) == coordinator.id
        results = await asyncio.gather(erin.play_to_end(race, 1), frank.play_to_end(race, 2))
        assert results[0] == results[1]
