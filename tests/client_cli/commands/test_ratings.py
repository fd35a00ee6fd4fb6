"""``cribsquares leaderboard`` and ``cribsquares ratings`` against a stub HTTP
server answering with fixed JSON in the server's shapes (docs/cli.md)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.client_cli.commands.helpers import Runner, assert_one_line_error

ADA = {"id": "p-ada", "name": "ada", "bot": False, "guest": False}
BOB = {"id": "p-bob", "name": "bob", "bot": False, "guest": False}
BOARD = {
    "pace": "lockstep",
    "top": [
        {"rank": 1, "player": ADA, "rating": 1712, "deviation": 62, "games": 31,
         "provisional": False},
        {"rank": 0, "player": BOB, "rating": 1540, "deviation": 240, "games": 3,
         "provisional": True},
    ],
    "around": [],
    "players": 1,
}  # fmt: skip
RATINGS = {
    "player": ADA,
    "ratings": {"lockstep": {"rating": 1712.4, "deviation": 62.0, "volatility": 0.059,
                             "games": 31, "provisional": False}},
    "history": [
        {"pace": "lockstep", "room_id": "r1", "series_id": "s1", "at_ms": 1_700_000_000_000,
         "before": 1690, "after": 1712, "deviation_before": 64, "deviation_after": 62,
         "opponent": "bob", "result": "win"},
    ],
    "abandoned": {"left": 1, "timeout": 0},
}  # fmt: skip


@pytest.fixture
def stub() -> Iterator[tuple[str, list[str]]]:
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            body: Any = None
            if self.path.startswith("/api/leaderboard/lockstep"):
                body = BOARD
            elif self.path == "/api/players/ada/ratings":
                body = RATINGS
            data = json.dumps(body or {"error": {"code": "player_not_found"}}).encode()
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()


def test_the_leaderboard_command(run_cli: Runner, stub: tuple[str, list[str]]) -> None:
    address, asked = stub
    result = run_cli("leaderboard", "--server", address, "--top", "5", "--around", "ada")
    assert result.code == 0, result.err
    assert asked == ["/api/leaderboard/lockstep?top=5&around=ada"]
    lines = result.out.splitlines()
    assert lines[0] == "lockstep leaderboard: 1 ranked player"
    assert lines[2].split() == ["1", "ada", "1712", "62", "31"]
    assert lines[3].split() == ["-", "bob", "1540", "240", "3", "(provisional)"]
    result = run_cli("leaderboard", "--server", f"ws://{address}/ws", "--json")
    assert result.code == 0 and json.loads(result.out) == BOARD
    result.out.encode("ascii")
    assert_one_line_error(run_cli("leaderboard", "--server", address, "--top", "0"), "--top")
    assert_one_line_error(
        run_cli("leaderboard", "--server", address, "--pace", "race"), "not found"
    )


def test_the_ratings_command(run_cli: Runner, stub: tuple[str, list[str]]) -> None:
    address, _ = stub
    result = run_cli("ratings", "ada", "--server", address)
    assert result.code == 0, result.err
    assert result.out.splitlines() == [
        "ada (p-ada)",
        "  lockstep  rating 1712 \u00b162, 31 games",
        "  series abandoned: 1 (left 1)",
        "latest changes:",
        "  2023-11-14 22:13  lockstep win  vs bob                      1690 -> 1712 (+22)",
    ]
    result = run_cli("ratings", "ada", "--server", address, "--json")
    assert json.loads(result.out) == RATINGS
    assert_one_line_error(run_cli("ratings", "zed", "--server", address), "no player called zed")
    assert_one_line_error(run_cli("ratings", "ada", "--server", "127.0.0.1:9"), "cannot reach")
