"""The web client's replay (``#/match/ID``) says why a board ranks where its score
alone would not, in the server's words, as the live result does: a race tie on
points broken on time used and a resignation, played over real sockets; and the
one who stayed is not told "Out of time" for the card the server placed for him."""

from __future__ import annotations

from pathlib import Path

from tests.server.live import running_server
from tests.server.ranked_deals import (
    host_then_resign,
    notes,
    pair,
    race_tie,
    resign_once_started,
    resignation,
)
from tests.web.conftest import PHONE, player, shot, store, wait_store


async def test_the_replay_says_why_as_the_live_result_did(
    browser, tmp_path: Path, page_errors
) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        ada, bo = await pair(live)
        tie, resigned = await race_tie(ada, bo), await resignation(ada, bo)
        for c in (ada, bo):
            await c.close()
        page = await player(browser, live.http, "cy", page_errors, viewport=PHONE)
        for result, headline in ((tie, "ada won on time"), (resigned, "Ada resigned")):
            await page.goto(f"{live.http}/#/match/{result['match_id']}")
            await page.wait_for_selector(".replay-controls")
            assert await page.locator(".replay-outcome").count() == 0  # not before the end
            await page.keyboard.press("End")
            outcome = page.locator(".replay-outcome")
            await outcome.wait_for()
            said = await outcome.inner_text()
            assert headline in said and all(n in said for n in notes(result)), said
            await shot(page, f"phone-replay-notes-{len(notes(result))}-{headline[:3]}")
    assert page_errors.errors == []


async def test_a_stayer_after_a_resignation_is_not_told_out_of_time(
    browser, tmp_path: Path, page_errors
) -> None:
    """bo in his browser holds his card when ada resigns: the card placed for him says
    the deal ended, never "Out of time"; his result and its replay say ada resigned."""
    async with running_server(tmp_path / "db.sqlite") as live:
        ada, room_id = await host_then_resign(live)
        bo = await player(browser, live.http, "bo", page_errors, path=f"/#/play/{room_id}")
        await bo.get_by_role("button", name="Ready").click()
        await resign_once_started(ada, room_id)
        await wait_store(bo, "s.match && s.match.result")
        said = await store(bo, "s.notices.map((n) => n.text)")
        assert not any("Out of time" in n for n in said), said
        assert [n for n in said if "placed for you" in n] == [
            f"The others left, so the deal ended: {card} was placed for you on {cell}."
            for card, cell in await store(bo, "s.match.placements.map((p) => [p.card, p.cell])")
        ]
        await bo.wait_for_selector("#outcome-h:text-is('You won: ada resigned')")
        await shot(bo, "desktop-stayer-result")
        await bo.get_by_role("link", name="Replay and analysis").click()
        await bo.wait_for_selector(".replay-controls")
        await bo.keyboard.press("End")
        outcome = await bo.locator(".replay-outcome").inner_text()
        assert "You won: ada resigned" in outcome and "ada resigned: ranked last" in outcome
        await ada.close()
    assert page_errors.errors == []
