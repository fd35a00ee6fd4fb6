"""The browser client: its static files at ``/`` and ``/assets/{version}/...``.

Every file under ``server/webclient/`` is read once, when the app is made, and
served from memory, so no request can name a path outside it. Assets are
served under a version made from their contents: their URLs change whenever a
file does, so they are cached for a year (``immutable``); the page itself
(``index.html``, where the version is written in) is never cached. Text files
are compressed once, at load (gzip, level 9), and sent so to a browser that
accepts it (``Content-Encoding: gzip``, ``Vary: Accept-Encoding``). The page
names every module the client imports (``modulepreload``), so a browser asks
for them all at once instead of one level of imports after another. Every
response carries a strict Content-Security-Policy: scripts, styles and images
from the server's own origin only, no inline script or style attribute, and
WebSocket connections to the server itself (the addresses it was configured
with or listens on, given by the caller: never the request's ``Host``, which
is the client's to write); the page cannot be framed.

This module only serves files: the client speaks the documented WebSocket
protocol and HTTP API like any other.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

ROOT = Path(__file__).resolve().parents[1] / "webclient"  # server/webclient
VERSION_MARK = "@VERSION@"
PRELOAD_MARK = "<!-- @PRELOAD@ -->"
ENTRY = "js/app.js"
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

# Worth compressing: text. (Images here are SVG, which is text too.)
COMPRESSED = {".js", ".css", ".html", ".svg", ".txt", ".json"}
_IMPORT = re.compile(r"""^\s*(?:import|export)\b[^"';]*?\bfrom\s*["'](\.{1,2}/[^"']+)["']""", re.M)

Sockets = Callable[[web.Request], Iterable[str]]  # the page's connect-src, besides 'self'


@dataclass(frozen=True, slots=True)
class Asset:
    body: bytes
    content_type: str
    etag: str
    gzipped: bytes | None = None  # the body compressed, when that is smaller


@dataclass(frozen=True, slots=True)
class WebClient:
    version: str
    page: bytes  # index.html with the version and the module preloads written in
    assets: dict[str, Asset]  # path relative to ROOT, with "/" separators
    page_gzipped: bytes | None = None


def _gzipped(name: str, body: bytes) -> bytes | None:
    if Path(name).suffix not in COMPRESSED:
        return None
    # mtime=0: the same file compresses to the same bytes on every start.
    packed = gzip.compress(body, compresslevel=9, mtime=0)
    return packed if len(packed) < len(body) else None


def imported_modules(files: dict[str, bytes], entry: str = ENTRY) -> list[str]:
    """Every module ``entry`` imports, directly or not, by its path (static imports only)."""
    found: list[str] = []
    todo = [entry]
    while todo:
        name = todo.pop()
        for spec in _IMPORT.findall(files.get(name, b"").decode("utf-8", "replace")):
            target = (Path("/" + name).parent / spec).resolve().as_posix().lstrip("/")
            if target in files and target not in found and target != entry:
                found.append(target)
                todo.append(target)
    return sorted(found)


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
    preloads = "".join(
        f'<link rel="modulepreload" href="/assets/{VERSION_MARK}/{name}">\n'
        for name in imported_modules(files)
    )
    page = (
        files.pop("index.html")
        .replace(PRELOAD_MARK.encode(), preloads.rstrip("\n").encode())
        .replace(VERSION_MARK.encode(), version.encode())
    )
    assets = {
        name: Asset(
            body,
            TYPES[Path(name).suffix],
            '"' + hashlib.sha256(body).hexdigest()[:16] + '"',
            _gzipped(name, body),
        )
        for name, body in files.items()
    }
    return WebClient(version, page, assets, _gzipped("index.html", page))


def accepts_gzip(header: str | None) -> bool:
    """Does an ``Accept-Encoding`` header take gzip (``gzip``, or ``*``, not at q=0)?"""
    for part in (header or "").split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip().lower() not in ("gzip", "*"):
            continue
        q = params.strip().lower()
        if q.startswith("q="):
            try:
                return float(q[2:]) > 0
            except ValueError:
                return False
        return True
    return False


def _encoded(
    request: web.Request, body: bytes, packed: bytes | None, headers: dict[str, str]
) -> bytes:
    """The body to send (compressed if the browser takes it), its headers completed."""
    if packed is None:
        return body
    headers["Vary"] = "Accept-Encoding"
    if not accepts_gzip(request.headers.get("Accept-Encoding")):
        return body
    headers["Content-Encoding"] = "gzip"
    return packed


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
        body = _encoded(request, web_client.page, web_client.page_gzipped, headers)
        return web.Response(body=body, content_type="text/html", charset="utf-8", headers=headers)

    async def asset(request: web.Request) -> web.Response:
        found = web_client.assets.get(request.match_info["path"])
        if found is None or request.match_info["version"] != web_client.version:
            raise web.HTTPNotFound(text="no such file\n", headers=headers_for(request))
        headers = headers_for(request)
        headers["Cache-Control"] = f"public, max-age={YEAR_S}, immutable"
        body = _encoded(request, found.body, found.gzipped, headers)
        # Each encoding is its own representation, with its own tag (RFC 9110, 8.8.3).
        etag = found.etag[:-1] + '-gzip"' if "Content-Encoding" in headers else found.etag
        headers["ETag"] = etag
        if etag in [t.strip() for t in (request.headers.get("If-None-Match") or "").split(",")]:
            headers.pop("Content-Encoding", None)
            return web.Response(status=304, headers=headers)
        headers["Content-Type"] = found.content_type
        return web.Response(body=body, headers=headers)

    return [
        web.get("/", page),
        web.get("/assets/{version}/{path:.+}", asset),
    ]
