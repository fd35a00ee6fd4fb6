"""The real server on loopback, spoken to with the ``websockets`` client library."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import aiohttp
import pytest
import websockets

from engine.cards import Card
from engine.deal import commitment, room_seed, verify
from server import bots
from server.room import BotTurn
from tests.server.live import Client, Live, running_server, signed_in, two_player_room

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def live(tmp_path: Path):  # type: ignore[no-untyped-def]
    async with running_server(tmp_path / "test.db") as server:
        yield server


async def get_json(url: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    async with aiohttp.ClientSession() as http, http.get(url) as response:
        return response.status, await response.json()


async def test_healthz(live: Live) -> None:
    status, body = await get_json(live.http + "/healthz")
    assert status == 200 and body["status"] == "ok" and body["protocol"] == 2
    assert body["protocols"] == [1, 2]


async def test_two_player_lockstep_match_and_its_history(live: Live) -> None:
    alice, bob, room_id = await two_player_room(live)
    started = next(m for m in alice.log if m["type"] == "match_started")
    results = await asyncio.gather(alice.play_to_end(room_id, 0), bob.play_to_end(room_id, 3))
    assert results[0] == results[1]
    result = results[0]
    cards = [Card.parse(m["card"]) for m in alice.log if m["type"] == "card"]
    assert len(cards) == 16
    starter = Card.parse(result["starter"])
    assert verify(result["seed"], started["seed_commitment"], [*cards, starter])
    assert room_seed(result["server_secret"], started["contributions"]) == result["seed"]
    assert commitment(result["server_secret"]) == started["server_commitment"]
    assert started["contributions"] == ["a-share", "b-share"]
    # Every placement is acknowledged, and others only ever saw counts.
    assert sum(m["type"] == "placed" for m in alice.log) == 16
    assert all("cell" not in m for m in bob.log if m["type"] == "progress")

    status, match = await get_json(f"{live.http}/api/matches/{result['match_id']}")
    assert status == 200 and match["status"] == "finished" and match["seed"] == result["seed"]
    assert {b["player"]["name"]: len(b["placements"]) for b in match["boards"]} == {
        "alice": 16,
        "bob": 16,
    }
    status, mine = await get_json(f"{live.http}/api/players/alice/matches")
    assert status == 200 and mine["matches"][0]["match_id"] == result["match_id"]
    status, _ = await get_json(f"{live.http}/api/matches/nope")
    assert status == 404


async def test_race_match(live: Live) -> None:
    alice, bob, room_id = await two_player_room(live, pace="race")
    for turn in range(1, 17):  # alice races through the deal before bob moves
        card = await alice.until("card")
        assert card["turn"] == turn
        await alice.send(type="place", room_id=room_id, turn=turn, cell=card["legal"][0])
    await alice.until("placed")
    card = await bob.until("card")
    progress = await bob.until("progress")
    while progress["placed"][alice.id] < 16:
        progress = await bob.until("progress")
    assert progress["placed"][bob.id] == 0 and progress["turn"] == 16
    await bob.send(type="place", room_id=room_id, turn=1, cell=card["legal"][0])
    second = await bob.play_to_end(room_id)
    first = await alice.until("match_result")
    assert first == second
    assert [b["player"]["name"] for b in first["boards"]] == ["alice", "bob"]  # same board, faster
    assert first["boards"][0]["rank"] == 1 and first["boards"][1]["rank"] == 2


async def test_history_hides_a_match_in_progress(live: Live) -> None:
    alice, _, _ = await two_player_room(live)
    match_id = next(m["match_id"] for m in alice.log if m["type"] == "match_started")
    await asyncio.sleep(0.05)
    status, match = await get_json(f"{live.http}/api/matches/{match_id}")
    assert status == 200 and match["status"] == "playing"
    assert match["seed"] is None and match["server_secret"] is None
    assert all("placements" not in b for b in match["boards"])


async def test_reconnect_mid_match_restores_the_state(live: Live) -> None:
    alice, bob, room_id = await two_player_room(live)
    for _ in range(3):
        for c in (alice, bob):
            card = await c.until("card")
            await c.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])
    await bob.until("card")
    alice_card = await alice.until("card")
    await bob.close()
    progress = await alice.until("progress")
    while progress["connected"][bob.id]:
        progress = await alice.until("progress")
    back = await Client.connect(live)
    # A token and a name together say two things: refused, not one of them ignored.
    refused = await back.hello("mallory", token=bob.token, ref="both")
    assert (refused["code"], refused["ref"]) == ("bad_message", "both")
    welcome = await back.hello(token=bob.token)
    assert welcome["player"]["id"] == bob.id and welcome["token"] is None
    state = await back.until("room_state")
    assert state["you"]["turn"] == 4 and state["you"]["card"]
    assert len(state["you"]["placements"]) == 3
    assert state["progress"]["connected"][bob.id] is True
    await back.send(type="place", room_id=room_id, turn=4, cell=state["you"]["legal"][0])
    await alice.send(type="place", room_id=room_id, turn=4, cell=alice_card["legal"][0])
    results = await asyncio.gather(alice.play_to_end(room_id), back.play_to_end(room_id))
    assert results[0] == results[1]


@pytest.mark.slow
async def test_card_clock_auto_places_over_the_wire(live: Live) -> None:
    solo = await signed_in(live, "sol")
    await solo.send(type="create_room", name="slow", seats=1, card_clock_ms=1_000)
    room_id = (await solo.until("room_state"))["room"]["id"]
    await solo.send(type="ready", room_id=room_id)
    await solo.until("card")
    placed = await solo.until("placed", timeout=3)
    assert placed["auto"] is True and placed["turn"] == 1
    card = await solo.until("card")
    assert card["turn"] == 2


async def test_spectator_and_private_room(live: Live) -> None:
    alice = await signed_in(live, "alice")
    await alice.send(type="create_room", name="secret", seats=1, visibility="private")
    state = await alice.until("room_state")
    room_id, code = state["room"]["id"], state["room"]["invite_code"]
    assert code
    watcher = await signed_in(live, "wendy", guest=True)
    await watcher.send(type="list_rooms")
    assert all(r["id"] != room_id for r in (await watcher.until("rooms"))["rooms"])
    await watcher.send(type="join_room", room_id=room_id, spectate=True)
    await watcher.error("room_not_found")
    await watcher.send(type="join_room", invite_code=code, spectate=True)
    assert (await watcher.until("room_state"))["you"] is None
    await alice.send(type="ready", room_id=room_id)
    result = await alice.play_to_end(room_id)
    seen = await watcher.until("match_result")
    assert seen == result
    assert not any(m["type"] in ("card", "placed") for m in watcher.log)


# ----------------------------------------------------------------------
# Bad input: each gets its error, and the connection, the room and other rooms go on.


@pytest.fixture
async def midmatch(live: Live):  # type: ignore[no-untyped-def]
    """alice and bob in turn 2: alice placed b2 then c3, bob placed a1; carol plays solo."""
    alice, bob, room_id = await two_player_room(live)
    await alice.until("card")
    await bob.until("card")
    await alice.send(type="place", room_id=room_id, turn=1, cell="b2")
    await bob.send(type="place", room_id=room_id, turn=1, cell="a1")
    await alice.until("card")
    await alice.send(type="place", room_id=room_id, turn=2, cell="c3")
    await alice.until("placed")
    await bob.until("card")
    carol = await signed_in(live, "carol")
    await carol.send(type="create_room", name="elsewhere", seats=1)
    other_room = (await carol.until("room_state"))["room"]["id"]
    await carol.send(type="ready", room_id=other_room)
    yield live, alice, bob, room_id, carol, other_room


async def finish_and_check(alice: Client, bob: Client, room_id: str, carol: Client, other: str):  # type: ignore[no-untyped-def]
    await bob.send(type="place", room_id=room_id, turn=2, cell="a2")
    results = await asyncio.gather(
        alice.play_to_end(room_id), bob.play_to_end(room_id), carol.play_to_end(other)
    )
    boards = {b["player"]["name"]: b for b in results[0]["boards"]}
    assert [(p["turn"], p["cell"], p["auto"]) for p in boards["alice"]["placements"][:2]] == [
        (1, "b2", False),
        (2, "c3", False),
    ]
    assert [p["cell"] for p in boards["bob"]["placements"][:2]] == ["a1", "a2"]
    assert len(results[2]["boards"]) == 1


BAD_FRAMES = [
    ("alice", "{not json", "bad_json"),
    ("alice", "[1, 2, 3]", "batch_not_allowed"),  # protocol 2; 1 says bad_json (test_protocol_v2)
    ("alice", "[" * 3_000, "bad_json"),  # json gives up with RecursionError
    ("alice", b"\xff\xfe binary garbage", "bad_json"),
    ("alice", '{"type": "fly"}', "unknown_type"),
    ("alice", json.dumps({"type": "place", "ref": "r" * 65}), "bad_message"),  # too long to echo
    ("alice", '{"no": "type"}', "unknown_type"),
    ("alice", '{"type": "place", "room_id": "R", "turn": "two", "cell": "d4"}', "bad_message"),
    ("alice", '{"type": "place", "room_id": "R", "turn": 2, "cell": "d4", "x": 1}', "bad_message"),
    ("alice", '{"type": "create_room", "name": "x", "seats": 9}', "bad_message"),
    ("alice", json.dumps({"type": "ping", "ref": "x" * 5_000}), "frame_too_large"),
    ("bob", '{"type": "place", "room_id": "R", "turn": 2, "cell": "d4"}', "illegal_cell"),
    ("bob", '{"type": "place", "room_id": "R", "turn": 2, "cell": "a1"}', "occupied_cell"),
    ("bob", '{"type": "place", "room_id": "R", "turn": 2, "cell": "e9"}', "bad_cell"),
    ("alice", '{"type": "place", "room_id": "R", "turn": 1, "cell": "d4"}', "past_turn"),
    ("alice", '{"type": "place", "room_id": "R", "turn": 3, "cell": "d4"}', "future_turn"),
    ("alice", '{"type": "place", "room_id": "R", "turn": 2, "cell": "d4"}', "already_placed"),
    ("alice", '{"type": "place", "room_id": "OTHER", "turn": 1, "cell": "a1"}', "not_in_room"),
    ("alice", '{"type": "ready", "room_id": "OTHER"}', "not_in_room"),
    ("alice", '{"type": "resync", "room_id": "nowhere"}', "not_in_room"),
    ("alice", '{"type": "ready", "room_id": "R"}', "room_started"),
    ("alice", '{"type": "hello", "protocol": 1, "name": "again"}', "already_identified"),
]


@pytest.mark.parametrize(("who", "frame", "code"), BAD_FRAMES, ids=[c for _, _, c in BAD_FRAMES])
async def test_bad_input_gets_its_error_and_everything_goes_on(midmatch, who, frame, code) -> None:  # type: ignore[no-untyped-def]
    _, alice, bob, room_id, carol, other = midmatch
    sender = alice if who == "alice" else bob
    if isinstance(frame, str):
        frame = frame.replace('"R"', json.dumps(room_id)).replace('"OTHER"', json.dumps(other))
    await sender.send_raw(frame)
    error = await sender.error(code)
    assert error["reason"]
    await sender.still_alive()
    await finish_and_check(alice, bob, room_id, carol, other)


async def test_joining_a_full_or_started_room(midmatch) -> None:  # type: ignore[no-untyped-def]
    live, alice, bob, room_id, carol, other = midmatch
    dave = await signed_in(live, "dave")
    await dave.send(type="join_room", room_id=room_id, ref="j1")
    assert (await dave.error("room_started"))["ref"] == "j1"
    await alice.send(type="create_room", name="pair", seats=2)
    full_id = (await alice.until("room_state"))["room"]["id"]
    await bob.send(type="join_room", room_id=full_id)
    await bob.until("room_state")
    await dave.send(type="join_room", room_id=full_id)
    error = await dave.error("room_full")
    assert error["room_id"] == full_id
    await dave.send(type="join_room", room_id="no-such-room")
    await dave.error("room_not_found")
    await dave.still_alive()
    await finish_and_check(alice, bob, room_id, carol, other)


async def test_session_errors(live: Live) -> None:
    anon = await Client.connect(live)
    await anon.send(type="list_rooms")
    await anon.error("hello_required")
    await anon.send(type="hello", protocol=99, name="x")
    await anon.error("unsupported_protocol")
    await anon.send(type="hello", protocol=1, token="not-a-token")
    await anon.error("bad_token")
    await anon.send(type="hello", protocol=1)
    await anon.error("name_required")
    await signed_in(live, "taken")
    await anon.send(type="hello", protocol=1, name="TAKEN")
    await anon.error("name_taken")
    await anon.send(type="hello", protocol=1, name="Taken", guest=True)
    await anon.error("name_taken")  # a guest may not look like a registered player
    await signed_in(live, "drifter", guest=True)
    guest = await anon.hello("Drifter", guest=True)  # guests may share among themselves
    assert guest["player"] == {"id": anon.id, "name": "Drifter", "bot": False, "guest": True}
    await anon.still_alive()


@pytest.mark.slow
async def test_flooding_is_rate_limited_and_the_connection_survives(midmatch) -> None:  # type: ignore[no-untyped-def]
    _, alice, bob, room_id, carol, other = midmatch
    await asyncio.gather(*(alice.send(type="ping", ref=str(i)) for i in range(120)))
    error = await alice.error("rate_limited")
    assert "frames" in error["reason"]
    await asyncio.sleep(0.3)
    while True:  # drain what the flood produced
        try:
            await alice.recv(timeout=0.2)
        except TimeoutError:
            break
    pongs = sum(m["type"] == "pong" for m in alice.log)
    errors = sum(m["type"] == "error" for m in alice.log)
    assert 30 <= pongs < 60 and errors == 1  # the burst, one complaint, the rest dropped
    await alice.still_alive()
    await asyncio.sleep(1.0)  # let the bucket refill: dropped frames are not queued for later
    await finish_and_check(alice, bob, room_id, carol, other)


async def test_frame_above_the_hard_cap_closes_only_that_connection(midmatch) -> None:  # type: ignore[no-untyped-def]
    live, alice, bob, room_id, carol, other = midmatch
    rude = await signed_in(live, "rude")
    await rude.send_raw("x" * 70_000)
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await rude.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    await alice.still_alive()
    await finish_and_check(alice, bob, room_id, carol, other)


async def test_expert_bots_think_off_the_event_loop(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bots' moves are chosen in the worker processes (server.bots.BotPool), never
    in the server's own process, whose one thread runs the event loop: a move chosen
    here is counted. (Thinking on the loop, each turn's seven expert moves stalled it
    for 0.2 to 1 s; how the loop fares is measured by the benchmarks, not here.)"""
    thought_here: list[str] = []
    think = bots.think

    def counted(turn: BotTurn) -> int:
        thought_here.append(turn.player_id)
        return think(turn)

    monkeypatch.setattr(bots, "think", counted)  # the workers import their own
    alice = await signed_in(live, "alice")
    await alice.send(type="create_room", name="bots", seats=8)
    room_id = (await alice.until("room_state"))["room"]["id"]
    for _ in range(7):
        await alice.send(type="add_bot", room_id=room_id, strategy="expert")
        await alice.until("room")
    await alice.send(type="start", room_id=room_id)  # the bots' first, dearest moves
    result = await alice.play_to_end(room_id)
    played = [b for b in result["boards"] if b["player"]["bot"]]
    assert len(played) == 7 and all(len(b["placements"]) == 16 for b in played)
    assert not any(p["auto"] for b in played for p in b["placements"])  # the bots played
    assert thought_here == []


async def test_with_compression_negotiated_aiohttp_writes_the_frames(tmp_path: Path) -> None:
    async with running_server(tmp_path / "deflate.db", compress=True) as server:
        alice, bob, room_id = await two_player_room(server)
        assert alice.ws.protocol.extensions  # permessage-deflate is in use
        results = await asyncio.gather(alice.play_to_end(room_id), bob.play_to_end(room_id, 1))
        assert results[0] == results[1] and len(results[0]["boards"]) == 2
        await alice.still_alive()
