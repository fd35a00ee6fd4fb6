"""The server writes its text frames itself: byte for byte what aiohttp would write."""

from __future__ import annotations

from unittest.mock import Mock

import pytest
from aiohttp import WSMsgType
from aiohttp.http_websocket import WebSocketWriter

from server.app import text_frame


class Recorder:
    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += bytes(data)

    def is_closing(self) -> bool:
        return False


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65_535, 65_536, 70_000])
async def test_text_frame_matches_aiohttp(size: int) -> None:
    text = ("é" + "x" * size)[:size] if size else ""
    transport = Recorder()
    writer = WebSocketWriter(Mock(), transport, use_mask=False)  # type: ignore[arg-type]
    await writer.send_frame(text.encode("utf-8"), WSMsgType.TEXT)
    assert text_frame(text) == transport.data
