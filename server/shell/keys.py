"""The aiohttp application's typed keys: its settings, its store, its hub, the
daily deal's calendar and the builder of big answers."""

from __future__ import annotations

from aiohttp import web

from server.config import ServerConfig
from server.daily.desk import Calendar
from server.heavy_reads import HeavyReads
from server.shell.hub import Hub
from server.store import Store

CONFIG = web.AppKey("config", ServerConfig)
STORAGE: web.AppKey[Store] = web.AppKey("storage")
HUB = web.AppKey("hub", Hub)
DAILY_CALENDAR: web.AppKey[Calendar] = web.AppKey("daily_calendar")
HEAVY_READS = web.AppKey("heavy_reads", HeavyReads)
