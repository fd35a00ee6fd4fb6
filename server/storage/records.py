"""The storage's own writes (besides events); the record types it shares with the
store seam are server.records'."""

from __future__ import annotations

from dataclasses import dataclass

from server.records import StoredPlayer


@dataclass(frozen=True, slots=True)
class NewPlayer:
    player: StoredPlayer
    token_hash: str
    at_ms: int  # when it was registered (the server's time, decided by the caller)


@dataclass(frozen=True, slots=True)
class AbandonSeries:
    """A series that could not be resumed, and its unfinished deal, are ``abandoned``."""

    series_id: str
