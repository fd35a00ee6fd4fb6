"""A hostile server on loopback: it speaks the protocol well enough to be played
against, and puts escape sequences, control characters and Textual markup in
every name, room name and reason it sends. The clients must show them visibly
escaped and literally, never obey them (docs/client.md, "Text from elsewhere").
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from aiohttp import WSMsgType, web

from engine.deal import deal
from engine.grid import cell_name
from engine.scoring import score_board

# What a hostile peer would put in a name: retitle the window, clear the screen,
# ring the bell, turn the text around, and Textual / Rich markup.
EVIL = "\x1b]0;pwned\x07\x1b[2J[bold red]boom[/bold red]\u202e"
# The escapes the clients show instead, in order (the markup stays as typed).
SHOWN = "\\x1b]0;pwned\\x07\\x1b[2J[bold red]boom[/bold red]\\u202e"
RAW = ("\x1b", "\x07", "\u202e")  # what must never reach a terminal


def player(name: str = EVIL, pid: str = "p-evil") -> dict[str, Any]:
    return {"id": pid, "name": name, "bot": False, "guest": False}


ME = {"id": "p-me", "name": "me", "bot": False, "guest": False}


def room_summary() -> dict[str, Any]:
    return {
        "id": "Xk3r9TqZ", "name": EVIL, "visibility": "public", "pace": "lockstep",
        "seats": 2, "taken": 1, "status": "waiting", "card_clock_ms": 30000,
        "deal_clock_ms": 300000, "creator": player(),
    }  # fmt: skip


def challenge(state: str = "offered") -> dict[str, Any]:
    return {
        "type": "challenge_state", "state": state, "room_id": None,
        "challenge": {
            "id": "hV2mQ0sP", "challenger": player(), "opponent": ME, "pace": "lockstep",
            "deals": 1, "card_clock_ms": 30000, "deal_clock_ms": 300000, "rated": False,
            "expires_ms": 60000,
        },
    }  # fmt: skip


def reply(request: dict[str, Any]) -> list[dict[str, Any]]:
    """What the hostile server answers to one request."""
    ref = request.get("ref")
    kind = request.get("type")
    if kind == "hello":
        welcome = {"type": "welcome", "server": EVIL, "player": ME, "token": "t", "ref": ref}
        return [welcome, challenge()]
    if kind == "list_rooms":
        return [{"type": "rooms", "rooms": [room_summary()], "ref": ref}]
    if kind == "ping":
        return [{"type": "pong", "ref": ref}]
    return [{"type": "error", "code": "nope", "reason": f"refused by {EVIL}", "ref": ref}]


async def _ws(request: web.Request) -> web.WebSocketResponse:
    ws = web.WebSocketResponse()
    await ws.prepare(request)
    async for frame in ws:
        if frame.type != WSMsgType.TEXT:
            break
        for message in reply(json.loads(frame.data)):
            await ws.send_str(json.dumps(message))
    return ws


async def _history(request: web.Request) -> web.Response:
    match = {
        "match_id": "m-evil", "started_ms": 1, "finished_ms": 2, "status": "finished",
        "room": {"id": "Xk3r9TqZ", "name": EVIL}, "players": [player()], "rank": 1, "score": 12,
    }  # fmt: skip
    return web.json_response({"player": ME, "matches": [match]})


def finished_match() -> dict[str, Any]:
    """A finished deal of one board, placed row by row, whose ranking note and player
    name carry the hostile text (``GET /api/matches/{id}``)."""
    dealt = deal("hostile")
    cells = [str(c) for c in dealt.cards]
    placements = [
        {"turn": t + 1, "cell": cell_name(t), "card": cells[t], "elapsed_ms": 5, "auto": False}
        for t in range(16)
    ]
    score = score_board(list(dealt.cards), dealt.starter)
    board = {
        "seat": 0, "player": player(), "contribution": "c", "rank": 1, "score": score.total,
        "time_used_ms": 80, "cells": cells, "placements": placements, "detail": score.to_dict(),
    }  # fmt: skip
    note = {"player_id": "p-evil", "reason": "left", "text": f"{EVIL} resigned: ranked last"}
    return {
        "match_id": "m-evil", "room": {"id": "Xk3r9TqZ", "name": EVIL}, "series_id": "m-evil",
        "deal": 1, "pace": "lockstep", "status": "finished", "card_clock_ms": 30000,
        "deal_clock_ms": 300000, "started_ms": 1, "finished_ms": 2, "seed_commitment": "x",
        "server_commitment": "y", "contributions": ["c"], "starter": str(dealt.starter),
        "seed": "s", "server_secret": "t", "boards": [board], "embargoed": False,
        "ranking": [note],
    }  # fmt: skip


async def _match(request: web.Request) -> web.Response:
    return web.json_response(finished_match())


@asynccontextmanager
async def hostile_server() -> AsyncIterator[str]:
    """Serve on a free loopback port; yield its WebSocket URL."""
    app = web.Application()
    app.router.add_get("/ws", _ws)
    app.router.add_get("/api/players/{player}/matches", _history)
    app.router.add_get("/api/matches/{match}", _match)
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    try:
        yield f"ws://127.0.0.1:{runner.addresses[0][1]}/ws"
    finally:
        await runner.cleanup()
