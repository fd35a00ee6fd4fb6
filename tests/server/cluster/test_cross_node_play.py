"""Players on different nodes of a cluster play one room: real processes, one Redis."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from engine.cards import Card
from engine.deal import verify
from tests.server.cluster.nodes import cluster
from tests.server.live import Client, Live, signed_in, two_player_room

pytestmark = pytest.mark.timeout(120)


async def room_across(alice_at: Live, bob_at: Live, **room: Any) -> tuple[Client, Client, str]:
    """alice creates a room on one node, bob joins it from another, both ready."""
    return await two_player_room(alice_at, bob_at=bob_at, **room)


def nothing_hidden_leaked(me: Client, other: Client) -> None:
    """Until its first result ``me`` saw no board but its own, of ``other`` only counts,
    and each card only once its previous placement was acknowledged."""
    first_result = next(i for i, m in enumerate(me.log) if m["type"] == "match_result")
    placed_turns: set[int] = set()
    for m in me.log[:first_result]:
        assert "boards" not in m, m
        if m["type"] == "progress":
            assert "cell" not in m and "card" not in m
            assert all(isinstance(n, int) for n in m["placed"].values())
        if m["type"] == "room_state":
            assert other.id not in json.dumps(m.get("you") or {})
        if m["type"] == "placed":
            placed_turns.add(m["turn"])
        if m["type"] == "card" and m["turn"] > 1:
            assert m["turn"] - 1 in placed_turns, m


async def test_lockstep_and_race_with_players_on_different_nodes(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    with cluster(cluster_db, redis_url, 3, logs=tmp_path) as nodes:
        a, b, c = (n.live for n in nodes)
        alice, bob, room_id = await room_across(a, b)
        started = next(m for m in alice.log if m["type"] == "match_started")
        results = await asyncio.gather(alice.play_to_end(room_id, 0), bob.play_to_end(room_id, 3))
        assert results[0] == results[1]
        cards = [Card.parse(m["card"]) for m in bob.log if m["type"] == "card"]
        assert verify(
            results[0]["seed"], started["seed_commitment"],
            [*cards, Card.parse(results[0]["starter"])],
        )  # fmt: skip
        assert sum(m["type"] == "placed" for m in bob.log) == 16
        # bob saw alice's progress, counts only
        assert any(m["type"] == "progress" and m["placed"].get(alice.id) for m in bob.log)
        nothing_hidden_leaked(alice, bob)
        nothing_hidden_leaked(bob, alice)

        # A race between two other players, on the second and third nodes.
        carol = await signed_in(b, "carol")
        dave = await signed_in(c, "dave")
        await carol.send(type="create_room", name="race", seats=2, pace="race")
        race = (await carol.until("room_state"))["room"]["id"]
        # the room is listed on every node
        lister = await signed_in(a, "lister")
        await lister.send(type="list_rooms")
        listed = await lister.until("rooms")
        assert [r["taken"] for r in listed["rooms"] if r["id"] == race] == [1]
        await dave.send(type="join_room", room_id=race)
        await dave.until("room_state")
        # and its entry follows it (a placement leaves it as it is; a join does not)
        for _ in range(40):
            await lister.send(type="list_rooms")
            listed = await lister.until("rooms")
            if [r["taken"] for r in listed["rooms"] if r["id"] == race] == [2]:
                break
            await asyncio.sleep(0.05)
        assert [r["taken"] for r in listed["rooms"] if r["id"] == race] == [2]
        for x in (carol, dave):
            await x.send(type="ready", room_id=race)
        for turn in range(1, 17):  # carol races through before dave moves
            card = await carol.until("card")
            assert card["turn"] == turn
            await carol.send(type="place", room_id=race, turn=turn, cell=card["legal"][0])
        card = await dave.until("card")
        progress = await dave.until("progress")
        while progress["placed"][carol.id] < 16:
            progress = await dave.until("progress")
        assert progress["placed"][dave.id] == 0
        await dave.send(type="place", room_id=race, turn=1, cell=card["legal"][0])
        second = await dave.play_to_end(race)
        first = await carol.until("match_result")
        assert first == second
        assert [x["player"]["name"] for x in first["boards"]] == ["carol", "dave"]
        nothing_hidden_leaked(dave, carol)
        # dave never received a card before the turn he was on
        turns = [m["turn"] for m in dave.log if m["type"] == "card"]
        assert turns == sorted(turns) and len(turns) == 16
