"""The public bot API: a bot is a function from what its player can see to a cell::

    from engine.bots import BotView

    def choose(view: BotView) -> int | str:
        ...

``view.cells`` holds the 16 cells in reading order (a1, b1, c1, d1, a2, ...),
each a :class:`~engine.cards.Card` or ``None``; ``view.card`` is the card to
place, ``view.turn`` its number (1..16), ``view.seen`` every card dealt so far
and ``view.legal_cells()`` the indices where it may go. Return a cell index
(0..15) or a cell name (``"b2"``). The same view is what the engine's own
strategies see, so a bot never knows more than a human player would.

:func:`load_chooser` turns ``--strategy`` into such a function: an engine
level by name (``level-1`` .. ``level-8``, or ``random``, ``greedy``,
``expert``), ``path/to/file.py:func`` or ``package.module:func``.
:class:`Plan` says where a bot plays and :class:`Outcome` what one deal gave
it. Nothing here touches the network (:mod:`client_cli.botkit.client` does).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.bots import BotView, Budget, level_names, make_bot
from engine.errors import EngineError
from engine.grid import CELLS, parse_cell
from protocol.fields import Pace

Choose = Callable[[BotView], "int | str"]
"""A bot: the visible state in, a cell index or name out."""

# The engine's strongest strategy may think this long per card, at most, and
# never more than half of the card's clock.
MAX_THINK_S = 5.0


class BotError(Exception):
    """Something to tell the bot's operator in one line (bad strategy, refused room...)."""


def load_chooser(spec: str, *, seed: int | str = 0) -> Choose:
    """The bot ``spec`` names: an engine strategy, ``file.py[:func]`` or ``module:func``.

    A file or module without ``:func`` must define ``choose``.
    """
    if spec in level_names():
        return engine_chooser(spec, seed=seed)
    target, _, func = spec.partition(":")
    func = func or "choose"
    if target.endswith(".py") or os.sep in target or "/" in target:
        path = Path(target)
        if not path.is_file():
            raise BotError(f"no bot file {target}")
        module_name = "cribsquares_bot_" + re.sub(r"\W", "_", path.stem)
        loader_spec = importlib.util.spec_from_file_location(module_name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise BotError(f"cannot load {target} as Python")
        module = importlib.util.module_from_spec(loader_spec)
        try:
            loader_spec.loader.exec_module(module)
        except Exception as exc:
            raise BotError(f"{target} failed to load: {exc!r}") from None
    elif ":" in spec:
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            raise BotError(f"cannot import {target}: {exc}") from None
    else:
        known = ", ".join(level_names())
        raise BotError(
            f"unknown strategy {spec!r}: use one of {known}, FILE.py[:FUNC] or MODULE:FUNC"
        )
    chooser = getattr(module, func, None)
    if not callable(chooser):
        raise BotError(f"{target} has no function {func}(view)")
    return chooser  # type: ignore[no-any-return]


def engine_chooser(name: str, *, seed: int | str = 0, think_s: float = MAX_THINK_S) -> Choose:
    """An engine strategy as a bot; ``expert`` stops thinking after ``think_s`` seconds."""
    strategy = make_bot(name, seed)
    budget = Budget(seconds=think_s, clock=time.monotonic)

    def choose(view: BotView) -> int:
        return strategy.choose(view, budget)

    choose.__name__ = f"{name}_choose"
    return choose


def cell_index(answer: object) -> int:
    """A chooser's answer as a cell index; ValueError if it is not a cell."""
    if isinstance(answer, bool):
        raise ValueError(f"{answer!r} is not a cell")
    if isinstance(answer, int):
        if 0 <= answer < CELLS:
            return answer
        raise ValueError(f"cell index {answer} is not 0..15")
    if isinstance(answer, str):
        try:
            return parse_cell(answer)
        except EngineError as exc:
            raise ValueError(str(exc)) from None
    raise ValueError(f"{answer!r} is not a cell (an index 0..15 or a name like 'b2')")


@dataclass(frozen=True)
class Plan:
    """Where the bot plays: a given room, the server's quick-play queue, or an open room.

    ``queue``: ask the server's quick-play queue for an opponent first; a server
    that does not queue bots (quick play is rated, for people) sends it to open
    rooms instead: join an open public lockstep room, else open one of
    ``seats`` and start it after ``wait_s`` with whoever came.
    """

    room: str | None = None  # a room id or an invite code
    games: int = 1  # series to play, one after another
    seats: int = 2  # open rooms: seats of a room the bot opens
    wait_s: float = 30.0  # open rooms: start with whoever came after this long
    card_clock_ms: int = 30_000
    queue: bool = False
    pace: Pace = Pace.LOCKSTEP  # quick play
    best_of: int = 1  # quick play, and a room the bot opens
    bot_after_s: float | None = None  # quick play: a server bot after this long
    arena: bool = False  # quick play in the bot arena: rated, against bot programs only


@dataclass
class Outcome:
    """One finished match, from the bot's side."""

    room_id: str
    match_id: str
    rank: int
    players: int
    score: int
    starter: str
    boards: list[tuple[str, bool, int, int]]  # (name, bot, rank, score) by rank
    fallbacks: int = 0  # cards the fallback rule placed because the bot failed
    deal: int = 1  # which deal of its series
    best_of: int = 1
    # The deal checked as every client checks it (engine.verification): True when every
    # check passed; the labels of those that failed otherwise.
    verified: bool = False
    failed_checks: tuple[str, ...] = ()

    def line(self) -> str:
        others = ", ".join(
            f"{name}{' (bot)' if bot else ''} {score}" for name, bot, _, score in self.boards
        )
        which = f"deal {self.deal} of {self.best_of}: " if self.best_of > 1 else ""
        checked = (
            "deal verified"
            if self.verified
            else "DEAL NOT VERIFIED: " + "; ".join(self.failed_checks or ("no check made",))
        )
        return (
            f"{which}room {self.room_id}: rank {self.rank} of {self.players} with "
            f"{self.score} points (starter {self.starter}; {others}); {checked}"
        )
