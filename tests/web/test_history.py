"""A player's page (matches with opponents, the rating chart), a replay
stepped by keyboard with the stored deal checked and a board analysed, and
the leaderboard with the players around a name."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.server.live import duel, running_server, two_player_room
from tests.web.conftest import player, shot


async def test_history_replay_analysis_and_leaderboard(
    browser, tmp_path: Path, page_errors
) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        alice, bob, room_id = await two_player_room(live, rated=True)
        await asyncio.gather(alice.play_to_end(room_id), bob.play_to_end(room_id, pick=2))
        page = await player(browser, live.http, "cy", page_errors, path="/#/player/alice")
        await page.wait_for_selector("table.matches")
        row = await page.inner_text("table.matches tbody tr")
        assert "bob" in row and "of 2" in row  # the opponent, and alice's rank
        chart = page.locator("svg.chart")
        assert await chart.count() == 1
        assert await chart.locator("polyline").count() == 1  # one pace rated so far
        label = await chart.get_attribute("aria-label")
        assert label is not None and "lockstep" in label
        await page.get_by_role("link", name="Replay").first.click()
        await page.wait_for_selector(".replay-controls")
        await page.wait_for_selector(".verify.ok")  # the stored deal, checked again
        await page.keyboard.press("End")
        await page.wait_for_selector(".result-board .line-total", state="attached")
        await page.keyboard.press("Home")
        for _ in range(3):
            await page.keyboard.press("ArrowRight")
        await page.wait_for_selector("text=after card 3")
        assert await page.locator(".replay-boards .cell.filled").count() == 6  # 3 cards, 2 boards
        await page.select_option("#analyse-who", label="bob")
        await page.get_by_role("button", name="Analyse").click()
        await page.wait_for_selector(".analysis", timeout=60_000)
        assert await page.locator(".analysis table.moves tbody tr").count() == 16
        text = await page.inner_text(".analysis")
        assert "bob's board" in text and "Hindsight best" in text
        assert await page.locator(".review").count() == 1  # card 3 reviewed on the board
        await shot(page, "desktop-replay-analysis-test")
        await page.goto(live.http + "/#/leaderboard")
        await page.wait_for_selector("table.leaderboard")
        assert "alice" in await page.inner_text("table.leaderboard")
        await page.fill("#lb-around", "bob")
        await page.get_by_role("button", name="Show").click()
        await page.wait_for_selector("#lb-around-h:text-is('Around bob')")
        assert "bob" in await page.locator("table.leaderboard").nth(1).inner_text()
        for c in (alice, bob):
            await c.close()
    assert page_errors.errors == []


async def test_a_page_fetched_over_http_is_asked_again_on_every_visit(
    browser, tmp_path: Path, page_errors
) -> None:
    """A player's games and the tournaments listed by status are fetched over HTTP:
    each visit asks again, so a game played or a tournament hosted since shows
    without a reload (they kept their first answer until one)."""
    async with running_server(tmp_path / "db.sqlite") as live:
        alice, bob, room_id = await two_player_room(live)
        await asyncio.gather(alice.play_to_end(room_id), bob.play_to_end(room_id, pick=2))
        page = await player(browser, live.http, "cy", page_errors, path="/#/player/alice")
        await page.wait_for_selector("#matches-h:text-is('Matches (1, newest first)')")
        await page.goto(live.http + "/#/tournaments")
        await page.select_option("#t-status", "cancelled")
        await page.wait_for_selector("text=No public tournament cancelled.")

        second = await duel(alice, bob)
        await asyncio.gather(alice.play_to_end(second), bob.play_to_end(second, pick=2))
        await alice.send(type="create_tournament", name="late cup")
        tid = (await alice.until("tournament"))["tournament"]["id"]
        await alice.send(type="manage_tournament", tournament_id=tid, action="cancel")
        await alice.until("tournament")

        await page.get_by_role("link", name="Lobby").click()
        await page.goto(live.http + "/#/player/alice")
        await page.wait_for_selector("#matches-h:text-is('Matches (2, newest first)')")
        await page.get_by_role("link", name="Tournaments").click()
        assert await page.input_value("#t-status") == "cancelled"  # kept from the first visit
        await page.wait_for_selector("[aria-labelledby=tp-h] table a:text-is('late cup')")
        for c in (alice, bob):
            await c.close()
    assert page_errors.errors == []
