"""Where the terminal client keeps its sign-in tokens between runs.

One JSON file, ``$XDG_CONFIG_HOME/cribsquares/tokens.json`` (or
``~/.config/cribsquares/tokens.json``), keyed by server URL (without a
``node`` in its query: every node of a server signs in the same player),
readable by the owner only (mode 0600). A token is a password: this module never prints one
and never writes the file with wider permissions, not even for a moment.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from client_cli.nodes import without_node

FILE_NAME = "tokens.json"
DEFAULT_SERVER = "ws://127.0.0.1:8765/ws"
SERVER_ENV = "CRIBSQUARES_SERVER"


def default_server() -> str:
    """The server to use when none is given: ``$CRIBSQUARES_SERVER`` or loopback."""
    return os.environ.get(SERVER_ENV, DEFAULT_SERVER)


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or ""
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return root / "cribsquares"


@dataclass(frozen=True)
class SavedSignIn:
    token: str
    name: str
    player_id: str


class TokenStore:
    """Tokens by server URL. Reading a damaged file yields no tokens, never an error."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or config_dir() / FILE_NAME

    def _read(self) -> dict[str, dict[str, str]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if isinstance(v, dict)}

    def get(self, url: str) -> SavedSignIn | None:
        data = self._read()
        # (A file written before the node was left out may hold the URL as given.)
        entry = data.get(without_node(url)) or data.get(url)
        if not entry or not isinstance(entry.get("token"), str):
            return None
        return SavedSignIn(entry["token"], str(entry.get("name", "")), str(entry.get("id", "")))

    def put(self, url: str, saved: SavedSignIn) -> None:
        data = self._read()
        data[without_node(url)] = {"token": saved.token, "name": saved.name, "id": saved.player_id}
        self._write(data)

    def forget(self, url: str) -> None:
        data = self._read()
        if data.pop(without_node(url), None) is not None:
            self._write(data)

    def _write(self, data: dict[str, dict[str, str]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.path.with_name(self.path.name + ".tmp")
        # Created 0600 from the start, then renamed over the old file atomically.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, sort_keys=True)
            fh.write("\n")
        os.chmod(tmp, 0o600)
        os.replace(tmp, self.path)
