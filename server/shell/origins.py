"""Which pages may open the WebSocket, and which address a connection counts against."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from server.config import ServerConfig

Origin = tuple[str, str, int]  # scheme, host, port: what browsers compare


def parse_origin(url: str) -> Origin | None:
    """``url``'s origin (``ws``/``wss`` read as ``http``/``https``); None if it has none."""
    try:
        parts = urlsplit(url.strip())
        scheme = {"ws": "http", "wss": "https"}.get(parts.scheme.lower(), parts.scheme.lower())
        port = parts.port
    except ValueError:
        return None
    if scheme not in ("http", "https") or not parts.hostname:
        return None
    return (scheme, parts.hostname.lower(), port or (443 if scheme == "https" else 80))


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _served_at(config: ServerConfig, port: int, urls: tuple[str, ...]) -> set[Origin]:
    """The origins of the address the server listens on (every loopback name when that
    is loopback or every interface) and of ``urls``."""
    host = config.host.strip("[]").lower()
    hosts = {host}
    if host in LOOPBACK or host.startswith("127.") or host in ("", "0.0.0.0", "::"):
        hosts = (hosts | set(LOOPBACK)) - {"", "0.0.0.0", "::"}
    found = {("http", h, port) for h in hosts}
    for url in urls:
        origin = parse_origin(url)
        if origin is not None:
            found.add(origin)
    return found


def own_origins(config: ServerConfig, port: int) -> frozenset[Origin]:
    """The origins of pages the server trusts: from the address it listens on, from
    each public URL and each allowed origin. Never from anything a request says."""
    return frozenset(_served_at(config, port, (*config.public_urls, *config.allowed_origins)))


def socket_sources(config: ServerConfig, port: int) -> tuple[str, ...]:
    """Where the server's own page may open its WebSocket (the ``connect-src`` of its
    Content-Security-Policy): ``ws://`` or ``wss://`` at the address the server
    listens on and at each public URL, in a stable order. Never from the request's
    ``Host``, which is the client's to write. An IPv6 address is left out: a
    policy's grammar has none (browsers ignore the source, and say so), and the
    policy's ``'self'`` covers a page served from one."""
    sources = []
    for scheme, host, port_of in sorted(_served_at(config, port, config.public_urls)):
        if ":" in host:
            continue
        secure = scheme == "https"
        default = 443 if secure else 80
        at = host if port_of == default else f"{host}:{port_of}"
        sources.append(f"{'wss' if secure else 'ws'}://{at}")
    return tuple(sources)


def local_port(transport: Any, default: int) -> int:
    """The port a connection reached the server on (its socket's, not a header's)."""
    sockname = transport.get_extra_info("sockname") if transport is not None else None
    if isinstance(sockname, tuple) and len(sockname) >= 2:
        return int(sockname[1])
    return default


def origin_allowed(origin: str | None, trusted: frozenset[Origin]) -> bool:
    """May a page from ``origin`` open the WebSocket?

    Browsers send ``Origin`` with every WebSocket upgrade; other clients send
    none and are welcome. A page from one of the server's own origins
    (:func:`own_origins`) is allowed; every other page is refused, so that a
    foreign site cannot act as its visitor's player. The request's ``Host`` is
    not consulted: a page on a name that an attacker points at the server (DNS
    rebinding) sends a matching ``Host``.
    """
    if origin is None:
        return True
    parsed = parse_origin(origin)
    return parsed is not None and parsed in trusted


def client_address(remote: str | None, headers: Mapping[str, str], trusted: tuple[str, ...]) -> str:
    """The address a connection is counted against.

    The peer's address, unless the peer is a trusted reverse proxy: then the
    last address in ``X-Forwarded-For``, the one that proxy appended (earlier
    entries were written by the client and prove nothing).
    """
    address = remote or "?"
    if address in trusted:
        forwarded = headers.get("X-Forwarded-For", "")
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if hops:
            return hops[-1]
    return address
