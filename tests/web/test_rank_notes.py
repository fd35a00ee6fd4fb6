"""The web client's replay (``#/match/ID``) says why a board ranks where its score
alone would not, in the server's words, as the live result does: a race tie on
points broken on time used and a resignation, played over real sockets."""

from __future__ import annotations

from pathlib import Path

from tests.server.live import running_server
from tests.server.ranked_deals import notes, pair, race_tie, resignation
from tests.web.conftest import PHONE, player, shot


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
