"""The web client's Daily page in Chromium: today's commitment and live standings
(no card of anyone's board), one's attempt played from the page, then the next
day: yesterday's deal checked by the browser itself, one's board against the
field's and the server's analysis, on a desktop and on a phone."""

from __future__ import annotations

import re
from pathlib import Path

from tests.server.live import running_server, signed_in
from tests.server.test_embargo_sweep import DAY_MS, Calendar
from tests.web.conftest import (
    PHONE,
    axe_source,
    axe_violations,
    new_room,
    place_one,
    player,
    shot,
    store,
    wait_store,
)

BAD = ("critical", "serious")  # what axe-core may not find on a state of the page


async def test_the_daily_page_from_today_to_yesterday_against_the_field(
    browser, tmp_path: Path, page_errors
) -> None:
    calendar = Calendar()
    async with running_server(tmp_path / "db.sqlite", daily_calendar=calendar) as live:
        ann = await signed_in(live, "ann")
        await ann.send(type="play_daily", pace="race", deal_clock_ms=600_000)
        ann_result = await ann.play_to_end((await ann.until("room_state"))["room"]["id"], pick=3)
        # wes plays a room of his own first: the daily deal, which takes none of his
        # contributions, must not be checked against the one he sent for that room.
        page = await player(browser, live.http, "wes", page_errors)
        await new_room(page, "warm-up", seats="1")
        await page.get_by_role("button", name="Start").click()
        for turn in range(1, 17):
            await place_one(page, turn)
        await page.wait_for_selector(".verify.ok", timeout=20_000)
        assert await store(page, "s.contribution") is not None
        await page.get_by_role("link", name="Daily", exact=True).click()
        await page.wait_for_selector("h1:text-is('Daily deal 2024-10-04')")
        text = await page.inner_text("main")
        assert "open today" in text and "1 played, 1 finished" in text
        assert "ann" in await page.inner_text("table.daily-standings")
        # wes may still play it: who played, not the score, and why
        assert "Play today's deal to see the field's scores" in await page.inner_text(
            ".held-scores"
        )
        assert "done" in await page.inner_text("table.daily-standings")
        source = axe_source()
        assert not [v for v in await axe_violations(page, source) if v["impact"] in BAD]
        ann_score = str(ann_result["boards"][0]["score"]["total"])
        assert await page.locator("table.daily-field").count() == 0  # no card before midnight
        assert not set("♣♦♥♠") & set(text)  # no card drawn at all
        for card in ann_result["boards"][0]["cells"]:  # nor written as a code ("TC", not UTC)
            assert re.search(rf"\b{card}\b", text) is None, card
        await shot(page, "daily-today")
        await page.select_option("#daily-pace", "race")
        await page.get_by_role("button", name="Play today's deal").click()
        await wait_store(page, "s.room && s.room.origin === 'daily' && s.match")
        for turn in range(1, 17):
            await place_one(page, turn)
        await page.wait_for_selector(".verify.ok", timeout=20_000)  # its own result, verified
        assert "my contribution" not in await page.inner_text(".verify")
        assert await page.get_by_role("button", name="Offer a rematch").count() == 0
        await page.get_by_role("link", name="Today's standings").click()
        # The page asks again on arriving: the count follows (the page drawn from the
        # answer it had before may show first).
        await page.wait_for_selector("text=2 played, 2 finished")
        await page.wait_for_selector(f"table.daily-standings .cell-value:text-is('{ann_score}')")
        assert await page.locator(".held-scores").count() == 0
        # One's own board, while the day is on, and the attempt in one's own games.
        await page.wait_for_selector(".daily-board .result-board")
        assert await page.locator(".daily-board .cell.filled").count() == 16
        await shot(page, "daily-own-board")
        assert not [v for v in await axe_violations(page, source) if v["impact"] in BAD]
        await page.get_by_role("link", name="My games").click()
        await page.wait_for_selector("#matches-h:text-is('Matches (2, newest first)')")
        await page.get_by_role("link", name="Replay").first.click()
        await page.wait_for_selector("text=Your own table. The deal is checked here once")
        assert not [v for v in await axe_violations(page, source) if v["impact"] in BAD]
        await page.keyboard.press("End")
        await page.wait_for_selector(".result-board .line-total", state="attached")
        await page.get_by_role("link", name="Daily", exact=True).click()
        # The day is over: yesterday's deal opens.
        calendar.ms += DAY_MS
        await page.get_by_role("link", name="Daily", exact=True).click()
        await page.wait_for_selector("h1:text-is('Daily deal 2024-10-05')")
        await page.get_by_role("link", name="Yesterday's deal").click()
        await page.wait_for_selector(".verify.ok", timeout=20_000)
        assert await page.locator(".verify li.pass").count() == 3
        assert await page.locator("table.daily-field tbody tr").count() == 16
        assert "over: its deal is revealed" in await page.inner_text("main")
        await page.wait_for_selector("text=You lost", timeout=90_000)
        assert "Final standings" in await page.inner_text("main")
        await shot(page, "daily-yesterday")
        phone = await player(browser, live.http, "pia", page_errors, viewport=PHONE,
                             path="/#/daily/2024-10-04")  # fmt: skip
        await phone.wait_for_selector(".verify.ok", timeout=20_000)
        width = await phone.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], width
        await shot(phone, "daily-phone")
        await ann.close()
    assert page_errors.errors == []
