"""What the store is given and gives back besides events: the record types the store
seam (server/store.py) and its implementation (server/storage) share, so that
neither side imports the other's for them: a player as stored, a lease token
fencing a write, a day's secrets drawn ahead, what the daily desk is loaded
with, and the ways a write can fail."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from server.daily.views import Attempt
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


@dataclass(frozen=True, slots=True)
class Draw:
    """Secrets drawn for days that have none stored yet: (day number, secret). Its
    repr leaves them out, as every event's leaves out what it must not log."""

    secrets: tuple[tuple[int, str], ...] = field(repr=False)
    at_ms: int


@dataclass(frozen=True, slots=True)
class DeskState:
    """What the desk is loaded with at start (server.daily.desk.DailyDesk)."""

    secrets: dict[int, str]
    lifted: set[int]
    attempts: list[Attempt]
    played: list[tuple[str, int]]
