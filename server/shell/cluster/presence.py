"""Which other nodes each player is connected to, as this node knows it.

Every node announces its players' first connection and last disconnection on
the broadcast channel, and keeps them in ``cs:presence:NODE`` (a hash of player
id to player) for nodes that start later. The hash lives as long as its node:
a node seen gone (its liveness key expired) counts as having no players.
"""

from __future__ import annotations


def presence_key(node: str) -> str:
    return f"cs:presence:{node}"


class Presence:
    def __init__(self) -> None:
        self.nodes_of: dict[str, set[str]] = {}  # player id -> the other nodes it is on

    def add(self, player_id: str, node: str) -> None:
        self.nodes_of.setdefault(player_id, set()).add(node)

    def remove(self, player_id: str, node: str) -> bool:
        """``player_id`` left ``node``; True if no other node has it now."""
        nodes = self.nodes_of.get(player_id)
        if nodes is None:
            return True
        nodes.discard(node)
        if nodes:
            return False
        del self.nodes_of[player_id]
        return True

    def elsewhere(self, player_id: str) -> bool:
        return player_id in self.nodes_of

    def drop_node(self, node: str) -> list[str]:
        """``node`` is gone: the players it had that no other node has."""
        left = [pid for pid, nodes in self.nodes_of.items() if node in nodes]
        return [pid for pid in left if self.remove(pid, node)]
