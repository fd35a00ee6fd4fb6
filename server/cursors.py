"""The cursors of the server's listings: a position, marked so that only the server can
make one.

A listing's page ends with the cursor of the next one (``list_rooms``,
``list_tournaments``, ``GET /api/rooms``). A cursor is opaque text to clients:
``POSITION.MARK``, the position of the page's last item and the first 12 hex
digits of an HMAC-SHA-256 of it under a key the server drew. A cursor the
server never gave (a number made up, ``-1``, one of another server, one from
before a restart) has no valid mark and is refused (:class:`BadCursor`), so
"one it never gave is refused" (docs/protocol.md, *list_rooms*) holds for every
text, not only for those that are not numbers.

The key is the process's own (:class:`Seal` draws one), or, in a cluster,
one every node reads from Redis (server.shell.cluster.directory), so a cursor
from one node pages on another. Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

MARK_HEX = 12  # 48 bits: guessing one is hopeless at any request rate the quotas allow
MAX_POSITION = 10**19 - 1  # a cursor stays within the 32 characters the protocol allows


class BadCursor(ValueError):
    """A cursor this server never gave."""


class Seal:
    """Gives cursors for positions and reads them back, under ``key``."""

    __slots__ = ("key",)

    def __init__(self, key: bytes | None = None) -> None:
        self.key = key if key is not None else secrets.token_bytes(16)

    def _mark(self, position: int) -> str:
        digest = hmac.new(self.key, str(position).encode(), hashlib.sha256).hexdigest()
        return digest[:MARK_HEX]

    def give(self, position: int) -> str:
        """The cursor of ``position`` (a whole number from 0 to :data:`MAX_POSITION`)."""
        if not 0 <= position <= MAX_POSITION:
            raise ValueError(f"a cursor's position is 0 to {MAX_POSITION}, not {position}")
        return f"{position}.{self._mark(position)}"

    def give_text(self, position: str) -> str:
        """The cursor of a position written as text without dots (a stored listing's
        ``CREATED.ID`` is two such parts): ``POSITION.MARK``."""
        return f"{position}.{self._mark_text(position)}"

    def read_text(self, cursor: str) -> str:
        """The position of a cursor :meth:`give_text` gave; :class:`BadCursor` otherwise."""
        position, dot, mark = cursor.rpartition(".")
        if dot and position and hmac.compare_digest(mark, self._mark_text(position)):
            return position
        raise BadCursor(f"{cursor[:40]!r} is not a cursor this server gave")

    def _mark_text(self, position: str) -> str:
        digest = hmac.new(self.key, b"text:" + position.encode(), hashlib.sha256).hexdigest()
        return digest[:MARK_HEX]

    def read(self, cursor: str) -> int:
        """The position of a cursor this seal gave; :class:`BadCursor` for any other text."""
        position, dot, mark = cursor.partition(".")
        if (
            dot
            and position.isascii()
            and position.isdigit()
            and str(int(position)) == position
            and int(position) <= MAX_POSITION
            and hmac.compare_digest(mark, self._mark(int(position)))
        ):
            return int(position)
        raise BadCursor(f"{cursor[:40]!r} is not a cursor this server gave")
