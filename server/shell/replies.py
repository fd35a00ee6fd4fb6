"""What the HTTP API answers a request it refuses, and how it reads a bounded number
from a query: one shape for every route (docs/server.md, the HTTP API)."""

from __future__ import annotations

from aiohttp import web


def bad_request(reason: str) -> web.Response:
    """400, ``{"error": {"code": "bad_request", "reason": ...}}``."""
    return web.json_response({"error": {"code": "bad_request", "reason": reason}}, status=400)


def query_int(request: web.Request, name: str, default: int, most: int) -> int | None:
    """The query's ``name``, a whole number from 1 to ``most`` (``default`` if absent);
    None if it is anything else."""
    try:
        value = int(request.query.get(name, str(default)))
    except ValueError:
        return None
    return value if 1 <= value <= most else None
