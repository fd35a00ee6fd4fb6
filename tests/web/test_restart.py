"""The server is killed mid-match and started again: the browser shows the
banner, reconnects by itself with its token and resumes exactly where it was
(the same board, the same card), and the match plays to a verified end."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from tests.server.live import Client, server_process
from tests.web.conftest import custom_game, free_port, place_one, player, shot, store, wait_store


async def test_the_browser_resumes_after_the_server_restarts(
    browser, tmp_path: Path, page_errors
) -> None:
    db = tmp_path / "db.sqlite"
    port = free_port()
    with server_process(db, port) as (first, live):
        http = live.http
        ada = await player(browser, http, "ada", page_errors)
        bo = await Client.connect(live)
        await bo.hello("bo")
        await custom_game(ada)
        await ada.get_by_role("button", name="Create the room").click()
        await ada.wait_for_selector("text=Waiting for players")
        room_id = await store(ada, "s.room.id")
        await bo.send(type="join_room", room_id=room_id, contribution="bo")
        await bo.until("room_state")
        await bo.send(type="ready", room_id=room_id)
        await ada.get_by_role("button", name="Ready").click()
        for turn in range(1, 6):
            card = await bo.until("card")
            await bo.send(type="place", room_id=room_id, turn=turn, cell=card["legal"][0])
            await place_one(ada, turn)
        await ada.wait_for_selector("#to-place-h:text-is('Card 6 of 16')")
        before = await store(
            ada, "JSON.stringify({cells: s.match.cells, card: s.match.card, turn: s.match.turn})"
        )
        first.send_signal(signal.SIGKILL)
        first.wait()
    await ada.wait_for_selector("#banner:has-text('Connection lost')", timeout=10_000)
    await shot(ada, "desktop-connection-lost", full_page=False)
    token = bo.token
    await bo.close()
    with server_process(db, port):
        # The page reconnects on its own (backoff at most 10 s) and gets its room back.
        await ada.wait_for_selector("#banner", state="hidden", timeout=20_000)
        await wait_store(ada, "s.match && s.match.turn === 6")
        after = await store(
            ada, "JSON.stringify({cells: s.match.cells, card: s.match.card, turn: s.match.turn})"
        )
        assert after == before
        bo = await Client.connect(live)
        await bo.send(type="hello", protocol=1, token=token)
        await bo.until("welcome")
        resumed = await bo.until("room_state")
        assert resumed["you"]["turn"] == 6
        await bo.send(type="place", room_id=room_id, turn=6, cell=resumed["you"]["legal"][0])
        await asyncio.gather(bo.play_to_end(room_id), finish(ada))
        await ada.wait_for_selector(".verify.ok", timeout=20_000)
        assert await store(ada, "s.match.verification.ok") is True
        await bo.close()
    assert page_errors.errors == []


async def finish(page) -> None:
    for turn in range(6, 17):
        await place_one(page, turn)
