"""The one read helper of the SQLite modules (server.storage, server.tournaments.store,
server.daily.store): a query's rows, by column name. Reads only; the writer is
server.storage's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import aiosqlite


async def fetch_rows(
    db: aiosqlite.Connection, sql: str, args: Sequence[Any]
) -> list[aiosqlite.Row]:
    db.row_factory = aiosqlite.Row
    async with db.execute(sql, args) as cur:
        return list(await cur.fetchall())
