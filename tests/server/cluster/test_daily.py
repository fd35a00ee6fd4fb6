"""The daily deal on a cluster of three nodes: its desk runs on the coordinator, every
other node forwards to it. A player on another node plays today's deal to its end and
sees its standing on every node; a second attempt through another node is refused; the
coordinator killed mid-attempt, the attempt resumes on the next coordinator with every
acknowledged placement; and no node shows the day's cards before its embargo is lifted,
over the WebSocket or HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.daily.days import day_name
from server.shell.cluster.leases import COORDINATOR, FENCE, lease_key, owned_key, room_key
from server.shell.keys import HUB
from tests.server.cluster.nodes import Node, cluster
from tests.server.live import Client, Live, running_server, signed_in
from tests.server.test_embargo_sweep import DAY_MS, NOON, Calendar
from tests.waiting import bounded

pytestmark = pytest.mark.timeout(180)
TODAY = NOON // DAY_MS  # the in-process nodes' day (the others' is the wall clock's)
TODAY_NAME = day_name(TODAY)


def http_json(live: Live, path: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(live.http + path, timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


async def get(live: Live, path: str) -> tuple[int, Any]:
    return await asyncio.to_thread(http_json, live, path)


REFS = itertools.count(1)


async def ask(client: Client, reply: str, **message: Any) -> dict[str, Any]:
    """Send ``message``; its reply (of type ``reply``, or an error), by its ref: a ref
    of its own, since a reply with a ref goes to every connection of its player (two
    connections of gail's once shared one, and the second took the first's room for
    its own answer)."""
    ref = f"asked-{next(REFS)}"
    await client.send(ref=ref, **message)
    while True:
        m = await client.until(reply, "error", timeout=20)
        if m.get("ref") == ref:
            return m


async def daily(client: Client, **asked: Any) -> dict[str, Any]:
    return await ask(client, "daily", type="get_daily", **asked)


async def begin(client: Client, **pace: Any) -> dict[str, Any]:
    return await ask(client, "room_state", type="play_daily", **pace)


async def coordinator_of(nodes: list[Node], client: Client) -> None:
    """Wait (bounded) until ``client``'s node answers the daily deal (a coordinator
    is there to forward to)."""
    for _ in range(100):
        if (await daily(client))["type"] == "daily":
            return
        await asyncio.sleep(0.1)
    raise AssertionError("no node runs the daily desk")


async def again(live: Live, client: Client) -> Client:
    """``client``'s player signed in once more, on the node ``live``."""
    other = await Client.connect(live)
    welcome = await other.hello(None, token=client.token)
    assert welcome["type"] == "welcome", welcome
    return other


def numbers(view: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (e["player"]["id"], e["status"], e["rank"], e["score"], e["percentile"])
        for e in view["standings"]
    ]


async def test_a_player_on_another_node_plays_the_daily_deal_once(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    with cluster(cluster_db, redis_url, 3, logs=tmp_path) as nodes:
        erin = await signed_in(nodes[1].live, "erin")  # nodes[0], the first up, coordinates
        await coordinator_of(nodes, erin)
        before = await daily(erin)
        assert before["status"] == "open" and before["you"]["status"] == "none"
        state = await begin(erin, pace="race", deal_clock_ms=600_000)
        assert state["type"] == "room_state", state
        room = state["room"]
        assert room["origin"] == "daily" and room["visibility"] == "private"
        result = await erin.play_to_end(room["id"])
        score = result["boards"][0]["score"]["total"]
        mine = result["boards"][0]["cells"]

        # Her standing, the same on every node: its numbers to a guest (who may not
        # play the day); to a player who may still play it and over HTTP, that she
        # played, not her score.
        views = []
        for node in nodes:
            other = await signed_in(node.live, f"fan{node.id[-1]}")
            seen = await daily(other)
            assert seen["you"]["status"] == "none" and seen["players"] == 1
            assert seen["scores_shown"] is False
            assert numbers(seen) == [(erin.id, "finished", None, None, None)]
            status, body = await get(node.live, "/api/daily")
            assert status == 200 and numbers(body) == numbers(seen)
            guest = await signed_in(node.live, None, guest=True)  # type: ignore[arg-type]
            views.append(numbers(await daily(guest)))
            await guest.close()
            second = await again(node.live, erin)
            you = (await daily(second))["you"]
            assert you["status"] == "finished" and you["score"] == score
            assert you["rank"] == 1 and you["cells"] == mine  # her own board, hers alone
            assert you["streak"] == 1
            # A second attempt through this node: refused, the connection goes on.
            await second.send(type="play_daily", pace="lockstep", ref="twice")
            refused = await second.error("daily_played")
            assert refused["ref"] == "twice"
            await second.still_alive()
            await second.close()
            await other.close()
        assert views[0] == views[1] == views[2]
        assert views[0] == [(erin.id, "finished", 1, score, 100)]
        assert not [m for m in erin.log if m["type"] == "room_state" and m is not state
                    and m["room"]["id"] != room["id"]]  # fmt: skip

        # Two connections, two nodes, at the same moment: one attempt at most.
        gail = [await signed_in(nodes[2].live, "gail")]
        gail.append(await again(nodes[1].live, gail[0]))
        answers = await asyncio.gather(
            *(begin(g, pace="lockstep", card_clock_ms=60_000) for g in gail)
        )
        kinds = sorted(a["type"] if a["type"] != "error" else a["code"] for a in answers)
        assert kinds == ["daily_played", "room_state"], answers
        status, body = await get(nodes[0].live, "/api/daily")
        assert [e["player"]["name"] for e in body["standings"]].count("gail") == 1
        await erin.close()
        for g in gail:
            await g.close()


async def test_no_node_shows_the_days_cards_before_its_embargo_is_lifted(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    with cluster(cluster_db, redis_url, 3, logs=tmp_path) as nodes:
        ada = await signed_in(nodes[2].live, "ada")
        await coordinator_of(nodes, ada)
        state = await begin(ada, pace="lockstep", card_clock_ms=60_000)
        room_id = state["room"]["id"]
        match_id = (await ada.until("match_started"))["match_id"]
        # Someone on every node, while she plays and once she has finished.
        eves = [await signed_in(node.live, f"eve{i}") for i, node in enumerate(nodes)]

        async def hidden(finished: bool, seed: str | None, secret: str | None) -> None:
            for node, eve in zip(nodes, eves, strict=True):
                seen = await daily(eve)
                assert seen["deal"] is None and seen["status"] == "open", node.id
                assert all(d["secret"] is None for d in seen["schedule"][:2])
                row = seen["standings"][0]
                assert row["status"] == ("finished" if finished else "playing")
                tries = []
                for asked in ({"room_id": room_id, "spectate": True}, {"room_id": room_id}):
                    await eve.send(type="join_room", **asked)
                    tries.append((await eve.until("error", "room_state"))["code"])
                await eve.send(type="resync", room_id=room_id)
                tries.append((await eve.until("error", "room_state"))["code"])
                # A private room is found by its invite code only; its id names nothing
                # to anyone else, on the node that runs it as on the others.
                assert tries == ["room_not_found", "room_not_found", "not_in_room"], (
                    node.id, tries,
                )  # fmt: skip
                paths = {
                    "/api/daily": 200,
                    f"/api/matches/{match_id}": 200,
                    f"/api/series/{match_id}": 200,
                    f"/api/matches/{match_id}/analysis": 409 if finished else None,
                    "/api/players/ada/matches": 200,
                    "/api/rooms": 200,
                }
                for path, expected in paths.items():
                    status, body = await get(node.live, path)
                    assert expected is None or status == expected, (node.id, path, status, body)
                    text = str(body)
                    for secret_part in (seed, secret):
                        assert secret_part is None or secret_part not in text, (node.id, path)
                    if path == "/api/daily":
                        assert body["deal"] is None, node.id
                    if path == f"/api/matches/{match_id}":
                        assert body["embargoed"] is True and body["seed"] is None
                        assert body["server_secret"] is None and body["starter"] is None
                        assert all("cells" not in b for b in body["boards"])
                    if path in ("/api/players/ada/matches", "/api/rooms"):
                        assert match_id not in text and room_id not in text
            for eve in eves:
                kinds = {m["type"] for m in eve.log}
                assert not kinds & {"card", "match_started", "match_result", "placed"}, kinds

        await hidden(False, None, None)
        result = await ada.play_to_end(room_id)
        seed, secret = result["seed"], result["server_secret"]
        assert seed and secret  # she was shown her own deal
        await hidden(True, seed, secret)
        for c in (ada, *eves):
            await c.close()


@pytest.mark.parametrize("stop", ["SIGKILL", "SIGTERM"])
async def test_an_attempt_survives_the_death_of_the_coordinator(
    tmp_path: Path, redis_url: str, cluster_db: str, stop: str
) -> None:
    """SIGKILL: the next coordinator takes the attempt as the leases expire; SIGTERM:
    the coordinator hands it over as it stops."""
    with cluster(cluster_db, redis_url, 3, logs=tmp_path) as nodes:
        coordinator, one, two = nodes
        erin = await signed_in(one.live, "erin")
        await coordinator_of(nodes, erin)
        state = await begin(erin, pace="lockstep", card_clock_ms=60_000)
        room_id = state["room"]["id"]
        cards: dict[int, str] = {}
        acked: dict[int, str] = {}
        for _ in range(5):
            card = await erin.until("card", timeout=20)
            cards[card["turn"]] = card["card"]
            await erin.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])
            placed = await erin.until("placed")
            acked[placed["turn"]] = placed["cell"]
        coordinator.process.send_signal(getattr(signal, stop))
        killed = time.monotonic()
        # The next card, placed once the coordinator is gone (SIGTERM: it has handed over).
        card = await erin.until("card", timeout=20)
        await coordinator.exited(20)
        await erin.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])
        cards[card["turn"]] = card["card"]
        # The next coordinator resumes her attempt; she plays it out from her node.
        while True:
            m = await bounded(
                f"erin's next message, the coordinator {stop}ed, having heard"
                f" {[x['type'] for x in erin.log[-6:]]}",
                erin.recv(timeout=60),
                within=30,
            )
            card = None
            if m["type"] == "card":
                card = (m["turn"], m["legal"], m["card"])
            elif m["type"] == "room_state" and (you := m.get("you")) and you.get("legal"):
                card = (you["turn"], you["legal"], you.get("card"))
            if card is not None:
                turn, legal, dealt = card
                if dealt is not None:
                    assert cards.setdefault(turn, dealt) == dealt  # the same deal
                await erin.send(type="place", room_id=room_id, turn=turn, cell=legal[0])
            elif m["type"] == "match_result":
                result = m
                break
        assert time.monotonic() - killed < 60
        await coordinator.exited(10)
        # Nothing she sent meanwhile was refused: it waited for the next coordinator.
        refused = [m for m in erin.log if m["type"] == "error"]
        assert not [m for m in refused if m["code"] in ("not_in_room", "room_unavailable")]
        board = result["boards"][0]
        placements = {p["turn"]: p["cell"] for p in board["placements"]}
        assert len(placements) == 16 and {t: placements[t] for t in acked} == acked
        # Her one attempt, finished, on both nodes left; and still only one.
        for node in (one, two):
            second = await again(node.live, erin)
            for _ in range(50):
                you = (await daily(second))["you"]
                if you is not None:
                    break
                await asyncio.sleep(0.1)
            assert you["status"] == "finished" and you["score"] == board["score"]["total"]
            assert you["cells"] == board["cells"]
            await second.send(type="play_daily", pace="race", ref="twice")
            assert (await second.error("daily_played"))["ref"] == "twice"
            status, body = await get(node.live, "/api/daily")
            assert status == 200 and body["finished"] == 1 and body["deal"] is None
            await second.close()
        await erin.close()


async def test_an_attempt_whose_lease_another_node_holds_a_while_is_still_resumed(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    """The race for a dead coordinator's leases may go to a node that is not the next
    coordinator (under load, often): it holds the attempt's lease while it reads the
    room, then lets it go. Here that node is played by the test, holding the lease
    longer than the next coordinator used to wait for it (3 s; then no node ever took
    the room again, and the player's cards went unanswered: ``room_unavailable``, seen
    beside a CPU hog). The next coordinator resumes the attempt once it is let go."""
    with cluster(cluster_db, redis_url, 3, logs=tmp_path) as nodes:
        coordinator, one, _ = nodes
        erin = await signed_in(one.live, "erin")
        await coordinator_of(nodes, erin)
        state = await begin(erin, pace="lockstep", card_clock_ms=60_000)
        room_id = state["room"]["id"]
        card = await erin.until("card", timeout=20)
        coordinator.process.kill()
        await coordinator.exited(20)
        key = room_key(room_id)
        async with aioredis.Redis.from_url(redis_url, decode_responses=True) as r:
            # Another node's lease on the room, as acquiring a gone node's lease writes it.
            await r.set(lease_key(key), f"elsewhere {await r.incr(FENCE)}", px=60_000)
            await r.srem(owned_key(coordinator.id), key)

            async def next_coordinator() -> None:
                while (held := await r.get(lease_key(COORDINATOR))) is None or held.startswith(
                    coordinator.id + " "
                ):
                    await asyncio.sleep(0.05)

            async def resumed() -> str:
                while (held := await r.get(lease_key(key))) is None:
                    await asyncio.sleep(0.05)
                return str(held)

            await bounded("a node to coordinate after the kill", next_coordinator(), within=30)
            await asyncio.sleep(4.0)  # the lease held past the old 3 s
            await r.delete(lease_key(key))  # let go
            held = await bounded("the attempt's room taken again", resumed(), within=15)
            assert held.partition(" ")[0] == (await r.get(lease_key(COORDINATOR))).partition(" ")[0]
        await erin.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])
        placed = await erin.until("placed", "error", timeout=30)
        assert placed["type"] == "placed" and placed["turn"] == card["turn"], placed
        await erin.close()


async def test_the_day_ends_on_the_coordinator_once_no_attempt_of_it_is_played(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    """Three nodes in this process, on one calendar of the test's: the day ends while
    an attempt of it is played; no node lifts the day (the others' desks, which run no
    attempt, least of all) until the attempt is over; then every node shows it."""
    calendar = Calendar()
    async with contextlib.AsyncExitStack() as stack:
        lives = []
        for i in range(3):  # the first up coordinates
            node = running_server(
                tmp_path / "unused.db",
                daily_calendar=calendar,
                store=cluster_db,
                redis_url=redis_url,
                node_id=f"in{i}",
            )
            lives.append(await stack.enter_async_context(node))
        desks = [live.app[HUB].lobby.daily for live in lives]
        ada = await signed_in(lives[1], "ada")
        await coordinator_of([], ada)
        state = await begin(ada, pace="lockstep", card_clock_ms=60_000)
        room_id = state["room"]["id"]
        for _ in range(3):
            card = await ada.until("card", timeout=20)
            await ada.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])
            await ada.until("placed")
        calendar.ms += DAY_MS  # the day is over; ada still plays it
        await asyncio.sleep(1.0)  # many clock ticks on every node
        eves = [await signed_in(live, f"eve{i}") for i, live in enumerate(lives)]
        for live, eve, desk in zip(lives, eves, desks, strict=True):
            assert TODAY not in desk.revealed
            seen = await daily(eve, day=TODAY_NAME)
            assert seen["status"] == "closing" and seen["deal"] is None, seen
            status, body = await get(live, f"/api/daily/{TODAY_NAME}")
            assert status == 200 and body["status"] == "closing" and body["deal"] is None
        result = await ada.play_to_end(room_id)
        for _ in range(100):  # the coordinator lifts it within moments
            if TODAY in desks[0].revealed:
                break
            await asyncio.sleep(0.05)
        assert TODAY in desks[0].revealed
        for live, eve in zip(lives, eves, strict=True):
            seen = await daily(eve, day=TODAY_NAME)
            assert seen["status"] == "over" and seen["deal"]["seed"] == result["seed"]
            status, body = await get(live, f"/api/daily/{TODAY_NAME}")
            assert body["status"] == "over" and body["deal"]["seed"] == result["seed"]
            status, match = await get(live, f"/api/matches/{result['match_id']}")
            assert match["embargoed"] is False and match["seed"] == result["seed"]
        for c in (ada, *eves):
            await c.close()
