"""The aiohttp application's typed keys: its settings, its store and its hub."""

from __future__ import annotations

from aiohttp import web

from server.config import ServerConfig
from server.shell.hub import Hub
from server.storage import Storage

CONFIG = web.AppKey("config", ServerConfig)


STORAGE = web.AppKey("storage", Storage)


HUB = web.AppKey("hub", Hub)
