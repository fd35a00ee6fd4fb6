"""Who a name stands for: player names' keys in the database, and the server's admins.

Identity is a player id. A name only finds one: the name's key
(:func:`protocol.names.name_key`) is unique among the players who hold a name
of their own, registered people and bot programs (``hello`` without ``guest``);
the database enforces it with a unique index. Guests (whose names need not be
unique, and may not take a key someone holds) and the server's own bots are
found by id only.

At every start (:func:`server.storage.players.index_names`, in the transaction
that opens the store) each player row gets the key of its name, and the unique
index is rebuilt. A database
from before keys, or keyed by an earlier version of the key (separators
counted before version 2), may hold names that now share a key (``Ada`` and
``ada``, ``ada`` and ``ada `` with a trailing space, ``John Smith`` and
``John-Smith``): every such player is kept, with
its id, name, history and rating, and reported (:class:`Clash`); the first to
have registered holds the key, so the name finds that one, and the others
are found by id. Nothing is merged. docs/operations.md, *Names*, says what
an operator may do about them.

The admins (``cribsquares serve --admin``) are registered people, resolved
once at start to their ids (:func:`resolve_admins`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

# The players who hold their name's key: not guests, not the server's bots (no token).
HOLDS_NAME = "guest = 0 AND token_hash IS NOT NULL"


@dataclass(frozen=True, slots=True)
class Clash:
    """Registered players whose names share a key; the first holds it."""

    key: str
    players: tuple[tuple[str, str], ...]  # (id, name), first registered first

    def describe(self) -> str:
        # ascii(): a stored name may hold anything, even escape sequences; logs show none.
        holder, *others = self.players
        return f"{holder[1]!a} ({holder[0]}, found by name) shadows " + ", ".join(
            f"{name!a} ({pid})" for pid, name in others
        )


def report(clashes: list[Clash]) -> None:
    if not clashes:
        return
    log.warning(
        "%d names are shared by players registered before names were compared as they"
        " are now; each player is kept, the first holds the name and the others are"
        " found by id (docs/operations.md, Names): %s",
        len(clashes),
        "; ".join(c.describe() for c in clashes),
    )


class AdminNotFound(ValueError):
    """``--admin`` names nobody who may be an admin."""


async def resolve_admins(
    find: Callable[[str], Awaitable[dict[str, Any] | None]], given: Iterable[str]
) -> frozenset[str]:
    """The player ids of the admins given by id or registered name (``find``: Storage's
    find_player); AdminNotFound if one is not a registered person (a guest, a bot, nobody)."""
    ids = set()
    for who in given:
        found = await find(who)
        if found is None:
            raise AdminNotFound(f"--admin {who}: no registered player has that id or name")
        if found["guest"] or found["bot"]:
            kind = "a guest" if found["guest"] else "a bot"
            raise AdminNotFound(f"--admin {who}: {found['id']} is {kind}, not a registered person")
        ids.add(found["id"])
        log.info("admin: %s (%s)", ascii(found["name"]), found["id"])
    return frozenset(ids)
