"""What the tournaments' desk needs of the lobby to run rooms of its own: the rooms,
the event log, opening a room and settling it after a change. server.lobby.Lobby is
one; the desk's own Protocol adds what else it reads. (Head to head and the daily
desk need none of it: they return requests, server/requests.py.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from protocol.fields import PlayerInfo
from server.events import Event
from server.room import Outbound, Room, RoomSettings
from server.series import SecretScheme


class RoomOpener(Protocol):
    @property
    def rooms(self) -> Mapping[str, Room]: ...
    @property
    def events(self) -> list[Event]: ...

    def open_room(
        self,
        settings: RoomSettings,
        creator: PlayerInfo,
        contribution: str,
        now_ms: int,
        *,
        server_secret: str | None = None,
        secret_scheme: SecretScheme = SecretScheme.CHAIN,
        embargo: str | None = None,
    ) -> Room: ...

    def settle(self, room: Room, now_ms: int) -> list[Outbound]: ...
