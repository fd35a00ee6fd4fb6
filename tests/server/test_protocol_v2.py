"""Protocol 2 over real sockets: a server frame may hold several messages.

A client that says ``protocol: 1`` gets one message a frame, exactly as
before; a client that says 2 gets everything the server has for it in one
turn of its loop as one frame, and the same messages. Batching must never
carry a card its recipient could not have had alone at that moment: the tests
below read every frame as it arrives, a player in a race and in lockstep, an
opponent and a spectator, and look for the cards not yet theirs.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from protocol.wire import parse_client
from tests.server.live import Client, Live, running_server, signed_in, two_player_room


@pytest.fixture
async def live(tmp_path: Path):  # type: ignore[no-untyped-def]
    async with running_server(tmp_path / "v2.db") as server:
        yield server


def arrays(client: Client) -> list[list[dict[str, Any]]]:
    return [m for m in map(json.loads, client.frames) if isinstance(m, list)]


def quoted(card: str) -> str:
    return json.dumps(card)


async def duel(live: Live, a: int, b: int, **room: Any) -> tuple[Client, Client, str]:
    """alice (protocol ``a``) and bob (protocol ``b``) in a started two-seat room."""
    return await two_player_room(live, protocols=(a, b), **room)


async def spectator(live: Live, name: str, room_id: str, protocol: int) -> Client:
    watcher = await signed_in(live, name, protocol=protocol, guest=True)
    await watcher.send(type="join_room", room_id=room_id, spectate=True)
    await watcher.until("room_state")
    return watcher


async def test_a_v1_client_gets_one_message_a_frame_and_a_v2_client_the_same_messages_batched(
    live: Live,
) -> None:
    """Lockstep, alice speaking 1 and bob 2, each watched by a spectator of their version:
    alice places first every turn, so bob's placement completes it and his ``placed``,
    the turn's ``progress`` and the next ``card`` are one frame."""
    alice, bob, room_id = await duel(live, 1, 2)
    old_eyes = await spectator(live, "wendy", room_id, 1)
    new_eyes = await spectator(live, "xavier", room_id, 2)
    assert [m["protocol"] for m in (alice.log[0], bob.log[0])] == [1, 2]  # the welcomes
    for turn in range(1, 17):
        card = await alice.until("card")
        his = await bob.until("card")
        assert his["card"] == card["card"]
        await alice.send(type="place", room_id=room_id, turn=turn, cell=card["legal"][0])
        await alice.until("placed")
        await bob.send(type="place", room_id=room_id, turn=turn, cell=his["legal"][-1])
        await bob.until("placed")
    results = [await c.until("match_result") for c in (alice, bob, old_eyes, new_eyes)]
    assert all(r == results[0] for r in results)
    await asyncio.sleep(0.4)  # whatever follows the result (room updates) arrives too
    for c in (alice, bob, old_eyes, new_eyes):
        await c.send(type="ping", ref="end")
        await c.until("pong")

    # protocol 1: every frame one message, a compact JSON object, as before protocol 2
    for c in (alice, old_eyes):
        assert all(f.startswith('{"type":"') for f in c.frames)
        assert len(c.frames) == len(c.log)
    # protocol 2: several messages a frame where the server had them at once
    assert any(f.startswith("[") for f in bob.frames)
    assert len(bob.frames) < len(bob.log)
    completed = [a for a in arrays(bob) if [m["type"] for m in a][:1] == ["placed"]]
    assert len(completed) >= 15  # turns 1..15: placed, then (progress and) the next card
    assert all(any(m["type"] == "card" for m in a) for a in completed[:15])
    for frame in arrays(bob) + arrays(new_eyes):
        assert len(frame) >= 2 and all(isinstance(m, dict) and "type" in m for m in frame)
    # the same information: both spectators got the same messages, in the same order
    assert new_eyes.log[2:] == old_eyes.log[2:]  # after their welcome and room_state


async def test_batched_frames_show_no_card_early_in_a_race(live: Live) -> None:
    """alice races through the whole deal while bob has placed nothing and a spectator
    watches: no frame to bob holds a card he has not been dealt, none to the spectator
    any card but the one both players hold (card 1: progress.dealt), until the deal is
    over."""
    alice, bob, room_id = await duel(live, 2, 2, pace="race", deal_clock_ms=120_000)
    eyes = await spectator(live, "wendy", room_id, 2)
    cards: list[str] = []
    for turn in range(1, 17):
        card = await alice.until("card")
        cards.append(card["card"])
        await alice.send(type="place", room_id=room_id, turn=turn, cell=card["legal"][0])
        await alice.until("placed")
    await asyncio.sleep(0.4)  # the delayed progress and room updates reach bob and wendy
    for c in (bob, eyes):
        await c.send(type="ping", ref="now")
        await c.until("pong")
    assert cards[0] in (m.get("card") for m in bob.log)
    for frame in bob.frames:
        for later in cards[1:]:
            assert quoted(later) not in frame, (later, frame)
    for frame in eyes.frames:
        for later in cards[1:]:
            assert quoted(later) not in frame, (later, frame)
    assert any(m.get("dealt") == {"turn": 1, "card": cards[0]} for m in eyes.log)
    # bob's next card comes with his own ack, and only his next one
    seen = len(bob.frames)
    await bob.send(type="place", room_id=room_id, turn=1, cell="b2")
    await bob.until("placed")
    await bob.send(type="ping", ref="again")
    await bob.until("pong")
    for frame in bob.frames[seen:]:
        for later in cards[2:]:
            assert quoted(later) not in frame, (later, frame)
    assert any(quoted(cards[1]) in f for f in bob.frames[seen:])


@pytest.mark.slow
async def test_batched_frames_show_no_card_early_in_lockstep(live: Live) -> None:
    """In lockstep the next card waits for the last placement of the turn: alice, who
    placed first, gets no frame holding it before bob has placed."""
    alice, bob, room_id = await duel(live, 2, 2)
    for turn in range(1, 5):
        card = await alice.until("card")
        his = await bob.until("card")
        seen = len(alice.frames)
        await alice.send(type="place", room_id=room_id, turn=turn, cell=card["legal"][0])
        await alice.until("placed")
        await asyncio.sleep(0.35)  # her delayed progress included
        await alice.send(type="ping", ref=f"t{turn}")
        await alice.until("pong")
        assert not any('"type":"card"' in f for f in alice.frames[seen:]), alice.frames[seen:]
        await bob.send(type="place", room_id=room_id, turn=turn, cell=his["legal"][-1])
        await bob.until("placed")


async def test_an_array_from_a_client_is_refused_with_its_own_code_in_2_and_as_ever_in_1(
    live: Live,
) -> None:
    new = await signed_in(live, "nova", protocol=2)
    old = await signed_in(live, "olga", protocol=1)
    batch = json.dumps([{"type": "ping", "ref": "a"}, {"type": "ping", "ref": "b"}])
    await new.send_raw(batch)
    refused = await new.error("batch_not_allowed")
    assert refused["reason"] and refused["ref"] is None
    await old.send_raw(batch)
    assert (await old.error("bad_json"))["reason"] == "a frame must be a JSON object"
    for c in (new, old):  # nothing in the array was done; the connection goes on
        await c.still_alive()
        assert not any(m.get("ref") in ("a", "b") for m in c.log)
    stranger = await Client.connect(live)
    await stranger.send(type="hello", protocol=3, name="future")
    assert "1 or 2" in (await stranger.error("unsupported_protocol"))["reason"]
    await stranger.send_raw(batch)  # before a hello, no version is agreed: protocol 1's answer
    await stranger.error("bad_json")


def test_the_parse_of_an_array_depends_on_the_version_only() -> None:
    from protocol.wire import ProtocolError

    for protocol, code in ((1, "bad_json"), (2, "batch_not_allowed")):
        for frame in ("[]", '[{"type":"ping"}]', "[1, 2]"):
            with pytest.raises(ProtocolError) as caught:
                parse_client(frame, protocol)
            assert caught.value.code == code
    assert parse_client('{"type":"ping","ref":"x"}', 2) == parse_client('{"type":"ping","ref":"x"}')
