"""A Swiss tournament on a cluster: its director (and its tables) on the coordinator,
its players on other nodes; the coordinator is killed mid-round, another node takes
the director and the tables over from the database, and the tournament finishes."""

from __future__ import annotations

import asyncio
import collections
import json
import time
import urllib.request
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from tests.server.cluster.nodes import cluster
from tests.server.live import Client, Live, signed_in
from tests.server.test_tournament_restart import place_cards
from tests.waiting import Watched, dead

pytestmark = pytest.mark.timeout(180)


async def play_on(
    client: Client, pick: int, *, within: float = 120.0, watching: Iterable[Watched] = ()
) -> dict[str, Any]:
    """Every card dealt (by a ``card``, or waiting in a table's snapshot) placed, until the
    tournament is over; its last state. Bounded: after ``within`` seconds, or at once if
    a node of ``watching`` died, it fails saying so and what it heard last."""
    deadline = time.monotonic() + within
    heard: collections.deque[str] = collections.deque(maxlen=6)
    while True:
        dead(watching)
        left = deadline - time.monotonic()
        try:
            m = await client.recv(timeout=max(0.01, min(left, 1.0)))
        except TimeoutError:
            if time.monotonic() < deadline:
                continue
            pytest.fail(
                f"waited {within:g} s for the tournament to finish as player {client.id};"
                f" last heard: {list(heard)}",
                pytrace=False,
            )
        heard.append(m["type"] + (f" turn {m['turn']}" if "turn" in m else ""))
        card = None
        if m["type"] == "card":
            card = (m["room_id"], m["turn"], m["legal"])
        elif m["type"] == "room_state" and (you := m.get("you")) and you.get("legal"):
            card = (m["room"]["id"], you["turn"], you["legal"])
        if card is not None:
            room_id, turn, legal = card
            await client.send(type="place", room_id=room_id, turn=turn,
                              cell=legal[min(pick, len(legal) - 1)])  # fmt: skip
        elif m["type"] == "tournament" and m["tournament"]["status"] == "finished":
            return dict(m["tournament"])


def stored(live: Live, tid: str) -> Any:
    with urllib.request.urlopen(f"{live.http}/api/tournaments/{tid}", timeout=10) as reply:
        return json.loads(reply.read())


async def test_a_swiss_survives_the_death_of_its_coordinator(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    with cluster(cluster_db, redis_url, 3, logs=tmp_path) as nodes:
        coordinator, one, two = nodes  # the first node up coordinates
        alice, bob = await signed_in(one.live, "alice"), await signed_in(two.live, "bob")
        await alice.send(type="create_tournament", name="cluster cup", format="swiss",
                         rounds=2, pace="lockstep", card_clock_ms=60_000)  # fmt: skip
        created = (await alice.until("tournament"))["tournament"]
        tid = created["id"]
        for i, c in enumerate((alice, bob)):
            await c.send(type="join_tournament", tournament_id=tid, contribution=f"s{i}", ref="j")
            while (await c.until("tournament"))["ref"] != "j":
                pass
        await alice.send(type="add_tournament_bot", tournament_id=tid, strategy="greedy", count=2)
        await alice.send(type="manage_tournament", tournament_id=tid, action="start")
        (a_room, a_acked), (b_room, b_acked) = await asyncio.gather(
            place_cards(alice, 5, 0), place_cards(bob, 5, 2)
        )
        coordinator.process.kill()
        killed = time.monotonic()
        finals = await asyncio.gather(play_on(alice, 0), play_on(bob, 2))
        assert time.monotonic() - killed < 120
        assert finals[0]["status"] == "finished" and len(finals[0]["history"]) == 2
        record = await asyncio.to_thread(stored, one.live, tid)
        assert record["status"] == "finished" and record["commitment"] == created["commitment"]
        pairs = [frozenset(t["players"]) for r in record["rounds"] for t in r["tables"]]
        assert len(set(pairs)) == 4  # nobody met twice
        assert sum(s["score"] for s in record["standings"]) == 4.0  # a point a game
        for room, who, acked in ((a_room, alice.id, a_acked), (b_room, bob.id, b_acked)):
            (played,) = [t for t in record["rounds"][0]["tables"] if t["room_id"] == room]
            assert played["status"] == "finished"
            with urllib.request.urlopen(
                f"{one.live.http}/api/matches/{played['deals'][0]['match_id']}", timeout=10
            ) as reply:
                match = json.loads(reply.read())
            board = next(b for b in match["boards"] if b["player"]["id"] == who)
            cells = {p["turn"]: p["cell"] for p in board["placements"]}
            assert len(cells) == 16 and {t: cells[t] for t in acked} == acked  # none lost
