"""Addressed messages to this node's sessions and, through Redis, to the other nodes'.

The room machine decided who receives each message (its one choke point,
server/room/addressing.py ``Room.address``); this only carries the text, serialized
once, to the nodes where those players are connected, and each node writes it
to that player's sessions and nobody else's. One publication per node per step;
a step that ran a command forwarded from another node says so (``done``) in its
publication to that node, which then reads the connection's next frame.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from server.room import Outbound
from server.shell.cluster.presence import Presence
from server.shell.delivery import Delivery
from server.shell.session import Session


class ClusterDelivery(Delivery):
    def __init__(
        self,
        presence: Presence,
        publish: Callable[[str | None, dict[str, Any]], None],
        signed_in: Callable[[str, Session], None],
        signed_out: Callable[[str], None],
    ) -> None:
        super().__init__()
        self.presence = presence
        self._publish = publish  # (node or None for all, payload), in order
        self._signed_in = signed_in
        self._signed_out = signed_out

    def attach(self, player_id: str, session: Session) -> None:
        super().attach(player_id, session)
        self._signed_in(player_id, session)

    def detach(self, player_id: str, session: Session) -> bool:
        """True if that was ``player_id``'s last connection on any node."""
        if not super().detach(player_id, session):
            return False
        self._signed_out(player_id)
        return not self.presence.elsewhere(player_id)

    def deliver(self, outs: Iterable[Outbound], done: tuple[str, str] | None = None) -> None:
        """``done``: (node, forwarded command's id) of the command this step ran."""
        remote: dict[str, list[list[Any]]] = {}
        nodes_of = self.presence.nodes_of
        for out in outs:
            text = out.text()
            far: dict[str, list[str]] | None = None
            for player_id in out.to:
                for session in self.by_player.get(player_id, ()):
                    session.send(text)
                nodes = nodes_of.get(player_id)
                if nodes:
                    far = far or {}
                    for node in nodes:
                        far.setdefault(node, []).append(player_id)
            if far:
                for node, players in far.items():
                    remote.setdefault(node, []).append([players, text])
        if done is not None:
            remote.setdefault(done[0], [])
        for node, items in remote.items():
            payload: dict[str, Any] = {"k": "out", "items": items}
            if done is not None and node == done[0]:
                payload["done"] = done[1]
            self._publish(node, payload)

    def deliver_here(self, items: list[list[Any]]) -> None:
        """Messages another node addressed to players connected here."""
        for players, text in items:
            for player_id in players:
                for session in self.by_player.get(player_id, ()):
                    session.send(text)
