"""The envelope of everything a room, the lobby or a tournament says: a message and
the ids of the players who may receive it. Hidden information is filtered before
an :class:`Outbound` is built (:meth:`server.room.machine.Room.address`); this
module only carries it."""

from __future__ import annotations

from pydantic import BaseModel

from protocol.prepared import Prepared
from protocol.wire import dump_server


class Outbound:
    """A message and the ids of the players who may receive it.

    ``message`` is the pydantic model and :meth:`text` its JSON (``dump_server``).
    The per-placement messages come :class:`~protocol.prepared.Prepared`: their
    JSON is written at once and their model built only if ``message`` is read.
    """

    __slots__ = ("_message", "to")

    def __init__(self, to: tuple[str, ...], message: BaseModel | Prepared) -> None:
        self.to = to
        self._message = message

    @property
    def message(self) -> BaseModel:
        message = self._message
        return message.model() if isinstance(message, Prepared) else message

    def text(self) -> str:
        message = self._message
        return message.text if isinstance(message, Prepared) else dump_server(message)

    def __repr__(self) -> str:
        return f"Outbound(to={self.to!r}, message={self._message!r})"
