"""Between a page and the real server: Playwright's ``route_web_socket`` passes
every frame on, records it, and lets a test hold a frame of the page's or put a
message of its own in front of the page, as a server of several nodes would."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

if TYPE_CHECKING:  # the tests that use it are skipped where playwright is missing
    from playwright.async_api import Browser, BrowserContext, Page, WebSocketRoute

    from tests.web.conftest import PageErrors


@dataclass
class Socket:
    """One WebSocket the page opened, as the test saw it."""

    url: str
    page: WebSocketRoute
    server: WebSocketRoute
    sent: list[dict[str, Any]] = field(default_factory=list)  # by the page, in order
    heard: list[tuple[float, dict[str, Any]]] = field(default_factory=list)  # from the server
    sent_at: list[float] = field(default_factory=list)
    closed: tuple[int | None, str | None] | None = None  # how the page closed it

    @property
    def query(self) -> dict[str, list[str]]:
        return parse_qs(urlsplit(self.url).query)

    def tell(self, message: dict[str, Any]) -> None:
        """A message to the page, as if the server had sent it."""
        self.page.send(json.dumps(message))


class Wire:
    """Every WebSocket of a browser context, passed on to the server and recorded."""

    def __init__(self) -> None:
        self.sockets: list[Socket] = []
        self.hold: Callable[[dict[str, Any]], bool] = lambda frame: False
        self.held: list[tuple[Socket, str]] = []

    async def attach(self, context: BrowserContext) -> None:
        await context.route_web_socket(lambda url: urlsplit(url).path == "/ws", self._route)

    async def open(
        self, browser: Browser, url: str, errors: PageErrors, viewport: dict[str, int]
    ) -> Page:
        """A page at ``url`` in a context of its own whose sockets go through this wire."""
        context = await browser.new_context(viewport=viewport)
        await self.attach(context)
        page = await context.new_page()
        errors.watch(page)
        await page.goto(url)
        return page

    def _route(self, page: WebSocketRoute) -> None:
        server = page.connect_to_server()
        socket = Socket(page.url, page, server)
        self.sockets.append(socket)

        def from_page(message: str | bytes) -> None:
            frame = json.loads(message)
            socket.sent.append(frame)
            socket.sent_at.append(time.monotonic())
            if self.hold(frame):
                self.held.append((socket, str(message)))
            else:
                server.send(message)

        def from_server(message: str | bytes) -> None:
            at = time.monotonic()
            parsed = json.loads(message)
            for one in parsed if isinstance(parsed, list) else [parsed]:
                socket.heard.append((at, one))
            page.send(message)

        async def page_closed(code: int | None, reason: str | None) -> None:
            socket.closed = (code, reason)
            await server.close(code=code, reason=reason)

        page.on_message(from_page)
        server.on_message(from_server)
        page.on_close(page_closed)

    def release(self) -> None:
        """Send the held frames on, in order."""
        held, self.held = self.held, []
        self.hold = lambda frame: False
        for socket, message in held:
            socket.server.send(message)

    def frames(self, kind: str) -> list[dict[str, Any]]:
        """Every frame of type ``kind`` the page sent, on any socket, in order."""
        return [f for s in self.sockets for f in s.sent if f.get("type") == kind]

    def messages(self, kind: str) -> list[dict[str, Any]]:
        """Every message of type ``kind`` the server sent, on any socket."""
        return [m for s in self.sockets for _, m in s.heard if m.get("type") == kind]

    async def wait(self, condition: Callable[[], bool], what: str, timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {timeout:g} s for {what}")
            await asyncio.sleep(0.02)
