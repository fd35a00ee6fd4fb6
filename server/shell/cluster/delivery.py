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
from server.shell.delivery import Delivery, unanswered
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

    def alone(self, player_id: str, session: Session) -> bool:
        return super().alone(player_id, session) and not self.presence.elsewhere(player_id)

    def deliver(
        self,
        outs: Iterable[Outbound],
        skip: Session | None = None,
        done: tuple[str, str] | None = None,
        asker: tuple[str, str, str] | None = None,
    ) -> None:
        """``skip``: a connection here that gets none of them. ``done``: (node,
        forwarded command's id) of the command this step ran; ``asker``: (player id,
        ref, the connection's id there) of that command, whose answer carries the ref
        to that connection alone (given only when the player has others)."""
        remote: dict[str, list[list[Any]]] = {}
        nodes_of = self.presence.nodes_of
        for out in outs:
            text = out.text()
            answer: str | None = None
            if asker is not None and (plain := unanswered(out, asker[1])) is not None:
                answer, text = text, plain.text()
            far: dict[str, list[str]] | None = None
            for player_id in out.to:
                for session in self.by_player.get(player_id, ()):
                    if session is not skip:
                        session.send(text)
                nodes = nodes_of.get(player_id)
                if nodes:
                    far = far or {}
                    for node in nodes:
                        far.setdefault(node, []).append(player_id)
            if answer is not None and done is not None and asker is not None:
                far = far or {}
                asking = far.setdefault(done[0], [])
                if asker[0] not in asking:
                    asking.append(asker[0])
            if far:
                for node, players in far.items():
                    item: list[Any] = [players, text]
                    if answer is not None and done is not None and node == done[0]:
                        item.append(answer)  # for the asking connection alone
                    remote.setdefault(node, []).append(item)
        if done is not None:
            remote.setdefault(done[0], [])
        for node, items in remote.items():
            payload: dict[str, Any] = {"k": "out", "items": items}
            if done is not None and node == done[0]:
                payload["done"] = done[1]
                if asker is not None:
                    payload["sid"] = asker[2]
            self._publish(node, payload)

    def answer_alone(
        self, outs: list[Outbound], player_id: str, done: tuple[str, str], sid: str
    ) -> None:
        """A read's answer (``get_tournament``) to the connection that asked, on the node
        the command came from, and to no other connection, as on one node (what else the
        step said, if anything, goes as usual)."""
        answer = [[[player_id], None, out.text()] for out in outs if out.to == (player_id,)]
        self.deliver([out for out in outs if out.to != (player_id,)])
        self._publish(done[0], {"k": "out", "items": answer, "done": done[1], "sid": sid})

    def deliver_here(self, items: list[list[Any]], asking: Session | None = None) -> None:
        """Messages another node addressed to players connected here (an item's third
        element: the text for ``asking``, the connection whose command it answers; its
        second None: for that connection alone)."""
        for players, text, *answer in items:
            for player_id in players:
                for session in self.by_player.get(player_id, ()):
                    if answer and session is asking:
                        session.send(answer[0])
                    elif text is not None:
                        session.send(text)
