"""The server's bot levels as every client shows them: a level's rating beside its name.

The server lists its levels in a ``bots`` message (the reply to ``list_bots``);
:func:`fetch_levels` asks for it once, and the text functions here are what the
plain client prints and the full-screen client's pickers show, so that a player
choosing an opponent (a game against a bot, quick play's bot, a room's or a
tournament's bots) sees how strong it is. A server from before the levels
answers ``unknown_type``: the clients then offer the three old strategies.
"""

from __future__ import annotations

from collections.abc import Sequence

from client_cli.session import Session, SessionError
from protocol.head_to_head import BotLevel, Bots, ListBots

# What a server without levels still plays (protocol.md, add_bot).
OLD_STRATEGIES = ("random", "greedy", "expert")


async def fetch_levels(session: Session) -> Bots | None:
    """The server's levels, or None if it has none to tell (an older server)."""
    try:
        reply = await session.request(ListBots())
    except SessionError:
        return None
    return reply if isinstance(reply, Bots) else None


def find(levels: Sequence[BotLevel], name: str) -> BotLevel | None:
    """The level called ``name`` or one of its aliases."""
    for level in levels:
        if name == level.name or name in level.aliases:
            return level
    return None


def rating_text(level: BotLevel) -> str:
    if level.rating is None:
        return "not rated"
    spread = f" ± {level.deviation}" if level.deviation is not None else ""
    return f"rated {level.rating}{spread}"


def label(level: BotLevel) -> str:
    """Short, for a picker: ``level-3 casual (1250)``."""
    rating = f" ({level.rating})" if level.rating is not None else ""
    return f"{level.name} {level.title}{rating}"


def picked(levels: Sequence[BotLevel], name: str) -> str:
    """What the player is told on choosing ``name``: ``level-3 (casual, rated 1250 ± 40)``."""
    level = find(levels, name)
    if level is None:
        return name
    return f"{name} ({level.title}, {rating_text(level)})"


def lines(bots: Bots) -> list[str]:
    """The whole ladder, one line a level, weakest first."""
    out = []
    for level in bots.levels:
        also = f" (also {', '.join(level.aliases)})" if level.aliases else ""
        out.append(
            f"  {level.name:8} {level.title:9} {rating_text(level):16} {level.description}{also}"
        )
    quick = find(bots.levels, bots.quickplay_bot)
    out.append(f"quick play's bot after a wait: {picked(bots.levels, bots.quickplay_bot)}")
    if quick is None:
        out.pop()
    return out
