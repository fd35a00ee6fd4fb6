"""A browser against a protocol client in a race; a browser watching a room
it has no seat in."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.server.live import Client, running_server, signed_in
from tests.web.conftest import new_room, place_one, player, shot, store, wait_store


async def test_a_browser_and_a_protocol_client_play_a_race(
    browser, tmp_path: Path, page_errors
) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        ada = await player(browser, live.http, "ada", page_errors)
        await new_room(ada, "Race me", pace="race", deal="120")
        room_id = await store(ada, "s.room.id")
        bo = await signed_in(live, "bo")
        await bo.send(type="list_rooms")
        listed = await bo.until("rooms")
        assert [r["name"] for r in listed["rooms"]] == ["Race me"]
        await bo.send(type="join_room", room_id=room_id, contribution="bo's share")
        await bo.until("room_state")
        await bo.send(type="ready", room_id=room_id)
        await ada.get_by_role("button", name="Ready").click()
        await bo.until("match_started")
        # bo races through its board while ada plays card by card.
        bo_result = None
        for turn in range(1, 17):
            await place_one(ada, turn, "click" if turn % 2 else "type")
            if turn == 4:
                await wait_store(
                    ada, "s.match.progress && Object.values(s.match.progress.placed).includes(16)"
                )
                assert "16/16" in await ada.inner_text(".progress")
                assert await ada.locator(".clock-line:has-text('Deal clock')").count() == 1
            if turn == 1:
                bo_result = asyncio.create_task(bo.play_to_end(room_id))
        assert bo_result is not None
        result = await bo_result
        await ada.wait_for_selector(".verify.ok", timeout=20_000)
        await shot(ada, "desktop-results-race")
        text = await ada.inner_text(".results")
        assert "then by less time used" in text
        assert "s used" in text  # the time each board took
        assert await store(ada, "s.match.verification.ok") is True
        assert await store(ada, "s.match.result.seed") == result["seed"]
        await bo.close()
    assert page_errors.errors == []


async def test_a_browser_watches_a_public_room(browser, tmp_path: Path, page_errors) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        ada = await signed_in(live, "ada")
        bo = await signed_in(live, "bo")
        await ada.send(type="create_room", name="Show match", seats=2, contribution="a")
        room_id = (await ada.until("room_state"))["room"]["id"]
        await bo.send(type="join_room", room_id=room_id, contribution="b")
        await bo.until("room_state")
        cy = await player(browser, live.http, "cy", page_errors)
        await cy.get_by_role("button", name="Watch Show match").click()
        await cy.wait_for_selector("text=you are watching")
        for c in (ada, bo):
            await c.send(type="ready", room_id=room_id)
        await cy.wait_for_selector("text=Watching")
        # a few cards in, the watcher sees counts and no board
        for _ in range(1, 4):
            for c in (ada, bo):
                card = await c.until("card")
                await c.send(
                    type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0]
                )
        await wait_store(
            cy, "s.match.progress && Object.values(s.match.progress.placed).every((n) => n >= 3)"
        )
        assert await cy.locator("button.cell").count() == 0
        assert "3/16" in await cy.inner_text(".progress")
        await shot(cy, "desktop-spectate")
        await asyncio.gather(ada.play_to_end(room_id), bo.play_to_end(room_id, pick=1))
        await cy.wait_for_selector(".verify.ok", timeout=20_000)
        assert await cy.locator(".result-board").count() == 2
        checks = await store(cy, "s.match.verification.checks.map((c) => c.label)")
        assert "my contribution was used, at my seat" not in checks  # a watcher has none
        assert "the seed comes from the server's secret and every contribution" in checks
        for c in (ada, bo):
            await c.close()
    assert page_errors.errors == []


async def test_list_online_pages_who_is_signed_in(tmp_path: Path) -> None:
    """list_online: who is signed in, by name, in pages (a protocol extension the lobby uses)."""
    async with running_server(tmp_path / "db.sqlite") as live:
        clients = [await signed_in(live, name) for name in ("Zed", "amy", "Bob")]
        guest = await Client.connect(live)
        await guest.hello(None, guest=True)
        await clients[0].send(type="list_online", limit=2, ref="o1")
        page = await clients[0].until("online")
        assert page["ref"] == "o1" and page["total"] == 4 and page["offset"] == 0
        assert [p["name"] for p in page["players"]] == ["amy", "Bob"]
        await clients[0].send(type="list_online", offset=2, limit=2)
        rest = await clients[0].until("online")
        assert [p["name"] for p in rest["players"]][1] == "Zed"
        assert rest["players"][0]["guest"] is True
        await clients[0].send(type="list_online", limit=0)
        await clients[0].error("bad_message")
        await clients[1].close()
        await clients[0].send(type="list_online")
        assert (await clients[0].until("online"))["total"] == 3
        for c in (clients[0], clients[2], guest):
            await c.close()
