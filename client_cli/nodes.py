"""Which server node a connection asks for (docs/protocol.md, *node_hint*).

A server of several nodes may tell a client that said ``"follow_node": true``
which node runs a room it has a seat in (``node_hint``). The client follows by
reconnecting to the same address with ``node=NODE`` in the WebSocket URL's
query, replacing any ``node`` it had and keeping every other parameter. This
module edits the URL and decides whether a hint is followed; the session
(:mod:`client_cli.session`) does the move.
"""

from __future__ import annotations

from collections import deque
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

NODE_PARAM = "node"
MAX_MOVES = 3  # moves followed in any minute; hints past that are ignored
MOVES_WINDOW_S = 60.0


def node_of(url: str) -> str | None:
    """The node the URL's query names (the last ``node``), or None."""
    found = None
    for key, value in parse_qsl(urlsplit(url).query, keep_blank_values=True):
        if key == NODE_PARAM:
            found = value
    return found


def with_node(url: str, node: str) -> str:
    """``url`` with ``node=NODE`` in its query, in place of any ``node`` it had."""
    return _with_query(url, [(NODE_PARAM, node)])


def without_node(url: str) -> str:
    """``url`` without any ``node`` in its query: the server's address, whichever
    of its nodes the URL asks for (a sign-in is saved under it)."""
    return _with_query(url, [])


def _with_query(url: str, extra: list[tuple[str, str]]) -> str:
    parts = urlsplit(url)
    query = [
        (key, value)
        for key, value in parse_qsl(parts.query, keep_blank_values=True)
        if key != NODE_PARAM
    ]
    return urlunsplit(parts._replace(query=urlencode(query + extra)))


class Moves:
    """The loop guard: a hint for the node the URL names already is ignored (the
    address could not route there, and connecting again would not either), and
    at most :data:`MAX_MOVES` moves are made in any :data:`MOVES_WINDOW_S`."""

    def __init__(self) -> None:
        self._times: deque[float] = deque()

    def follow(self, url: str, node: str, now: float) -> bool:
        """True if a hint naming ``node`` is to be followed now (and counts it)."""
        if node_of(url) == node:
            return False
        while self._times and now - self._times[0] >= MOVES_WINDOW_S:
            self._times.popleft()
        if len(self._times) >= MAX_MOVES:
            return False
        self._times.append(now)
        return True
