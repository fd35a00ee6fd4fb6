"""The server writes its text frames itself: byte for byte what aiohttp would write."""

from __future__ import annotations

from unittest.mock import Mock

import pytest
from aiohttp import WSMsgType
from aiohttp.http_websocket import WebSocketWriter

from server.shell.aiohttp_adapters import text_frame


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


class Transport(Recorder):
    def __init__(self) -> None:
        super().__init__()
        self.unsent = 0
        self.writes = 0

    def write(self, data: bytes) -> None:
        super().write(data)
        self.writes += 1

    def get_write_buffer_size(self) -> int:
        return self.unsent


async def test_a_session_writes_its_pending_frames_at_once_and_drops_a_client_too_slow() -> None:
    import asyncio
    from unittest.mock import AsyncMock

    from server.limits import TokenBucket
    from server.shell.session import Session

    ws = Mock(closed=False, close=AsyncMock())
    transport = Transport()
    flushes: list[Session] = []
    session = Session(ws, TokenBucket(1, 1), 1_000, transport=transport, on_pending=flushes.append)  # type: ignore[arg-type]
    session.send('{"type":"placed"}')
    session.send('{"type":"progress"}')
    assert flushes == [session]  # one flush asked for, however many messages
    session.flush()
    assert transport.writes == 1
    assert transport.data == text_frame('{"type":"placed"}') + text_frame('{"type":"progress"}')
    transport.unsent = 1_001  # the client stopped reading
    session.send("{}")
    session.flush()
    await asyncio.sleep(0)
    assert transport.writes == 1 and session.closing
    ws.close.assert_awaited_once()
    session.send("{}")
    assert session.pending == []


async def test_in_protocol_2_a_session_writes_its_pending_messages_as_one_array_frame() -> None:
    from unittest.mock import AsyncMock

    from server.limits import TokenBucket
    from server.shell.session import Session

    ws = Mock(closed=False, close=AsyncMock())
    transport = Transport()
    session = Session(ws, TokenBucket(1, 1), 1_000, transport=transport, protocol=2)  # type: ignore[arg-type]
    session.send('{"type":"placed"}')
    session.send('{"type":"card"}')
    session.send('{"type":"progress"}')
    session.flush()
    assert transport.data == text_frame('[{"type":"placed"},{"type":"card"},{"type":"progress"}]')
    session.send('{"type":"pong"}')  # alone, a message is its own frame, as in protocol 1
    session.flush()
    assert transport.writes == 2
    assert transport.data.endswith(text_frame('{"type":"pong"}'))


async def test_in_protocol_2_the_frames_aiohttp_writes_are_batched_too() -> None:
    import asyncio
    from unittest.mock import AsyncMock

    from server.limits import TokenBucket
    from server.shell.session import Session

    sent: list[str] = []
    ws = Mock(closed=False, close=AsyncMock(), send_str=AsyncMock(side_effect=sent.append))
    for protocol, expected in ((1, ['{"a":1}', '{"b":2}']), (2, ['[{"a":1},{"b":2}]'])):
        sent.clear()
        session = Session(ws, TokenBucket(1, 1), 1_000, protocol=protocol)  # type: ignore[arg-type]
        session.send('{"a":1}')
        session.send('{"b":2}')
        session.flush()
        await asyncio.sleep(0)
        assert sent == expected
        await session.stop()
