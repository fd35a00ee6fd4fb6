"""Bots that play over the public protocol, exactly like a human's client, and the
API to write one (docs/bot_api.md).

* :mod:`client_cli.botkit.api`: what a bot is (a function of a
  :class:`~engine.bots.BotView` to a cell), :func:`load_chooser`, :class:`Plan`,
  :class:`Outcome`;
* :mod:`client_cli.botkit.client`: :class:`BotClient`, which plays a plan on a server;
* :mod:`client_cli.botkit.command`: the command line, :func:`main` for a bot script.

The names below are the public API; each is loaded from its module when first
used, so that ``cribsquares --help`` does not pay for the network stack.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from client_cli.botkit.api import (
        BotError,
        Choose,
        Outcome,
        Plan,
        cell_index,
        engine_chooser,
        load_chooser,
    )
    from client_cli.botkit.client import BotClient
    from client_cli.botkit.command import default_name, main, play

_WHERE = {
    "BotError": "api",
    "Choose": "api",
    "Outcome": "api",
    "Plan": "api",
    "cell_index": "api",
    "engine_chooser": "api",
    "load_chooser": "api",
    "BotClient": "client",
    "default_name": "command",
    "main": "command",
    "play": "command",
}
__all__ = [
    "BotClient",
    "BotError",
    "Choose",
    "Outcome",
    "Plan",
    "cell_index",
    "default_name",
    "engine_chooser",
    "load_chooser",
    "main",
    "play",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{where}"), name)
