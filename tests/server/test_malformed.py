"""Every frame that can be answered is answered: once, with a stable code.

Malformed frames of every kind the receive path must survive go to a live
server over a real socket: lone surrogates in a ref, a key or a value, numbers
too big or not numbers at all, deep nesting, duplicate keys, byte-order marks,
binary frames that are not UTF-8, both sides of the 4,096-byte limit, and every
coercion strict validation refuses. Each gets exactly one reply, the
connection stays open and usable, and the server logs no error.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as connect_sync

from server.errors import ALL_CODES
from tests.server.live import unlimited_server_logging_no_error

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

PAD = " " * (4_096 - len('{"type":"ping","ref":"x"}'))

# (frame, the code of its one reply, or "pong"/"welcome"/..., the ref the reply carries)
CASES: list[tuple[str | bytes, str, str | None]] = [
    ('{"type":"ping","ref":"\\ud800"}', "bad_message", None),
    ('{"type":"ping","ref":"\\udc00x"}', "bad_message", None),
    ('{"type":"ping","ref":"ok","\\ud800":1}', "bad_message", "ok"),
    ('{"type":"ping","ref":"ok","x":["\\udfff"]}', "bad_message", "ok"),
    ('{"type":"\\ud800","ref":"ok"}', "unknown_type", "ok"),
    ('{"type":"ping","ref":"\\ud83d\\ude00"}', "pong", "\U0001f600"),  # a pair is fine
    ('{"type":"ping","ref":"' + "r" * 65 + '"}', "bad_message", None),
    ('{"type":"ping","ref":7}', "bad_message", None),
    ('{"type":"ping","ref":["a"]}', "bad_message", None),
    (
        '{"type":"place","room_id":"x","turn":' + "9" * 4_000 + ',"cell":"a1","ref":"n"}',
        "bad_message",
        "n",
    ),
    ('{"type":"place","room_id":"x","turn":1e999,"cell":"a1","ref":"n"}', "bad_message", "n"),
    ('{"type":"ping","ref":NaN}', "bad_json", None),
    ('{"type":"ping","ref":Infinity}', "bad_json", None),
    ('{"type":"ping","ref":-Infinity}', "bad_json", None),
    ("[" * 4_000 + "]" * 96, "bad_json", None),
    ('{"type":"ping","ref":' + "[" * 2_000 + "]" * 2_000 + "}", "bad_json", None),
    ('{"type":"ping","x":' + "[" * 500 + "]" * 500 + ',"ref":"d"}', "bad_message", "d"),
    ('{"type":"ping","ref":"a","ref":"b"}', "pong", "b"),  # the last of a repeated key
    ('{"type":"teleport","type":"ping","ref":"t"}', "pong", "t"),
    ('\ufeff{"type":"ping","ref":"bom"}', "bad_json", None),
    (b'\xef\xbb\xbf{"type":"ping","ref":"bom"}', "bad_json", None),
    ('{"type":"ping","ref":"u16"}'.encode("utf-16"), "bad_json", None),
    ('{"type":"ping","ref":"u16"}'.encode("utf-16-le"), "bad_json", None),
    ('{"type":"ping","ref":"u32"}'.encode("utf-32"), "bad_json", None),
    (b'{"type":"ping","ref":"\xff"}', "bad_json", None),
    (b'{"type":"ping","ref":"\xed\xa0\x80"}', "bad_json", None),  # a surrogate, encoded
    (b'{"type":"ping","ref":"bin"}', "pong", "bin"),  # binary UTF-8 is read as text
    ('{"type":"ping","ref":"x"}' + PAD, "pong", "x"),  # 4,096 bytes exactly
    ('{"type":"ping","ref":"x"}' + PAD + " ", "frame_too_large", None),
    # 4,096 characters, 4,128 bytes: the limit counts bytes.
    ('{"type":"ping","ref":"' + "é" * 32 + '"}' + " " * 4_040, "frame_too_large", None),
    ("", "bad_json", None),
    ("null", "bad_json", None),
    ('"ping"', "bad_json", None),
    ('{"type":"hello","protocol":"1","name":"mallory","ref":"h"}', "bad_message", "h"),
    ('{"type":"hello","protocol":1.0,"name":"mallory","ref":"h"}', "bad_message", "h"),
    ('{"type":"hello","protocol":true,"name":"mallory","ref":"h"}', "bad_message", "h"),
    ('{"type":"hello","protocol":1,"name":"mallory","guest":"yes","ref":"h"}', "bad_message", "h"),
    ('{"type":"ready","room_id":"x","ready":"yes","ref":"r"}', "bad_message", "r"),
    ('{"type":"ready","room_id":"x","ready":1,"ref":"r"}', "bad_message", "r"),
    ('{"type":"place","room_id":"x","turn":"2","cell":"a1","ref":"p"}', "bad_message", "p"),
    ('{"type":"place","room_id":"x","turn":2.0,"cell":"a1","ref":"p"}', "bad_message", "p"),
    ('{"type":"place","room_id":"x","turn":true,"cell":"a1","ref":"p"}', "bad_message", "p"),
    ('{"type":"place","room_id":7,"turn":2,"cell":"a1","ref":"p"}', "bad_message", "p"),
    ('{"type":"create_room","name":"x","seats":"2","ref":"c"}', "bad_message", "c"),
    ('{"type":"create_room","name":"x","deals":true,"ref":"c"}', "bad_message", "c"),
    ('{"type":"create_room","name":"x","deals":3.0,"ref":"c"}', "bad_message", "c"),
    ('{"type":"create_room","name":"x","pace":1,"ref":"c"}', "bad_message", "c"),
    ('{"type":"get_leaderboard","top":"5","ref":"g"}', "bad_message", "g"),
    ('{"type":"place","room_id":"nowhere","turn":2,"cell":"a1","ref":"p"}', "not_in_room", "p"),
    ('{"type":"create_room","name":"x","pace":"race","seats":1,"ref":"ok"}', "room_state", "ok"),
]


def one_reply(ws: ClientConnection, frame: str | bytes, n: int) -> list[dict[str, Any]]:
    """Send ``frame`` then a ping; every reply before the pong is ``frame``'s."""
    sentinel = f"after-{n}"
    ws.send(frame)
    ws.send(json.dumps({"type": "ping", "ref": sentinel}))
    replies = []
    while True:
        reply = json.loads(ws.recv(timeout=10))
        if reply.get("ref") == sentinel:  # a pong; hello_required before hello
            return replies
        replies.append(reply)


def check(ws: ClientConnection, frame: str | bytes, expected: str, ref: str | None, n: int) -> None:
    replies = one_reply(ws, frame, n)
    assert len(replies) == 1, (frame[:80], replies)
    (reply,) = replies
    kind = reply["code"] if reply["type"] == "error" else reply["type"]
    assert (kind, reply.get("ref")) == (expected, ref), (frame[:80], reply)
    if reply["type"] == "error":
        assert reply["reason"] and reply["code"] in ALL_CODES


# Any JSON with lone surrogates, controls and odd keys anywhere, as a client could
# write it: ensure_ascii escapes every one of them.
nasty_text = st.text(
    alphabet=st.characters(categories=["Cs", "Cc", "Lu", "Nd", "So"], include_characters='"\\'),
    max_size=8,
)
nasty = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | nasty_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(nasty_text, inner, max_size=3),
    max_leaves=8,
)
messages = st.fixed_dictionaries(
    {"type": st.sampled_from(["ping", "place", "ready", "hello", "create_room", "x"]) | nasty_text},
    optional={"ref": nasty, "room_id": nasty, "turn": nasty, "cell": nasty, "protocol": nasty},
)


async def test_every_malformed_frame_gets_exactly_one_error_and_the_connection_goes_on(
    tmp_path: Path,
) -> None:
    async with unlimited_server_logging_no_error(tmp_path / "malformed.db") as live:
        await asyncio.to_thread(fuzz, live.url)


def fuzz(url: str) -> None:
    with connect_sync(url, max_size=None) as ws:
        check(ws, '{"type":"ping","ref":"\\ud800"}', "bad_message", None, 0)  # before hello
        ws.send(json.dumps({"type": "hello", "protocol": 1, "name": "fuzzer"}))
        assert json.loads(ws.recv(timeout=5))["type"] == "welcome"
        for n, (frame, expected, ref) in enumerate(CASES, start=1):
            check(ws, frame, expected, ref, n)
        sent = len(CASES)

        @settings(
            max_examples=300,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow],
        )
        @given(message=messages, binary=st.booleans())
        def example(message: dict[str, Any], binary: bool) -> None:
            nonlocal sent
            sent += 1
            text = json.dumps(message)  # ASCII: every lone surrogate an escape
            replies = one_reply(ws, text.encode() if binary else text, sent)
            assert len(replies) == 1, (text, replies)
            (reply,) = replies
            if reply["type"] == "error":
                assert reply["code"] in ALL_CODES and reply["code"] != "internal_error", reply
                ref = message.get("ref")
                if reply["ref"] is not None:
                    assert reply["ref"] == ref

        example()
        # Still the same connection, still signed in, still able to play.
        check(ws, '{"type":"list_rooms","ref":"end"}', "rooms", "end", sent + 1)
