"""A listing kept in order as things are added and removed, read a page at a time.

The lobby lists its public rooms, the tournament desk its public tournaments,
with one of these each, kept up to date as rooms and tournaments change: a
page costs the same with ten rooms or a hundred thousand (a binary search,
then the page), never a scan. Pages are in the order things were added; the
cursor of a page is the position of its last item, marked by the listing's
seal (server.cursors): a cursor the listing never gave is refused.
"""

from __future__ import annotations

import bisect
from typing import Generic, TypeVar

from server.cursors import BadCursor, Seal

T = TypeVar("T")

__all__ = ["BadCursor", "Listing"]


class Listing(Generic[T]):
    __slots__ = ("_items", "_next", "_order", "_seq_of", "seal")

    def __init__(self, seal: Seal | None = None) -> None:
        self.seal = seal or Seal()
        self._seq_of: dict[str, int] = {}  # key -> position
        self._items: dict[int, T] = {}  # position -> item
        self._order: list[int] = []  # positions, ascending
        self._next = 1

    def __len__(self) -> int:
        return len(self._order)

    def __contains__(self, key: str) -> bool:
        return key in self._seq_of

    def add(self, key: str, item: T) -> None:
        """List ``item`` last (or keep its place if ``key`` is listed already)."""
        if key in self._seq_of:
            self._items[self._seq_of[key]] = item
            return
        seq, self._next = self._next, self._next + 1
        self._seq_of[key] = seq
        self._items[seq] = item
        self._order.append(seq)  # positions only grow: still sorted

    def discard(self, key: str) -> None:
        seq = self._seq_of.pop(key, None)
        if seq is None:
            return
        del self._items[seq]
        i = bisect.bisect_left(self._order, seq)
        del self._order[i]

    def page(self, after: str | None, limit: int) -> tuple[list[T], str | None]:
        """Up to ``limit`` items after the cursor ``after`` (None: from the first), and
        the cursor of the next page (None: this is the last)."""
        start = 0
        if after is not None:
            start = bisect.bisect_right(self._order, self.seal.read(after))  # BadCursor
        seqs = self._order[start : start + limit]
        more = start + limit < len(self._order)
        return [self._items[s] for s in seqs], (self.seal.give(seqs[-1]) if more and seqs else None)
