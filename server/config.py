"""The server's settings from a TOML file, and the check every setting passes.

``cribsquares serve --config FILE`` reads FILE: a TOML table whose keys are
:class:`ServerConfig` field names (docs/operations.md lists them
with their defaults); quotas are written ``"60/min"``, lists as arrays. Any
unknown key, wrong type or value out of range is a :class:`ConfigError` with
a one-line reason, and :func:`check` applies the same rules to a config built
in code, so no setting reaches the server unchecked.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from protocol.fields import NODE_ID_PATTERN
from server.limits import Quota
from server.room import BETWEEN_DEALS_MS
from server.store_url import BadStore
from server.store_url import check as check_store

# Numbers that must be above zero; every other number may be zero (often: "off").
POSITIVE = frozenset({
    "tick_ms", "max_frame_bytes", "hard_max_frame_bytes", "rate_per_second", "rate_burst",
    "max_connections_per_address", "max_unsent_bytes", "heartbeat_s", "header_timeout_s",
    "max_request_line_bytes", "max_header_bytes", "max_headers", "hello_timeout_s",
    "quota_keys", "player_cache_size", "prune_every_s",
})  # fmt: skip
PORT_MAX = 65_535
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
NODE_ID = re.compile(NODE_ID_PATTERN)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8765
    db_path: str = "cribsquares.db"
    # The store, when not the SQLite file db_path: a postgresql://USER@HOST:PORT/DB URL
    # (or sqlite:///PATH, or a path); "" means db_path (server.storage.backends).
    store: str = ""
    grace_ms: int = 60_000  # a dropped player keeps its seat this long
    tick_ms: int = 50  # how often clocks (and delayed progress) are checked
    max_frame_bytes: int = 4_096  # larger frames get a frame_too_large error
    hard_max_frame_bytes: int = 65_536  # larger frames close the connection (1009)
    rate_per_second: float = 20.0
    rate_burst: int = 40
    finished_ttl_ms: int = 600_000  # a finished room is forgotten after this long
    max_waiting_rooms_per_player: int = 5
    max_open_rooms_per_player: int = 10  # created and not finished: waiting or playing
    between_deals_ms: int = 8_000  # a series' results stay up this long before the next deal
    challenge_ttl_ms: int = 60_000  # an unanswered challenge expires
    between_rounds_ms: int = 10_000  # a tournament's pause between two rounds
    # Registered people who may run any tournament: player ids, or names resolved once
    # at start to the id of the person holding the name (server.identity.resolve_admins).
    tournament_admins: tuple[str, ...] = ()
    max_connections_per_address: int = 32  # concurrent WebSockets from one remote address
    # Reverse proxies (their addresses) whose X-Forwarded-For names the client:
    # connections through them are counted per client address, not per proxy.
    trusted_proxies: tuple[str, ...] = ()
    # Browser pages from these origins (e.g. "https://play.example.org") may open
    # the WebSocket besides pages from the address the server listens on.
    allowed_origins: tuple[str, ...] = ()
    # The addresses people reach the server by (e.g. "https://play.example.org" behind
    # a proxy): pages from their origins may open the WebSocket too.
    public_urls: tuple[str, ...] = ()
    heartbeat_s: float = 30.0
    # `serve` runs a full garbage collection this often (0: never; see _collect_every).
    full_collection_s: float = 600.0
    max_unsent_bytes: int = 1_048_576  # a client this far behind is disconnected
    # permessage-deflate keeps two zlib streams per connection (about 300 KiB once
    # used) and costs CPU on every frame; our frames are a few hundred bytes.
    # docs/benchmarks.md has the measurement.
    compress: bool = False
    # -- Hostile load (docs/operations.md, Limits): HTTP, quotas, what is held open.
    header_timeout_s: float = 10.0  # a request head must arrive this soon after connect/reply
    body_timeout_s: float = 5.0  # an unread request body is drained at most this long
    max_request_line_bytes: int = 8_190  # longer: 400, one warning
    max_header_bytes: int = 8_190  # one header line; longer: 400
    max_headers: int = 64  # header lines per request; more: 400
    hello_timeout_s: float = 10.0  # a WebSocket that says no hello this long is closed
    signins_per_address: Quota = Quota(60, 60)  # every hello
    signins_per_account: Quota = Quota(20, 60)
    new_guests_per_address: Quota = Quota(60, 3_600)
    new_players_per_address: Quota = Quota(20, 3_600)  # registrations
    rooms_per_address: Quota = Quota(120, 3_600)  # rooms created
    rooms_per_account: Quota = Quota(60, 3_600)
    tournaments_per_address: Quota = Quota(10, 3_600)  # tournaments created
    tournaments_per_account: Quota = Quota(5, 3_600)
    joins_per_address: Quota = Quota(120, 60)  # join/leave a room or tournament, spectate
    joins_per_account: Quota = Quota(60, 60)
    http_per_address: Quota = Quota(600, 60)  # HTTP requests, the WebSocket upgrade included
    analyses_per_address: Quota = Quota(60, 3_600)  # new analyses (server.analysis)
    analyses_per_account: Quota = Quota(60, 3_600)
    # Bytes of big answers (get_tournament; HTTP answers), paid for once written:
    # refused while overspent.
    read_bytes_per_address: Quota = Quota(10_000_000, 60)
    read_bytes_per_account: Quota = Quota(10_000_000, 60)
    quota_keys: int = 100_000  # addresses (or accounts) each quota remembers, LRU
    max_waiting_rooms_per_address: int = 20
    max_open_rooms_per_address: int = 40  # waiting or playing
    max_tournaments_per_address: int = 6  # not yet over
    max_waiting_rooms: int = 20_000  # on the whole server
    max_registering_tournaments: int = 1_000  # on the whole server
    waiting_room_ttl_ms: int = 3_600_000  # a room still waiting this long after it opened closes
    registration_ttl_ms: int = 86_400_000  # a tournament never started is cancelled after this
    player_cache_size: int = 10_000  # signed-in players kept in memory (LRU)
    # CPU-seconds a minute one account's server bots may think (server.bot_queue; 0: no
    # budget); over it they place by the fallback rule.
    bot_cpu_per_owner_s: float = 10.0
    prune_after_ms: int = 604_800_000  # rooms never played, tournaments never started: forgotten
    prune_every_s: float = 3_600.0  # how often the server looks for them (server.storage.pruning)
    # -- A cluster (docs/scaling.md): Redis shared by every node ("" : one process alone),
    # and this node's id among them ("": one made up at start).
    redis_url: str = ""
    node_id: str = ""


@dataclass(frozen=True, slots=True)
class LobbyConfig:
    grace_ms: int = 60_000
    finished_ttl_ms: int = 600_000
    max_waiting_rooms_per_player: int = 5
    max_open_rooms_per_player: int = 10  # waiting or playing
    between_deals_ms: int = BETWEEN_DEALS_MS
    challenge_ttl_ms: int = 60_000
    max_challenges_per_player: int = 5  # open challenges one has sent
    quickplay_card_clock_ms: int = 30_000
    quickplay_deal_clock_ms: int = 300_000
    quickplay_bot: str = "expert"
    between_rounds_ms: int = 10_000  # a tournament's pause between two rounds
    max_tournaments_per_host: int = 3  # not yet over
    admins: frozenset[str] = frozenset()  # ids of registered people who may run any tournament
    # What one remote address (its players' create_room and create_tournament), and
    # the whole server, may hold open; 0 for a count: no limit.
    max_waiting_rooms_per_address: int = 20
    max_open_rooms_per_address: int = 40
    max_tournaments_per_address: int = 6  # not yet over
    max_waiting_rooms: int = 20_000
    max_registering_tournaments: int = 1_000
    waiting_room_ttl_ms: int = 3_600_000  # 0: a waiting room never expires
    registration_ttl_ms: int = 86_400_000  # a tournament not started (and not scheduled)


class ConfigError(ValueError):
    """A setting that cannot be used; the message is one line for the user."""


def _fields(config_type: type[ServerConfig]) -> dict[str, Any]:
    return {f.name: f.default for f in dataclasses.fields(config_type)}


def store_of(config: ServerConfig) -> str:
    """The store the server opens: ``store`` if set, else the SQLite file ``db_path``."""
    return config.store or config.db_path


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
    redis_url = getattr(config, "redis_url", "")
    if redis_url and not redis_url.startswith(REDIS_SCHEMES):
        raise ConfigError(
            f"redis_url: redis://HOST:PORT/DB, rediss://… (TLS) or unix://PATH, not {redis_url!r}"
        )
    node_id = getattr(config, "node_id", "")
    if node_id and not NODE_ID.fullmatch(node_id):
        raise ConfigError(f"node_id: 1 to 32 letters, digits, '-' or '_', not {node_id!r}")
    if node_id and not redis_url:
        raise ConfigError("node_id: only for a node of a cluster (set redis_url too)")
    try:
        check_store(store_of(config))
    except BadStore as exc:
        raise ConfigError(f"store: {exc}") from None
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
