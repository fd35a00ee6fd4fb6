"""Lint, layout, types and structure are part of the test command: ruff lint and
``ruff format --check`` on the tree, ``mypy --strict`` on the four packages, the
import contracts of pyproject.toml (import-linter: the layers, no cycles, no clock
or I/O in the state machines) and vulture's dead code (vulture_whitelist.py says
why each name it would report is used)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_check() -> None:
    result = _run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format() -> None:
    result = _run("ruff", "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_every_package() -> None:
    result = _run("mypy", "--strict", "engine", "protocol", "server", "client_cli")
    assert result.returncode == 0, result.stdout + result.stderr


def test_import_contracts() -> None:
    """pyproject.toml [tool.importlinter]: engine <- protocol <- server / client,
    no cycles at any depth, no clock or I/O in the room, the lobby or a director."""
    result = subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports"), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_dead_code_in_engine_protocol_and_server() -> None:
    """What the client, the benchmarks and the whitelist use counts as used."""
    result = _run(
        "vulture", "engine", "protocol", "server", "client_cli", "benchmarks",
        "vulture_whitelist.py",
    )  # fmt: skip
    dead = [
        line for line in result.stdout.splitlines()
        if line.startswith(("engine/", "protocol/", "server/"))
    ]  # fmt: skip
    assert dead == [], "\n".join(dead)
    assert result.returncode in (0, 3), result.stderr  # 3: it found dead code (elsewhere)


def test_engine_imports_no_io() -> None:
    """engine/ stays pure: no asyncio, aiohttp, aiosqlite, pydantic, sockets or random."""
    forbidden = ("asyncio", "aiohttp", "aiosqlite", "pydantic", "socket", "websockets", "random")
    for path in (ROOT / "engine").rglob("*.py"):
        for line in path.read_text().splitlines():
            stripped = line.strip()
            if stripped.startswith(("import ", "from ")):
                module = stripped.split()[1].split(".")[0]
                assert module not in forbidden, f"{path.name} imports {module}"
