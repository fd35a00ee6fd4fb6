"""The browser client: its static files at ``/`` and ``/assets/{version}/...``.

Every file under ``server/webclient/`` is read once, when the app is made, and
served from memory, so no request can name a path outside it. Assets are
served under a version made from their contents: their URLs change whenever a
file does, so they are cached for a year (``immutable``); the page itself
(``index.html``, where the version is written in) is never cached. Every
response carries a strict Content-Security-Policy: scripts, styles and images
from the server's own origin only, no inline script or style attribute, and
WebSocket connections to the server itself (the addresses it was configured
with or listens on, given by the caller: never the request's ``Host``, which
is the client's to write); the page cannot be framed.

This module only serves files: the client speaks the documented WebSocket
protocol and HTTP API like any other.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

ROOT = Path(__file__).resolve().parent / "webclient"
VERSION_MARK = "@VERSION@"
YEAR_S = 31_536_000

TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8",
    ".json": "application/json",
    ".png": "image/png",
    ".ico": "image/x-icon",
}

Sockets = Callable[[web.Request], Iterable[str]]  # the page's connect-src, besides 'self'


@dataclass(frozen=True, slots=True)
class Asset:
    body: bytes
    content_type: str
    etag: str


@dataclass(frozen=True, slots=True)
class WebClient:
    version: str
    page: bytes  # index.html with the version written in
    assets: dict[str, Asset]  # path relative to ROOT, with "/" separators


def load(root: Path = ROOT) -> WebClient:
    """Read the client's files and work out their version (a hash of every file)."""
    files = {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.suffix in TYPES and not p.name.startswith(".")
    }
    if "index.html" not in files:
        raise FileNotFoundError(f"the web client has no index.html in {root}")
    digest = hashlib.sha256()
    for name, body in files.items():
        digest.update(name.encode() + b"\0" + hashlib.sha256(body).digest())
    version = digest.hexdigest()[:12]
    page = files.pop("index.html").replace(VERSION_MARK.encode(), version.encode())
    assets = {
        name: Asset(
            body, TYPES[Path(name).suffix], '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        )
        for name, body in files.items()
    }
    return WebClient(version, page, assets)


def content_security_policy(sockets: Iterable[str] = ()) -> str:
    """The page's policy; ``sockets``: the ``ws://``/``wss://`` sources it may connect to."""
    extra = "".join(f" {source}" for source in sockets)
    return (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"font-src 'self'; connect-src 'self'{extra}; object-src 'none'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'; require-trusted-types-for 'script'"
    )


def security_headers(policy: str) -> dict[str, str]:
    return {
        "Content-Security-Policy": policy,
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
        "Referrer-Policy": "no-referrer",
        "Cross-Origin-Opener-Policy": "same-origin",
        "Cross-Origin-Resource-Policy": "same-origin",
        "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
    }


def routes(client: WebClient | None = None, sockets: Sockets = lambda _: ()) -> list[web.RouteDef]:
    """``GET /`` (the page) and ``GET /assets/{version}/{path}`` (its files);
    ``sockets`` says, for a request, where the page may open its WebSocket."""
    web_client = client or load()

    def headers_for(request: web.Request) -> dict[str, str]:
        return security_headers(content_security_policy(sockets(request)))

    async def page(request: web.Request) -> web.Response:
        headers = headers_for(request)
        headers["Cache-Control"] = "no-cache"
        return web.Response(body=web_client.page, content_type="text/html", charset="utf-8",
                            headers=headers)  # fmt: skip

    async def asset(request: web.Request) -> web.Response:
        found = web_client.assets.get(request.match_info["path"])
        if found is None or request.match_info["version"] != web_client.version:
            raise web.HTTPNotFound(text="no such file\n", headers=headers_for(request))
        headers = headers_for(request)
        headers["Cache-Control"] = f"public, max-age={YEAR_S}, immutable"
        headers["ETag"] = found.etag
        if request.headers.get("If-None-Match") == found.etag:
            return web.Response(status=304, headers=headers)
        headers["Content-Type"] = found.content_type
        return web.Response(body=found.body, headers=headers)

    return [
        web.get("/", page),
        web.get("/assets/{version}/{path:.+}", asset),
    ]
