"""Wake-up times for many things, so a clock tick visits only those that are due.

Pure and synchronous: :meth:`Alarms.set` says when a key (a room id, a
tournament id) next has something to do, :meth:`Alarms.due` hands back the
keys whose time has come, each once, earliest first. A heap holds the times;
an entry that no longer matches the key's latest time is skipped when it comes
up, so setting a key again costs one push and nothing is searched.
"""

from __future__ import annotations

import heapq


class Alarms:
    def __init__(self) -> None:
        self._at: dict[str, int] = {}  # key -> its time
        self._heap: list[tuple[int, str]] = []

    def set(self, key: str, when: int | None) -> None:
        """``key`` is next due at ``when`` (None: it has nothing timed)."""
        if when is None:
            self._at.pop(key, None)
        elif self._at.get(key) != when:
            self._at[key] = when
            heapq.heappush(self._heap, (when, key))

    def discard(self, key: str) -> None:
        self._at.pop(key, None)

    def due(self, now_ms: int) -> list[str]:
        """The keys due at ``now_ms``, earliest first; each is unset until set again."""
        keys: list[str] = []
        heap = self._heap
        while heap and heap[0][0] <= now_ms:
            when, key = heapq.heappop(heap)
            if self._at.get(key) == when:
                del self._at[key]
                keys.append(key)
        return keys

    def __len__(self) -> int:
        return len(self._at)
