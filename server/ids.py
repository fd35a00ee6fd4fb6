"""Fresh unguessable ids and secrets for rooms, deals, invites and tournaments."""

from __future__ import annotations

import secrets


class IdSource:
    """Fresh unguessable ids and secrets; tests substitute a deterministic one."""

    def room_id(self) -> str:
        return secrets.token_urlsafe(6)

    def match_id(self) -> str:
        return secrets.token_urlsafe(9)

    def invite_code(self) -> str:
        return secrets.token_urlsafe(6)

    def server_secret(self) -> str:
        return secrets.token_hex(32)
