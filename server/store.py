"""The store the server runs on, as the rest of the server sees it: a Protocol.

:class:`server.storage.Storage` implements it, on SQLite (the embedded default)
or PostgreSQL (``--store postgresql://…``). The
hub awaits its writes before it sends anything they tell (acknowledged means
stored); a restart and a lost write read back through it what to resume; the
HTTP API reads the history through it (docs/architecture.md, the seams).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Protocol

from server.daily.views import DayFacts
from server.events import Event
from server.ratings import Entry
from server.records import DeskState, Draw, Fence, LostWrites, StoredPlayer
from server.recovery import Resumable, ResumableTournament, StoredTable


class Store(Protocol):
    # -- State
    failing: str | None  # why writes are waiting for the database (None: they are not)
    on_lost: LostWrites | None  # told, synchronously, of the events of every write lost

    # -- The writes the hub awaits
    def persist(
        self, events: Sequence[Event], fences: Sequence[Fence] = ()
    ) -> asyncio.Future[None]:
        """Resolves, in submission order, once ``events`` are committed (WriteFailed: not).

        ``fences``: a cluster node's lease tokens for the rooms the events concern,
        checked in the same transaction (a stale one: WriteFailed, nothing stored)."""

    async def create_player(self, player: StoredPlayer, token_hash: str, at_ms: int) -> None: ...

    async def abandon(self, series_id: str) -> None: ...

    async def abandon_tournament(self, tournament_id: str, at_ms: int) -> None: ...

    async def set_aside(
        self, kind: str, game_id: str, release: str, reason: str, at_ms: int
    ) -> None:
        """This release could not resume ``game_id`` (``tournament`` or ``series``): it
        stays as stored, recorded as set aside (server.storage.quarantine)."""

    async def resumed_again(self, kind: str, game_id: str) -> None: ...

    async def set_aside_games(self) -> list[dict[str, Any]]: ...

    async def prune(self, before_ms: int, chunk: int = 500) -> dict[str, int]: ...

    async def draw_daily(self, drawn: Draw) -> None:
        """Store the daily deal's secrets for days with none (a stored one is never replaced)."""

    async def close(self) -> None: ...

    # -- What sign-in, a restart and a lost write read back
    async def player_by_token_hash(self, token_hash: str) -> StoredPlayer | None: ...

    async def find_player(self, who: str) -> dict[str, Any] | None: ...

    async def shadowed_players(self) -> set[str]: ...

    async def ratings(self) -> list[tuple[str, Entry]]: ...

    async def newest_fence(self) -> int:
        """The largest lease token a cluster node wrote under (0: none)."""

    async def unfinished(self, room_id: str | None = None) -> list[Resumable]: ...

    async def unfinished_tournaments(self) -> list[ResumableTournament]: ...

    async def table_series(self, series_id: str) -> StoredTable | None: ...

    async def daily_state(self, today: int) -> DeskState:
        """What the daily desk holds at start: secrets, lifted days, attempts, days played."""

    async def daily_secrets(self, since: int) -> tuple[dict[int, str], set[int]]:
        """The daily deal's stored secrets of day ``since`` on, and the days lifted."""

    # -- The history the HTTP API serves
    async def match(self, match_id: str, viewer: str | None = None) -> dict[str, Any] | None: ...

    async def player_matches(
        self, who: str, limit: int = 100, viewer: str | None = None
    ) -> dict[str, Any] | None: ...

    async def series(self, series_id: str) -> dict[str, Any] | None: ...

    async def player_ratings(self, who: str, limit: int = 100) -> dict[str, Any] | None: ...

    async def tournament(self, tournament_id: str) -> dict[str, Any] | None: ...

    async def tournament_page(
        self, limit: int, after: str | None, status: str | None = None
    ) -> tuple[list[dict[str, Any]], str | None]: ...

    async def tournament_boards(self, tournament_id: str) -> list[dict[str, Any]]: ...

    async def daily_day(self, day: int, today: int) -> DayFacts:
        """Everything stored of a day of the daily deal, for server.daily.views to show."""
