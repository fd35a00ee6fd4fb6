"""The server's settings from a TOML file, and the check every setting passes.

``cribsquares serve --config FILE`` reads FILE: a TOML table whose keys are
:class:`server.app.ServerConfig` field names (docs/operations.md lists them
with their defaults); quotas are written ``"60/min"``, lists as arrays. Any
unknown key, wrong type or value out of range is a :class:`ConfigError` with
a one-line reason, and :func:`check` applies the same rules to a config built
in code, so no setting reaches the server unchecked.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from server.limits import Quota

if TYPE_CHECKING:
    from server.app import ServerConfig

# Numbers that must be above zero; every other number may be zero (often: "off").
POSITIVE = frozenset({
    "tick_ms", "max_frame_bytes", "hard_max_frame_bytes", "rate_per_second", "rate_burst",
    "max_connections_per_address", "max_unsent_bytes", "heartbeat_s", "header_timeout_s",
    "max_request_line_bytes", "max_header_bytes", "max_headers", "hello_timeout_s",
    "quota_keys", "player_cache_size", "prune_every_s",
})  # fmt: skip
PORT_MAX = 65_535


class ConfigError(ValueError):
    """A setting that cannot be used; the message is one line for the user."""


def _fields(config_type: type[ServerConfig]) -> dict[str, Any]:
    return {f.name: f.default for f in dataclasses.fields(config_type)}


def check(config: ServerConfig) -> None:
    """Raise ConfigError for the first setting out of range."""
    port = config.port
    if not 0 <= port <= PORT_MAX:
        raise ConfigError(f"port: 1 to {PORT_MAX} (0: any free port), not {port}")
    for name in _fields(type(config)):
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        if value != value or value in (float("inf"), float("-inf")):
            raise ConfigError(f"{name}: a finite number, not {value}")
        if name in POSITIVE and value <= 0:
            raise ConfigError(f"{name}: more than 0, not {value:g}")
        if value < 0:
            raise ConfigError(f"{name}: 0 or more, not {value:g}")
    prune = getattr(config, "prune_after_ms", 0)
    waiting = getattr(config, "waiting_room_ttl_ms", 0)
    if prune and (not waiting or prune <= waiting):
        # A room still waiting must never be forgotten by the database.
        raise ConfigError(
            "prune_after_ms: 0 (never), or longer than waiting_room_ttl_ms, which must then be set"
        )


def _convert(name: str, default: Any, value: Any) -> Any:
    """``value`` from the file as the type of the field's ``default``."""
    kind = type(default)
    if isinstance(default, Quota):
        if not isinstance(value, str):
            raise ConfigError(f'{name}: a quota like "60/min", not {value!r}')
        try:
            return Quota.parse(value)
        except ValueError as exc:
            raise ConfigError(f"{name}: {exc}") from None
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{name}: true or false, not {value!r}")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{name}: a whole number, not {value!r}")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{name}: a number, not {value!r}")
        return float(value)
    if isinstance(default, tuple):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{name}: a list of strings, not {value!r}")
        return tuple(value)
    if isinstance(default, str):
        if not isinstance(value, str):
            raise ConfigError(f"{name}: a string, not {value!r}")
        return value
    raise ConfigError(f"{name}: cannot be set from a file ({kind.__name__})")


def from_mapping(base: ServerConfig, settings: Mapping[str, Any]) -> ServerConfig:
    """``base`` with ``settings`` (field name -> TOML value) applied, then checked."""
    known = _fields(type(base))
    changes: dict[str, Any] = {}
    for name, value in settings.items():
        if name not in known:
            raise ConfigError(f"no setting {name!r} (docs/operations.md lists them)")
        changes[name] = _convert(name, getattr(base, name), value)
    config = dataclasses.replace(base, **changes)
    check(config)
    return config


def load(path: str | Path, base: ServerConfig) -> ServerConfig:
    """``base`` with the settings of the TOML file at ``path`` applied, then checked."""
    try:
        with open(path, "rb") as f:
            settings = tomllib.load(f)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not TOML: {exc}") from None
    try:
        return from_mapping(base, settings)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def to_toml(config: ServerConfig) -> str:
    """Every setting of ``config`` as a TOML file ``load`` reads back."""
    lines = []
    for name in _fields(type(config)):
        value = getattr(config, name)
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, Quota):
            text = f'"{value}"'
        elif isinstance(value, int | float):
            text = repr(value)
        elif isinstance(value, tuple):
            text = "[" + ", ".join(_string(v) for v in value) + "]"
        elif isinstance(value, str):
            text = _string(value)
        else:
            continue
        lines.append(f"{name} = {text}")
    return "\n".join(lines) + "\n"


def _string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
