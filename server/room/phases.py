"""A room's phases and the one table of which phase may follow which."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    WAITING = "waiting"
    PLAYING = "playing"
    BETWEEN = "between"  # between two deals of a series (the wire says "playing")
    FINISHED = "finished"


# Every phase change goes through Room._go, which checks this table.
TRANSITIONS: dict[Phase, frozenset[Phase]] = {
    Phase.WAITING: frozenset({Phase.PLAYING}),
    Phase.PLAYING: frozenset({Phase.BETWEEN, Phase.FINISHED}),
    Phase.BETWEEN: frozenset({Phase.PLAYING, Phase.FINISHED}),
    Phase.FINISHED: frozenset({Phase.PLAYING}),  # a rematch
}
