"""Two people play in their browsers: a private lockstep room joined by its
invite link, the whole deal placed by mouse, keyboard, typing and dragging,
and both pages show the result with the deal verified by the browser."""

from __future__ import annotations

from pathlib import Path

from tests.server.live import running_server
from tests.web.conftest import new_room, place_one, player, shot, store, wait_store


async def test_two_browsers_play_a_lockstep_match_and_both_verify_the_deal(
    browser, tmp_path: Path, page_errors
) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        ada = await player(browser, live.http, "ada", page_errors)
        await new_room(ada, "Friday duel", private="yes")
        link = await ada.input_value("#room-link")
        assert "/#/join/" in link
        # bo follows the link the host sent: signs in, and lands in the room.
        bo = await player(browser, live.http, "bo", page_errors, path="/" + link.split("/", 3)[3])
        await bo.wait_for_selector("text=Waiting for players")
        for page in (ada, bo):
            await page.get_by_role("button", name="Ready").click()
        # a screen reader hears the card to place
        await ada.wait_for_function(
            "() => document.getElementById('live').textContent.startsWith('Card 1 of 16: ')"
        )
        ways = ["click", "keys", "type", "drag"]
        for turn in range(1, 17):
            await place_one(ada, turn, ways[turn % 4])
            if turn == 7:
                await shot(ada, "desktop-play-waiting")
            await place_one(bo, turn, ways[(turn + 1) % 4])
            if turn == 9:
                await bo.wait_for_selector("#to-place-h:text-is('Card 10 of 16')")
                await shot(bo, "desktop-play")
        for page in (ada, bo):
            await page.wait_for_selector(
                ".verify.ok .verdict:text-is('✔ deal verified')", timeout=20_000
            )
            assert await page.locator(".result-board").count() == 2
            # every row and column itemized (each board's fold-out opened by a click),
            # and the ranks shown
            for summary in await page.locator("summary", has_text="Itemized score").all():
                await summary.click()
            await page.wait_for_selector("details.itemized[open] >> nth=1")
            assert await page.locator(".result-board .hand").count() == 16
            assert await page.locator("text=equal totals share a rank").count() == 1
        await ada.wait_for_function(
            "() => document.getElementById('live').textContent.endsWith('Deal verified.')"
        )
        await shot(ada, "desktop-results")
        checks = await store(ada, "s.match.verification.checks.map((c) => c.label)")
        assert "the server's secret matches the commitment shown before the first card" in checks
        assert "my contribution was used, at my seat" in checks
        assert "the 16 cards I received are the deal's" in checks
        assert await store(bo, "s.match.verification.ok") is True
        # the deal the browser dealt itself is the one the server's result shows
        result = await store(ada, "s.match.result")
        assert {p["card"] for b in result["boards"] for p in b["placements"]} == set(
            await store(ada, "Object.values(s.match.received)")
        )
        await wait_store(ada, "s.room.status === 'finished'")
    assert page_errors.errors == []
