"""The aiohttp application: its routes, and the store, lobby, hub and clocks it runs.

The shell around the synchronous core lives in :mod:`server.shell`: the
WebSocket handler and its sessions, the HTTP handlers, the hub (sign-in, the
path from a command to storage and the wire, bots, restarts), the delivery of
addressed messages, and the runtime (event loop, garbage collector, serving).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator

from aiohttp import WSCloseCode, web

from server import identity
from server.analysis import Analyst
from server.bots import bot_factory, bot_levels
from server.config import LobbyConfig, ServerConfig, store_of
from server.config import check as check_config
from server.daily.desk import Calendar
from server.daily.desk import wall as wall_calendar
from server.heavy_reads import HeavyReads
from server.lobby import Lobby
from server.shell import clock, daily_keeper
from server.shell.analysis_http import ANALYST
from server.shell.analysis_http import routes as analysis_routes
from server.shell.cluster.node import ClusterNode, new_node_id
from server.shell.http import (
    analysis_asker,
    api_headers,
    daily,
    healthz,
    http_quota,
    leaderboard,
    match_history,
    player_history,
    player_ratings,
    public_rooms,
    series_history,
)
from server.shell.hub import Hub
from server.shell.keys import CONFIG, DAILY_CALENDAR, HEAVY_READS, HUB, STORAGE
from server.shell.origins import local_port, socket_sources
from server.shell.tasks import halt
from server.shell.tournaments_http import routes as tournament_routes
from server.shell.web import routes as web_routes
from server.shell.websocket import websocket
from server.storage import Storage
from server.store import Store

log = logging.getLogger(__name__)


def create_app(
    config: ServerConfig | None = None, *, daily_calendar: Calendar | None = None
) -> web.Application:
    """The application. ``daily_calendar`` maps the server's clock to the daily deal's
    (server.daily.desk): the wall clock unless a test, building the app in its own
    process, gives one; no setting, message or request can change it."""
    config = config or ServerConfig()
    check_config(config)  # ValueError (ConfigError): a setting out of range
    app = web.Application(middlewares=[http_quota])
    app[CONFIG] = config
    app[DAILY_CALENDAR] = daily_calendar or wall_calendar
    app.router.add_get("/ws", websocket)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/api/rooms", public_rooms)
    app.router.add_get("/api/matches/{match_id}", match_history)
    app.router.add_get("/api/players/{name}/matches", player_history)
    app.router.add_get("/api/players/{name}/ratings", player_ratings)
    app.router.add_get("/api/series/{series_id}", series_history)
    app.router.add_get("/api/leaderboard/{pace}", leaderboard)
    app.router.add_routes(tournament_routes(HUB, STORAGE, HEAVY_READS))
    app.router.add_routes(analysis_routes(STORAGE, analysis_asker))
    app.router.add_get("/api/daily", daily)
    app.router.add_get("/api/daily/{day}", daily)
    app.router.add_routes(web_routes(sockets=functools.partial(_page_sockets, config)))
    app.on_response_prepare.append(api_headers)
    app.cleanup_ctx.append(_storage_and_lobby)
    app.cleanup_ctx.append(_heavy_reads)
    app.cleanup_ctx.append(_clock)
    app.cleanup_ctx.append(_pruner)
    app.cleanup_ctx.append(_daily_keeper)
    app.on_shutdown.append(_close_sockets)
    return app


def _page_sockets(config: ServerConfig, request: web.Request) -> tuple[str, ...]:
    """Where the web client's page may open its WebSocket: the configured addresses."""
    return socket_sources(config, local_port(request.transport, config.port))


async def _storage_and_lobby(app: web.Application) -> AsyncIterator[None]:
    config = app[CONFIG]
    storage = await Storage.open(store_of(config), opened_ms=clock.now_ms())
    try:
        admins = await identity.resolve_admins(storage.find_player, config.tournament_admins)
    except identity.AdminNotFound:
        await storage.close()
        raise
    lobby = Lobby(
        LobbyConfig(
            grace_ms=config.grace_ms,
            finished_ttl_ms=config.finished_ttl_ms,
            max_waiting_rooms_per_player=config.max_waiting_rooms_per_player,
            max_open_rooms_per_player=config.max_open_rooms_per_player,
            between_deals_ms=config.between_deals_ms,
            challenge_ttl_ms=config.challenge_ttl_ms,
            between_rounds_ms=config.between_rounds_ms,
            admins=admins,
            max_waiting_rooms_per_address=config.max_waiting_rooms_per_address,
            max_open_rooms_per_address=config.max_open_rooms_per_address,
            max_tournaments_per_address=config.max_tournaments_per_address,
            max_waiting_rooms=config.max_waiting_rooms,
            max_registering_tournaments=config.max_registering_tournaments,
            waiting_room_ttl_ms=config.waiting_room_ttl_ms,
            registration_ttl_ms=config.registration_ttl_ms,
        ),
        bots=bot_factory,
        think_elsewhere=True,
        levels=bot_levels(),
        daily_calendar=app[DAILY_CALENDAR],
    )
    lobby.ratings.load(await storage.ratings())
    lobby.shadowed = await storage.shadowed_players()
    app[STORAGE] = storage
    node = None
    if config.redis_url:
        node = ClusterNode(config.redis_url, config.node_id or new_node_id(), storage, lobby)
        hub = Hub(config, storage, lobby, delivery=node.delivery, cluster=node)
    else:
        hub = Hub(config, storage, lobby)
    app[HUB] = hub
    app[ANALYST] = Analyst()
    await daily_keeper.load(storage, lobby.daily, clock.now_ms())
    await daily_keeper.draw_ahead(storage, lobby.daily, clock.now_ms())
    if node is None:
        await hub.resume_series()
        await hub.apply(lambda: lobby.daily_resumed(clock.now_ms()))
    else:
        try:
            await node.start(hub)  # the daily desk resumed if this node coordinates
        except BaseException:
            await hub.stop_thinking()
            await storage.close()
            raise
    yield
    if node is not None:
        await node.stop()  # its rooms handed over to the other nodes
    await app[ANALYST].close()
    await hub.stop_thinking()
    await storage.close()


async def _heavy_reads(app: web.Application) -> AsyncIterator[None]:
    reads = HeavyReads(store_of(app[CONFIG]))
    await reads.start()
    app[HEAVY_READS] = reads
    yield
    await reads.close()


async def _clock(app: web.Application) -> AsyncIterator[None]:
    task = asyncio.create_task(app[HUB].tick_forever(), name="clock")
    yield
    await halt(task)


async def prune_forever(storage: Store, config: ServerConfig) -> None:
    """At start and every ``prune_every_s``: forget what nobody will read
    (server.storage.pruning)."""
    while True:
        try:
            deleted = await storage.prune(clock.now_ms() - config.prune_after_ms)
            if any(deleted.values()):
                log.info("forgot %d rooms never played and %d tournaments never started",
                         deleted["rooms"], deleted["tournaments"])  # fmt: skip
        except Exception:
            log.exception("pruning the database failed")
        await asyncio.sleep(config.prune_every_s)


async def _pruner(app: web.Application) -> AsyncIterator[None]:
    config = app[CONFIG]
    task = None
    if config.prune_after_ms:
        task = asyncio.create_task(prune_forever(app[STORAGE], config), name="pruner")
    yield
    await halt(task)


async def _daily_keeper(app: web.Application) -> AsyncIterator[None]:
    """The daily deal's secrets drawn ahead as the days go by (server.shell.daily_keeper)."""
    hub = app[HUB]
    task = asyncio.create_task(
        daily_keeper.keep_forever(hub.storage, hub.lobby.daily), name="daily-keeper"
    )
    yield
    await halt(task)


async def _close_sockets(app: web.Application) -> None:
    for session in list(app[HUB].sessions):
        await session.ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutdown")
