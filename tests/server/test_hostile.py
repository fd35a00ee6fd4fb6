"""Hostile input at the live server: random bytes, random JSON and schema-shaped nonsense.

Every frame must get an answer that is a valid server message (an ``error``
with a known code, or a proper reply); the server must log no error; and a
match played beside the fuzzing, in another room, must finish as played.
"""

from __future__ import annotations

import asyncio
import json
import typing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as connect_sync

from protocol.wire import SERVER_ADAPTER, ClientMessage
from server.errors import ALL_CODES
from tests.server.live import Client, Live, two_player_room, unlimited_server_logging_no_error

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

CLIENT_MODELS = typing.get_args(typing.get_args(ClientMessage)[0])

WRONG = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    st.text(max_size=40),
    st.text(min_size=100, max_size=1_500),
    st.sampled_from(["", "a1", "d4", "e9", "5H", "\x00", "💥" * 20, "../../etc", "ROOM"]),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)


@st.composite
def shaped(draw: st.DrawFn) -> dict[str, Any]:
    """A client message's type with some of its fields (and maybe others) set wrong."""
    model = draw(st.sampled_from(CLIENT_MODELS))
    names = [f for f in model.model_fields if f != "type"] + ["extra", "__class__"]
    fields = draw(st.dictionaries(st.sampled_from(names), WRONG, max_size=len(names)))
    return {"type": model.model_fields["type"].default, **fields}


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)

FRAMES = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=300),
    JSON.map(json.dumps),
    shaped().map(json.dumps),
    st.integers(min_value=1, max_value=5_000).map(lambda n: "[" * n),
)


def fuzz(url: str, match_room: str) -> int:
    """Run the hypothesis examples over two blocking connections; return how many frames."""
    with connect_sync(url, max_size=None) as anon, connect_sync(url, max_size=None) as signed:
        return fuzz_over(anon, signed, match_room)


def fuzz_over(anon: ClientConnection, signed: ClientConnection, match_room: str) -> int:
    signed.send(json.dumps({"type": "hello", "protocol": 1, "guest": True}))
    assert json.loads(signed.recv(timeout=5))["type"] == "welcome"
    sent = 0

    def answers(ws: ClientConnection, frame: str | bytes) -> list[dict[str, Any]]:
        nonlocal sent
        sent += 1
        sentinel = f"sentinel-{sent}"
        ws.send(frame)
        ws.send(json.dumps({"type": "ping", "ref": sentinel}))
        replies = []
        while True:
            reply = json.loads(ws.recv(timeout=5))
            if reply.get("ref") == sentinel:
                return replies
            replies.append(reply)

    @settings(
        max_examples=150,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(frame=FRAMES, before_hello=st.booleans())
    def example(frame: str | bytes, before_hello: bool) -> None:
        if isinstance(frame, str):
            frame = frame.replace('"ROOM"', json.dumps(match_room))
        replies = answers(anon if before_hello else signed, frame)
        assert replies, f"no answer to {frame!r}"
        for reply in replies:
            SERVER_ADAPTER.validate_python(reply)
            if reply["type"] == "error":
                assert reply["code"] in ALL_CODES, reply
                assert reply["code"] != "internal_error", (frame, reply)

    example()
    return sent


async def play_slowly(client: Client, room_id: str, pick: int) -> tuple[list[str], dict[str, Any]]:
    """Place every card on its ``pick``-th legal cell, a little after it arrives."""
    cells = []
    while True:
        message = await client.until("card", "match_result", timeout=30)
        if message["type"] == "match_result":
            return cells, message
        await asyncio.sleep(0.1)
        cell = message["legal"][min(pick, len(message["legal"]) - 1)]
        cells.append(cell)
        await client.send(type="place", room_id=room_id, turn=message["turn"], cell=cell)


async def test_hostile_frames_get_answers_and_the_match_beside_them_finishes(
    tmp_path: Path,
) -> None:
    async with unlimited_server_logging_no_error(tmp_path / "fuzz.db") as live:
        await fuzz_beside_a_match(live)


async def fuzz_beside_a_match(live: Live) -> None:
    alice, bob, room_id = await two_player_room(live)
    frames, (alice_cells, alice_result), (bob_cells, bob_result) = await asyncio.gather(
        asyncio.to_thread(fuzz, live.url, room_id),
        play_slowly(alice, room_id, 0),
        play_slowly(bob, room_id, 2),
    )
    assert frames >= 100
    assert alice_result == bob_result
    boards = {b["player"]["name"]: b for b in alice_result["boards"]}
    for name, cells in (("alice", alice_cells), ("bob", bob_cells)):
        placements = boards[name]["placements"]
        assert [p["cell"] for p in placements] == cells
        assert not any(p["auto"] for p in placements)
    await alice.still_alive()
