"""The message contract: one parse of untrusted frames, the schema, and the docs' examples."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from protocol import CLIENT_ADAPTER, SERVER_ADAPTER, ProtocolError, json_schema, parse_client
from protocol.messages import CLIENT_TYPES, Hello, Place, Progress
from server.errors import ALL_CODES

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "protocol.md").read_text()
EXAMPLES = re.findall(r"```json\n(.*?)\n```", DOC, flags=re.S)


def test_the_docs_have_examples() -> None:
    assert len(EXAMPLES) >= 20


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_documented_example_is_a_valid_message(example: str) -> None:
    data = json.loads(example)
    adapter = CLIENT_ADAPTER if data["type"] in CLIENT_TYPES else SERVER_ADAPTER
    message = adapter.validate_python(data)
    assert message.model_dump(mode="json", exclude_unset=True) == data  # nothing lost


def test_every_message_type_is_documented_with_an_example() -> None:
    documented = {json.loads(e)["type"] for e in EXAMPLES}
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


def test_schema_command_prints_both_directions() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "client_cli", "protocol", "schema"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    schema = json.loads(result.stdout)
    assert schema["version"] == 1
    assert "Place" in schema["client_to_server"]["$defs"]
    assert "MatchResult" in schema["server_to_client"]["$defs"]


def test_deeply_nested_json_is_bad_json_not_a_crash() -> None:
    import pytest

    from protocol.messages import ProtocolError, parse_client

    with pytest.raises(ProtocolError) as info:
        parse_client("[" * 100_000)
    assert info.value.code == "bad_json"
