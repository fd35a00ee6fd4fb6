"""What the storage is given and gives back besides events: players, writes of its
own, and the ways a write can fail."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from server.events import Event


@dataclass(frozen=True, slots=True)
class StoredPlayer:
    id: str
    name: str
    guest: bool
    bot: bool


class NameInUse(Exception):
    """A registered player already has that name."""


class WriteFailed(Exception):
    """A write that did not commit and will not: nothing of it is stored."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class NewPlayer:
    player: StoredPlayer
    token_hash: str
    at_ms: int  # when it was registered (the server's time, decided by the caller)


@dataclass(frozen=True, slots=True)
class AbandonSeries:
    """A series that could not be resumed, and its unfinished deal, are ``abandoned``."""

    series_id: str


LostWrites = Callable[[Sequence[Event]], None]


@dataclass(frozen=True, slots=True)
class Fence:
    """A cluster node's claim to write for ``key`` (``room:ID``): the transaction it is
    written in commits only if ``token`` is at least the newest token stored for the
    key, and stores it as the newest. A node whose lease was taken over (a newer
    token written by the new owner) can no longer write (docs/scaling.md)."""

    key: str
    token: int


class FencedOut(Exception):
    """A newer owner's token is stored for a key: the write is refused, never retried."""
