"""Delivery: addressed messages (:class:`server.room.Outbound`) to the connections that
receive them.

The hub hands every message it may send, once what it tells is stored, to
:meth:`Delivery.deliver`; today the recipients are this process's sessions, by
player id. Writes are batched: a session with messages is flushed once per turn
of the event loop, all its frames in one write. This is the seam a server of
many nodes replaces with one that also publishes to the other nodes' sessions
(docs/architecture.md).

A request's ``ref`` is the asking connection's own (each tab of a player counts
its refs from 1): the message answering it carries it to that connection alone,
and the same message goes to the player's other connections without it
(:meth:`Delivery.answer`), or another tab would take it for its own answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable

from server.room import Outbound
from server.shell.session import Session

log = logging.getLogger(__name__)


class Delivery:
    def __init__(self) -> None:
        self.by_player: dict[str, set[Session]] = {}
        self._unflushed: list[Session] = []

    def attach(self, player_id: str, session: Session) -> None:
        """``session`` receives ``player_id``'s messages from now on."""
        self.by_player.setdefault(player_id, set()).add(session)

    def detach(self, player_id: str, session: Session) -> bool:
        """``session`` receives no more; True if it was ``player_id``'s last one."""
        others = self.by_player.get(player_id, set())
        others.discard(session)
        if others:
            return False
        self.by_player.pop(player_id, None)
        return True

    def alone(self, player_id: str, session: Session) -> bool:
        """Is ``session`` the one connection of ``player_id``?"""
        return self.by_player.get(player_id) == {session}

    def deliver(self, outs: Iterable[Outbound], skip: Session | None = None) -> None:
        """``outs`` to their players' connections (``skip`` excepted)."""
        for out in outs:
            text = out.text()
            for player_id in out.to:
                for session in self.by_player.get(player_id, ()):
                    if session is not skip:
                        session.send(text)

    def answer(self, outs: Iterable[Outbound], session: Session, player_id: str, ref: str) -> None:
        """A step that answered ``session``'s request ``ref``: what carries the ref goes
        with it to ``session``, and without it to every other connection."""
        if self.alone(player_id, session):  # nearly always: nobody else to tell apart
            self.deliver(outs)
            return
        for out in outs:
            plain = unanswered(out, ref)
            if plain is None:
                self.deliver((out,))
            else:
                session.send(out.text())
                self.deliver((plain,), skip=session)

    def schedule_flush(self, session: Session) -> None:
        """``session`` has messages to write: write them once this turn of the loop is done."""
        if not self._unflushed:
            asyncio.get_running_loop().call_soon(self._flush)
        self._unflushed.append(session)

    def _flush(self) -> None:
        sessions, self._unflushed = self._unflushed, []
        for session in sessions:
            try:
                session.flush()
            except Exception:
                log.exception("could not write to a connection")


def unanswered(out: Outbound, ref: str) -> Outbound | None:
    """``out`` without ``ref``, if it carries it (None if it does not)."""
    message = out.message
    if getattr(message, "ref", None) != ref:
        return None
    return Outbound(out.to, message.model_copy(update={"ref": None}))
