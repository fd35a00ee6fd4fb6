"""SIGKILL (and SIGTERM) of the coordinator while players wait: quick play's queue and the open
challenges go on on the next coordinator. A player waiting through a node still alive
keeps their place (asking again is ``already_queued``) and is paired when an opponent
arrives through another node; a challenge between two such players is accepted on the
new coordinator and played; one whose player was connected to the dead node is
withdrawn, both told; and that player's place in the queue went with their connection
(they may queue again). The copy in Redis is written only under the coordinator's lease."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import redis

from server.shell.cluster import waiting
from server.shell.cluster.leases import COORDINATOR, lease_key
from tests.server.cluster.nodes import cluster
from tests.server.live import Client, signed_in

pytestmark = pytest.mark.timeout(120)

TAKEOVER_S = 16.0  # the lease (4 s), a look (0.5 s), and room for a slow machine


async def until(client: Client, kind: str, timeout: float = 10.0, **fields: Any) -> dict[str, Any]:
    """The next message of ``kind`` whose ``fields`` are as given (others skipped);
    if none comes in time, fails saying what it waited for and what came instead."""
    heard = len(client.log)
    try:
        while True:
            message = await client.until(kind, timeout=timeout)
            if all(message.get(k) == v for k, v in fields.items()):
                return message
    except TimeoutError:
        pytest.fail(f"waited {timeout} s for {kind} {fields}; heard: {client.log[heard:][-8:]}",
                    pytrace=False)  # fmt: skip


async def challenge_state(client: Client, cid: str, state: str, timeout: float = 10.0) -> str:
    """Read until the challenge ``cid`` is in ``state``; its room id, if any."""
    while True:
        update = await client.until("challenge_state", timeout=timeout)
        if update["challenge"]["id"] == cid and update["state"] == state:
            return str(update["room_id"])


async def challenge(client: Client, opponent: str) -> str:
    """Challenge ``opponent`` once their sign-in has reached the coordinator."""
    for _ in range(50):
        await client.send(type="challenge", opponent=opponent, deals=1, rated=False, ref="c")
        reply = await client.until("challenge_state", "error")
        if reply["type"] == "challenge_state":
            return str(reply["challenge"]["id"])
        assert reply["code"] == "player_not_found", reply
        await asyncio.sleep(0.1)
    raise AssertionError(f"{opponent} never reached the coordinator")


async def queued(client: Client, deals: int, ref: str) -> None:
    await client.send(type="quickplay", pace="race", deals=deals, contribution=ref, ref=ref)
    status = await until(client, "queue", ref=ref)
    assert status["state"] == "waiting", status


async def seated(client: Client, timeout: float = 10.0) -> dict[str, Any]:
    matched = await until(client, "queue", timeout, state="matched")
    state = await until(client, "room_state")
    assert state["room"]["id"] == matched["room_id"]
    return dict(state["room"])


@pytest.mark.parametrize("stop", ["kill", "terminate"])  # SIGKILL, SIGTERM
async def test_the_queue_and_challenges_outlive_the_coordinator(
    tmp_path: Path, redis_url: str, cluster_db: str, stop: str
) -> None:
    with cluster(cluster_db, redis_url, 3, logs=tmp_path) as nodes:
        coordinator, one, two = nodes  # the first node up coordinates
        carol = await signed_in(coordinator.live, "carol")
        alice, dave = await signed_in(one.live, "alice"), await signed_in(one.live, "dave")
        bob, erin = await signed_in(two.live, "bob"), await signed_in(two.live, "erin")
        await queued(carol, 5, "c")  # through the coordinator itself
        await queued(alice, 3, "a")  # through another node
        kept = await challenge(dave, "erin")  # both players on nodes that stay
        lost = await challenge(dave, "carol")  # carol's connection is on the coordinator
        await challenge_state(erin, kept, "offered")

        getattr(coordinator.process, stop)()

        # carol comes back at once through another node: a new connection. Her place
        # went with the old one, as on one server; she may queue again.
        back = await Client.connect(one.live)
        assert (await back.hello(token=carol.token))["player"]["id"] == carol.id
        await back.send(type="quickplay", pace="race", deals=5, contribution="c2", ref="again")
        status = await back.until("queue", "error", timeout=TAKEOVER_S)
        assert status["type"] == "queue" and status["state"] == "waiting", status
        await back.send(type="cancel_quickplay", ref="x")
        assert (await until(back, "queue", ref="x"))["state"] == "cancelled"
        # ... and her challenge was withdrawn: both players are told (she, once back, by
        # the next coordinator; a coordinator stopping withdrew it as it closed her
        # connection, and told the one player still connected).
        await challenge_state(dave, lost, "cancelled", TAKEOVER_S)
        told = [m for m in back.log if m["type"] == "challenge_state"]
        assert [(m["challenge"]["id"], m["state"]) for m in told] == (
            [(lost, "cancelled")] if stop == "kill" else []
        )

        # alice is still waiting, on the new coordinator: never twice.
        await alice.send(type="quickplay", pace="race", deals=3, contribution="a", ref="twice")
        refused = await alice.until("error", timeout=TAKEOVER_S)
        assert refused["code"] == "already_queued" and refused["ref"] == "twice"
        # bob, on the third node, asks for the same game: the two are paired.
        await queued(bob, 3, "b")
        rooms = await asyncio.gather(seated(alice), seated(bob))
        assert rooms[0] == rooms[1]
        room = rooms[0]
        assert room["origin"] == "quickplay" and room["rated"]
        assert room["deals"] == 3 and room["pace"] == "race"
        assert sorted(s["player"]["id"] for s in room["players"]) == sorted([alice.id, bob.id])

        # erin accepts dave's challenge, offered by the coordinator that died.
        await erin.send(type="answer_challenge", challenge_id=kept, accept=True, contribution="e")
        duels = await asyncio.gather(
            challenge_state(dave, kept, "accepted"), challenge_state(erin, kept, "accepted")
        )
        assert duels[0] == duels[1]

        results = await asyncio.gather(
            alice.play_to_end(room["id"], 0),
            bob.play_to_end(room["id"], 5),
            dave.play_to_end(duels[0], 0),
            erin.play_to_end(duels[0], 3),
        )
        assert results[0] == results[1] and results[2] == results[3]
        assert [len(b["placements"]) for b in results[0]["boards"]] == [16, 16]
        # Besides "twice", refused on purpose: the challenges challenge() sent again
        # because the opponent's sign-in had not reached the coordinator yet.
        waited_out = {("twice", "already_queued"), ("c", "player_not_found")}
        assert not [m for c in (alice, bob, dave, erin) for m in c.log if m["type"] == "error"
                    and (m.get("ref"), m["code"]) not in waited_out]  # fmt: skip


def test_only_the_coordinators_lease_writes_the_copy(redis_url: str) -> None:
    """A deposed coordinator (its token stale, or another node's lease) writes nothing."""
    with redis.Redis.from_url(redis_url, decode_responses=True) as r:
        r.set(lease_key(COORDINATOR), "n-new 7")
        for stale in ("n-old 6", "n-new 6", "n-old 7"):
            assert r.execute_command("EVAL", *waiting.write_args(stale, {"q:p": "x"}, [])) == 0
        assert r.hgetall(waiting.WAITING) == {}
        holder = "n-new 7"
        assert r.execute_command("EVAL", *waiting.write_args(holder, {"q:p": "x", "c:1": "y"}, []))
        assert r.execute_command("EVAL", *waiting.write_args(holder, {"q:r": "z"}, ["q:p"]))
        assert r.hgetall(waiting.WAITING) == {"c:1": "y", "q:r": "z"}
        assert r.execute_command("EVAL", *waiting.write_args("n-old 6", {}, ["c:1"])) == 0
        assert r.hgetall(waiting.WAITING) == {"c:1": "y", "q:r": "z"}
