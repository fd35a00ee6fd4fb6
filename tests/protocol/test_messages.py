"""The message contract: one parse of untrusted frames, the schema, and the docs' examples."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from protocol import CLIENT_ADAPTER, SERVER_ADAPTER, ProtocolError, json_schema, parse_client
from protocol.connection import Hello
from protocol.deals import Place, Progress
from protocol.wire import CLIENT_TYPES, frame_messages
from server.errors import ALL_CODES

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "protocol.md").read_text()
# Every ```json block, also one indented inside a list item.
EXAMPLES = [body for _, body in re.findall(r"^( *)```json\n(.*?)\n\1```", DOC, flags=re.S | re.M)]


def test_the_docs_have_examples() -> None:
    assert len(EXAMPLES) >= 20


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_documented_example_is_a_valid_message(example: str) -> None:
    frame = json.loads(example)
    if isinstance(frame, list):  # a protocol-2 frame of the server's: two or more messages
        assert len(frame) >= 2 and not any(data["type"] in CLIENT_TYPES for data in frame)
    for data in frame_messages(frame):
        adapter = CLIENT_ADAPTER if data["type"] in CLIENT_TYPES else SERVER_ADAPTER
        message = adapter.validate_python(data)
        assert message.model_dump(mode="json", exclude_unset=True) == data  # nothing lost


def test_every_message_type_is_documented_with_an_example() -> None:
    documented = {m["type"] for e in EXAMPLES for m in frame_messages(json.loads(e))}
    schema = json_schema()
    client = set(schema["client_to_server"]["discriminator"]["mapping"])
    server = set(schema["server_to_client"]["discriminator"]["mapping"])
    assert client == set(CLIENT_TYPES)
    assert client | server <= documented


def test_every_error_code_is_documented() -> None:
    section = DOC.split("\n## Errors\n")[1].split("\n## ")[0]
    table = set(re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.M))
    assert table == set(ALL_CODES)


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("", "bad_json"),
        ("{", "bad_json"),
        ("42", "bad_json"),
        (b"\xff\xfe", "bad_json"),
        ('{"type": 7}', "unknown_type"),
        ('{"type": "teleport"}', "unknown_type"),
        ('{"type": "place", "room_id": "r", "turn": 0, "cell": "a1"}', "bad_message"),
        ('{"type": "place", "room_id": "r", "turn": 17, "cell": "a1"}', "bad_message"),
        ('{"type": "hello", "protocol": "one"}', "bad_message"),
        ('{"type": "hello", "protocol": 1, "name": "<script>"}', "bad_message"),
        ('{"type": "ping", "extra": true}', "bad_message"),
    ],
)
def test_parse_client_refuses_with_a_stable_code(frame: str | bytes, code: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_client(frame)
    assert caught.value.code == code


def test_parse_client_keeps_the_ref_of_a_bad_message() -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_client('{"type": "place", "ref": "r9", "room_id": "x", "turn": "2", "cell": 5}')
    assert caught.value.ref == "r9"


def test_parse_client_returns_typed_messages() -> None:
    assert parse_client('{"type": "hello", "protocol": 1, "name": "alice"}') == Hello(
        protocol=1, name="alice"
    )
    place = parse_client(b'{"type": "place", "room_id": "r", "turn": 3, "cell": "b2"}')
    assert isinstance(place, Place) and place.turn == 3


def test_progress_deadline_is_optional_for_older_servers() -> None:
    old = {"type": "progress", "room_id": "r", "turn": 1, "placed": {}, "connected": {}}
    progress = SERVER_ADAPTER.validate_python(old)
    assert isinstance(progress, Progress) and progress.deadline_ms is None


@pytest.mark.slow
def test_schema_command_prints_both_directions() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "client_cli", "protocol", "schema"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    schema = json.loads(result.stdout)
    assert schema["version"] == 2
    assert "Place" in schema["client_to_server"]["$defs"]
    assert "MatchResult" in schema["server_to_client"]["$defs"]


def test_deeply_nested_json_is_bad_json_not_a_crash() -> None:
    import pytest

    from protocol.wire import ProtocolError, parse_client

    with pytest.raises(ProtocolError) as info:
        parse_client("[" * 100_000)
    assert info.value.code == "bad_json"


@pytest.mark.parametrize(
    "frame",
    [
        '{"type": "hello", "protocol": "1", "name": "mallory"}',
        '{"type": "hello", "protocol": 1.0, "name": "mallory"}',
        '{"type": "hello", "protocol": true, "name": "mallory"}',
        '{"type": "hello", "protocol": 1, "name": "mallory", "guest": 1}',
        '{"type": "hello", "protocol": 1, "name": "mallory", "bot": "true"}',
        '{"type": "ready", "room_id": "r", "ready": "yes"}',
        '{"type": "ready", "room_id": "r", "ready": 0}',
        '{"type": "place", "room_id": "r", "turn": "2", "cell": "a1"}',
        '{"type": "place", "room_id": "r", "turn": 2.0, "cell": "a1"}',
        '{"type": "place", "room_id": "r", "turn": true, "cell": "a1"}',
        '{"type": "place", "room_id": 12345678, "turn": 2, "cell": "a1"}',
        '{"type": "create_room", "name": "x", "seats": "2"}',
        '{"type": "create_room", "name": "x", "deals": true}',
        '{"type": "create_room", "name": "x", "deals": 3.0}',
        '{"type": "create_room", "name": "x", "card_clock_ms": 30000.0}',
        '{"type": "create_room", "name": "x", "rated": "false"}',
        '{"type": "create_room", "name": 7}',
        '{"type": "quickplay", "bot_after_ms": "0"}',
        '{"type": "get_leaderboard", "top": "5"}',
        '{"type": "add_tournament_bot", "tournament_id": "t", "count": 2.0}',
    ],
)
def test_a_field_of_the_wrong_json_type_is_refused_not_coerced(frame: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_client(frame)
    assert caught.value.code == "bad_message"


def test_enumerations_still_take_their_string_values() -> None:
    room = parse_client('{"type": "create_room", "name": "x", "pace": "race", "deals": 3}')
    assert room.pace == "race" and room.deals == 3  # type: ignore[union-attr]
    for frame in (
        '{"type": "create_room", "name": "x", "pace": "RACE"}',
        '{"type": "create_room", "name": "x", "pace": 1}',
        '{"type": "create_room", "name": "x", "visibility": true}',
    ):
        with pytest.raises(ProtocolError):
            parse_client(frame)


@pytest.mark.parametrize(
    ("frame", "ref", "why"),
    [
        ('{"type": "ping", "ref": "\\ud800"}', None, "lone surrogate"),
        ('{"type": "ping", "ref": "' + "x" * 65 + '"}', None, "longer than 64"),
        ('{"type": "ping", "ref": 5}', None, "not a string"),
        ('{"type": "teleport", "ref": 5}', None, "not a string"),
        ('{"type": "ping", "ref": "ok", "\\udc00": 1}', "ok", "lone surrogate"),
    ],
)
def test_a_ref_that_cannot_be_echoed_is_null_and_the_reason_says_why(
    frame: str, ref: str | None, why: str
) -> None:
    from protocol.connection import ErrorMessage
    from protocol.wire import dump_server

    with pytest.raises(ProtocolError) as caught:
        parse_client(frame)
    assert caught.value.ref == ref and why in caught.value.reason
    # The error can always be written.
    dump_server(ErrorMessage(code=caught.value.code, reason=caught.value.reason, ref=ref))


def test_binary_frames_are_utf8_only() -> None:
    ping = '{"type": "ping", "ref": "b"}'
    assert parse_client(ping.encode()).ref == "b"
    for frame in (ping.encode("utf-16"), ping.encode("utf-32"), b"\xef\xbb\xbf" + ping.encode()):
        with pytest.raises(ProtocolError) as caught:
            parse_client(frame)
        assert caught.value.code == "bad_json"


# What version 1's first draft had besides its client messages, which the page lists.
FIRST_SERVER_TYPES = {
    "welcome", "error", "rooms", "room", "left", "match_started", "card", "placed",
    "progress", "match_result", "room_state", "pong",
}  # fmt: skip
FIRST_CODES = {
    "bad_json", "unknown_type", "bad_message", "hello_required", "already_identified",
    "unsupported_protocol", "bad_token", "name_required", "name_taken", "frame_too_large",
    "rate_limited", "room_not_found", "not_in_room", "room_full", "room_started", "not_creator",
    "not_seated", "not_playing", "past_turn", "future_turn", "already_placed",
    "unknown_strategy", "limit_reached", "bad_cell", "illegal_cell", "occupied_cell",
    "internal_error",
}  # fmt: skip


def test_the_versioning_section_names_every_addition() -> None:
    section, second = DOC.split("\n## Versioning\n")[1].split("\nVersion 2 changes")
    first, added = section.split("were added within version 1:")
    named = lambda text: re.findall(r"`([a-z_]+)`", text)  # noqa: E731
    lists = added.split("\n\nOther changes")[0].split("\n* ")[1:]
    client, server, codes = (set(named(part.split(":", 1)[1])) for part in lists)
    assert set(named(first.split("first draft had")[1])) | client == set(CLIENT_TYPES)
    server_types = set(json_schema()["server_to_client"]["discriminator"]["mapping"])
    assert FIRST_SERVER_TYPES | server == server_types
    assert not FIRST_SERVER_TYPES & server
    in_2 = set(named(second.split("the error code")[1].split("(")[0]))
    assert in_2 == {"batch_not_allowed"}
    assert FIRST_CODES | codes | in_2 == set(ALL_CODES) and not FIRST_CODES & codes


def test_the_documented_refusal_of_a_long_ref_is_what_the_server_says() -> None:
    (documented,) = [json.loads(e) for e in EXAMPLES if "not echoed" in e]
    with pytest.raises(ProtocolError) as caught:
        parse_client(json.dumps({"type": "ping", "ref": "x" * 65}))
    assert (caught.value.code, caught.value.reason, caught.value.ref) == (
        documented["code"], documented["reason"], documented["ref"],
    )  # fmt: skip


def test_every_client_message_is_parsed_strictly() -> None:
    """No client message coerces: each one of the union is read in strict mode, so a
    number sent as a string is refused wherever it appears (ListOnline once was not)."""
    from typing import get_args

    from protocol.wire import ClientMessage

    lax = [
        kind.__name__
        for kind in get_args(get_args(ClientMessage)[0])
        if not kind.model_config.get("strict")
    ]
    assert lax == []
    with pytest.raises(ProtocolError):
        parse_client(json.dumps({"type": "list_online", "offset": "1"}))
