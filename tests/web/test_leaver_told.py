"""The one who resigns a series between deals is told what it did.

bo, in his browser, plays deal 1 of a best of three against ada (over the protocol),
then resigns before deal 2 (the Resign button and its confirmation): the page says
the series is ada's, in the words every client uses, where it said nothing before;
his games list says it on the series' row.
"""

from __future__ import annotations

from pathlib import Path

from tests.server.live import running_server, signed_in
from tests.web.conftest import place_one, player, shot, store, wait_store


async def test_resigning_between_deals_says_who_won_the_series(
    browser, tmp_path: Path, page_errors
) -> None:
    async with running_server(tmp_path / "db.sqlite", between_deals_ms=60_000) as live:
        ada = await signed_in(live, "ada")
        await ada.send(type="create_room", name="best of three", seats=2, deals=3)
        room_id = (await ada.until("room_state"))["room"]["id"]
        bo = await player(browser, live.http, "bo", page_errors, path=f"/#/play/{room_id}")
        await bo.get_by_role("button", name="Ready").click()
        await ada.send(type="ready", room_id=room_id)
        for turn in range(1, 17):
            card = await ada.until("card")
            await ada.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])
            await place_one(bo, turn)
        await wait_store(bo, "s.match && s.match.result")
        await bo.get_by_role("button", name="Resign").click()
        await bo.locator("dialog").get_by_role("button", name="Resign").click()
        await wait_store(bo, "s.room === null")
        said = await store(bo, "s.notices.map((n) => n.text)")
        # The deals won say it ("… 1–0"), or the score at the resignation does ("at 1–1").
        told = {"You resigned — ada wins the series 1–0"} | {
            f"You resigned at {score} — ada wins the series" for score in ("1–1", "0–1")
        }
        assert told & set(said), said
        await shot(bo, "desktop-leaver-told")
        # His games: deal 1's row says how the series ended, his resignation included.
        await bo.get_by_role("link", name="My games").click()
        row = bo.locator("table.matches tbody tr").first
        await row.locator(".series-end").wait_for()
        ended = await row.locator(".series-end").inner_text()
        assert ended.startswith("; lost the series") and ended.endswith(", you resigned"), ended
        await shot(bo, "desktop-leaver-games")
        await ada.close()
    assert page_errors.errors == []
