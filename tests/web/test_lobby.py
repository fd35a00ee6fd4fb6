"""The lobby's ways into a match: quick play with a bot after a wait, and a
challenge sent from one browser and accepted in another, with its countdown."""

from __future__ import annotations

from pathlib import Path

from tests.server.live import running_server
from tests.web.conftest import custom_game, place_one, player, shot, store, wait_store


async def test_quick_play_waits_then_plays_a_bot(browser, tmp_path: Path, page_errors) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        page = await player(browser, live.http, "quincy", page_errors)
        await custom_game(page)
        await page.fill("#qp-bot", "3")
        await page.get_by_role("button", name="Find an opponent").click()
        waiting = page.locator(".waiting")
        await waiting.wait_for()
        text = await waiting.inner_text()
        assert "Looking for 1400–1600" in text or "Looking for 1375–1625" in text
        assert "A bot takes the seat after 3 s" in text
        await page.wait_for_selector("text=Looking for 1350–1650")  # wider after 2 s
        await shot(page, "desktop-quickplay-waiting")
        await page.wait_for_selector(".room-head", timeout=15_000)  # matched: taken to the table
        assert await store(page, "s.room.origin") == "quickplay"
        assert await store(page, "s.room.players.some((p) => p.player.bot)") is True
        for turn in range(1, 17):
            await place_one(page, turn, "type" if turn % 2 else "keys")
        await page.wait_for_selector(".verify.ok", timeout=20_000)
        checks = await store(page, "s.match.verification.checks.map((c) => c.label)")
        assert "my contribution was used, at my seat" in checks
    assert page_errors.errors == []


async def test_a_challenge_from_one_browser_to_another(
    browser, tmp_path: Path, page_errors
) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        ada = await player(browser, live.http, "ada", page_errors)
        bo = await player(browser, live.http, "bo", page_errors)
        await ada.get_by_role("button", name="Refresh").last.click()  # who is online
        await ada.get_by_role("button", name="Challenge bo").click()
        await ada.wait_for_function("() => document.getElementById('ch-name')?.value === 'bo'")
        await ada.select_option("#ch-deals", "3")
        await ada.get_by_role("button", name="Send the challenge").click()
        await ada.wait_for_selector("text=You challenged bo")
        offer = bo.locator(".challenge")
        await offer.wait_for()
        assert "ada challenges you (lockstep, best of 3, rated)" in await offer.inner_text()
        first = await offer.locator(".clock").inner_text()
        await bo.wait_for_timeout(1300)
        assert await offer.locator(".clock").inner_text() != first  # counting down
        await shot(bo, "desktop-challenge")
        await bo.get_by_role("button", name="Accept").click()
        for page in (ada, bo):
            await page.wait_for_selector(".room-head", timeout=10_000)
            await wait_store(page, "s.match && s.match.best_of === 3")
        assert "Deal 1 of 3" in await ada.inner_text(".room-head")
    assert page_errors.errors == []
