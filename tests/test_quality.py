"""Lint and types are part of the test command: ruff on the tree, mypy --strict on engine/,
mypy on the server, the protocol and the client."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_check() -> None:
    result = _run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_engine() -> None:
    result = _run("mypy", "--strict", "engine")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_server_protocol_client() -> None:
    result = _run("mypy", "server", "protocol", "client_cli")
    assert result.returncode == 0, result.stdout + result.stderr


def test_engine_imports_no_io() -> None:
    """engine/ stays pure: no asyncio, aiohttp, aiosqlite, pydantic, sockets or random."""
    forbidden = ("asyncio", "aiohttp", "aiosqlite", "pydantic", "socket", "websockets", "random")
    for path in (ROOT / "engine").rglob("*.py"):
        for line in path.read_text().splitlines():
            stripped = line.strip()
            if stripped.startswith(("import ", "from ")):
                module = stripped.split()[1].split(".")[0]
                assert module not in forbidden, f"{path.name} imports {module}"
