"""A bot seat's cell chooser, built in one place for every kind of bot seat."""

from __future__ import annotations

from server import errors
from server.fallback import CellChooser
from server.room.state import BotFactory


def chooser(bots: BotFactory | None, strategy: str, seed: str) -> CellChooser:
    """The cell chooser of ``strategy`` seeded with ``seed``; UnknownStrategy if no bot
    plays it (or this server runs no bots)."""
    try:
        if bots is None:
            raise KeyError(strategy)
        return bots(strategy, seed)
    except KeyError:
        raise errors.UnknownStrategy(f"no bot plays strategy {strategy!r}") from None


def known(bots: BotFactory | None, strategy: str) -> bool:
    """Does a bot of this server play ``strategy``?"""
    try:
        chooser(bots, strategy, "probe")
    except errors.UnknownStrategy:
        return False
    return True


def seat_seed(room_id: str, player_id: str) -> str:
    """A bot seat's seed: the same moves whoever computes them, wherever."""
    return f"{room_id}/{player_id}"
