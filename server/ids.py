"""Fresh unguessable ids and secrets for rooms, deals, invites and tournaments.

An id never begins with ``-``: a command line would read it as an option
(``cribsquares tournament show -zhCnJuv``), so the first character is drawn
again from letters and digits, which keeps every id the same length and its
other characters as random as before.
"""

from __future__ import annotations

import secrets
import string

_FIRST = string.ascii_letters + string.digits


def safe_token(nbytes: int) -> str:
    """A URL-safe token of ``nbytes`` random bytes whose first character is never ``-``."""
    token = secrets.token_urlsafe(nbytes)
    if token.startswith("-"):
        token = secrets.choice(_FIRST) + token[1:]
    return token


class IdSource:
    """Fresh unguessable ids and secrets; tests substitute a deterministic one."""

    def room_id(self) -> str:
        return safe_token(6)

    def match_id(self) -> str:
        return safe_token(9)

    def invite_code(self) -> str:
        return safe_token(6)

    def server_secret(self) -> str:
        return secrets.token_hex(32)
