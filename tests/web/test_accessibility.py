"""Every screen and state of the web client, on a desktop (1280x800) and a phone
(390x844): axe-core finds no critical and no serious violation on any of them,
nothing is wider than the phone's screen, and focus moves to each new screen's
heading or first action (after the last card, to the results).

The states: sign-in; the lobby, its custom game, a quick match waiting, a
challenge offered; a room's seats; a rated deal being played and its results
(fold-outs open, a line shown); a deal watched and its results; a player's
page; a replay and an analysis; the leaderboard; the daily deal; the
tournaments; a knockout's page with its bracket and its projector view; the
account."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.server.live import Client, running_server, signed_in
from tests.web.conftest import (
    axe_source,
    axe_violations,
    custom_game,
    new_room,
    place_one,
    shot,
    sign_in,
    store,
    wait_store,
)

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
BAD = ("critical", "serious")

FOCUSED = (
    "() => { const a = document.activeElement;"
    " return a ? a.tagName + ' ' + (a.textContent || '').trim().slice(0, 40) : ''; }"
)


class Sweep:
    """Checks each state of one page and keeps what was wrong, to say it all at the end."""

    def __init__(self, page: Any, size: str, source: str) -> None:
        self.page, self.size, self.source = page, size, source
        self.width = SIZES[size]["width"]
        self.wrong: dict[str, list[Any]] = {}
        self.seen: list[str] = []

    async def check(self, state: str) -> None:
        page = self.page
        await page.evaluate(
            "() => new Promise((d) => requestAnimationFrame(() => requestAnimationFrame(d)))"
        )
        found = [v for v in await axe_violations(page, self.source) if v["impact"] in BAD]
        wide = await page.evaluate("() => document.documentElement.scrollWidth")
        if wide > self.width:
            found.append({"id": "wider-than-the-screen", "width": wide})
        if found:
            self.wrong[state] = found
        self.seen.append(state)
        await shot(page, f"a11y-{self.size}-{state}")


async def bo_plays(bo: Client, room_id: str) -> None:
    await bo.play_to_end(room_id)


async def protocol_duel(live: Any) -> tuple[Client, Client, str]:
    """Two protocol players in a public lockstep room, the match begun."""
    cy = await signed_in(live, "cy")
    dee = await signed_in(live, "dee")
    await cy.send(
        type="create_room", name="Watch me", seats=2, contribution="c", card_clock_ms=60_000
    )
    room_id = (await cy.until("room_state"))["room"]["id"]
    await dee.send(type="join_room", room_id=room_id, contribution="d")
    await dee.until("room_state")
    await cy.send(type="ready", room_id=room_id)
    await dee.send(type="ready", room_id=room_id)
    return cy, dee, room_id


async def place_turns(client: Client, room_id: str, turns: int) -> None:
    for _ in range(turns):
        card = await client.until("card", timeout=20)
        await client.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])


@pytest.mark.parametrize("size", list(SIZES))
async def test_every_screen_is_accessible_fits_and_takes_the_focus(
    browser: Any, tmp_path: Path, page_errors: Any, size: str
) -> None:
    source = axe_source()
    phone = size == "phone"
    async with running_server(
        tmp_path / "db.sqlite", between_rounds_ms=300, between_deals_ms=300
    ) as live:
        context = await browser.new_context(viewport=SIZES[size], has_touch=phone, is_mobile=phone)
        page = await context.new_page()
        page_errors.watch(page)
        sweep = Sweep(page, size, source)
        await page.goto(live.http + "/")
        await page.wait_for_selector("#signin-name")
        await sweep.check("signin")
        await sign_in(page, "ada")
        await page.wait_for_selector("#computer-h")
        await page.wait_for_selector("button.level >> nth=7")  # the server's eight levels
        assert await page.evaluate(FOCUSED) == "H1 Play"  # the new screen's heading
        await sweep.check("lobby")
        await custom_game(page)
        await sweep.check("lobby-custom")
        await page.locator("button[data-key=quick-1]").click()
        await page.wait_for_selector(".waiting")
        await sweep.check("lobby-quick-match")
        await page.get_by_role("button", name="Stop waiting").click()
        await wait_store(page, "s.queue === null")

        # a rated deal against bo, who challenges
        bo = await signed_in(live, "bo")
        await bo.send(type="challenge", opponent="ada", contribution="b")
        await page.wait_for_selector(".challenge")
        await sweep.check("lobby-challenge")
        await page.get_by_role("button", name="Accept").click()
        await page.wait_for_selector("#to-place-h:text-is('Card 1 of 16')", timeout=15_000)
        assert (await page.evaluate(FOCUSED)).startswith("BUTTON")  # the board's cell
        room_id = await store(page, "s.room.id")
        playing = asyncio.create_task(bo_plays(bo, room_id))
        for turn in range(1, 8):
            await place_one(page, turn, "tap" if phone else "click")
        await page.wait_for_selector("#to-place-h:text-is('Card 8 of 16')")
        await sweep.check("play")
        for turn in range(8, 17):
            await place_one(page, turn, "tap" if phone else "click")
        await page.wait_for_selector(".verify.ok", timeout=20_000)
        await playing
        await wait_store(page, "s.ratings !== null")
        # the results' banner ("You won by 4 points", "Draw", ...) has the focus
        assert await page.evaluate("() => document.activeElement.id") == "outcome-h"
        lines = await page.locator(".outcome .ratings li").all_inner_texts()
        assert lines[0].startswith("Your rating 1500 → ") and lines[1].startswith("bo's rating")
        await sweep.check("results")
        for summary in await page.locator("details.fold > summary").all():
            await summary.click()
        await wait_store(page, "true")
        assert await page.locator("details.fold:not([open])").count() == 0
        await page.locator(".result-board.mine .line-total").nth(2).hover()
        await page.wait_for_selector(
            ".result-board.mine .how ul.items, .result-board.mine .how .none"
        )
        await sweep.check("results-open")
        await page.get_by_role("button", name="Back to the lobby").click()
        await page.wait_for_selector("#computer-h")

        # watching two others play
        cy, dee, watched = await protocol_duel(live)
        await page.goto(live.http + f"/#/watch/{watched}")
        await page.wait_for_selector(".watch .now-dealt")
        await asyncio.gather(place_turns(cy, watched, 3), place_turns(dee, watched, 3))
        await page.wait_for_selector(".now-dealt h2:text-is('Card 4 of 16')")
        await page.wait_for_selector(".feed-list li >> nth=3")
        assert await page.locator(".board").count() == 0  # no board before the result
        await sweep.check("watch")
        await asyncio.gather(cy.play_to_end(watched), dee.play_to_end(watched))
        await page.wait_for_selector(".outcome h2", timeout=20_000)
        await sweep.check("watch-results")
        await page.get_by_role("button", name="Stop watching").click()
        await page.wait_for_selector("#computer-h")

        # a room's seats
        await new_room(page, "Seats")
        await page.wait_for_selector("text=Waiting for players")
        assert await page.evaluate(FOCUSED) == "BUTTON Ready"  # its first action
        await sweep.check("room-seats")
        await page.get_by_role("button", name="Leave the room").click()
        await page.wait_for_selector("#computer-h")

        # a player's page, a replay and an analysis
        await page.get_by_role("link", name="My games").click()
        await page.wait_for_selector("table.matches")
        await page.locator("summary", has_text="rated series").click()
        await page.wait_for_selector("table.rating-history")
        await sweep.check("player")
        await page.locator("table.matches a", has_text="Replay").first.click()
        await page.wait_for_selector(".verify.ok")
        await sweep.check("replay")
        await page.get_by_role("button", name="Analyse").click()
        await page.wait_for_selector(".analysis", timeout=30_000)
        await sweep.check("analysis")

        for where, ready, state in (
            ("#/leaderboard", "table.leaderboard", "leaderboard"),
            ("#/daily", "#daily-day-h", "daily"),
            ("#/tournaments", "#tl-h", "tournaments"),
            ("#/account", "text=Use this account on another device", "account"),
        ):
            await page.goto(live.http + "/" + where)
            await page.wait_for_selector(ready)
            await sweep.check(state)
        # the form to host one, as the welcome offers a knockout (best of N, no rounds)
        await page.goto(live.http + "/#/tournaments")
        await page.select_option("#tc-format", "knockout")
        await page.wait_for_selector("#tc-bestof")
        await sweep.check("host a knockout")

        # a knockout, its bracket and its projector view
        kay = await signed_in(live, "kay")
        await kay.send(type="create_tournament", name="Cup", format="knockout", pace="race",
                       deal_clock_ms=30_000)  # fmt: skip
        tid = (await kay.until("tournament"))["tournament"]["id"]
        await kay.send(type="add_tournament_bot", tournament_id=tid, strategy="level-1", count=3)
        await kay.until("tournament")
        await page.goto(live.http + f"/#/t/{tid}")
        await page.wait_for_selector("main h1:text-is('Cup')")
        await kay.send(type="manage_tournament", tournament_id=tid, action="start")
        await wait_store(page, f"s.tournament.get('{tid}').info.status === 'finished'", 30_000)
        await page.wait_for_selector(".bracket .round h3:text-is('Champion')")
        await sweep.check("tournament")
        await page.goto(live.http + f"/#/t/{tid}/projector")
        await page.wait_for_selector(".projector-view .bracket")
        await sweep.check("projector")
        for client in (bo, cy, dee, kay):
            await client.close()
    assert len(sweep.seen) == 21
    said = [
        f"{state}: {v['id']} ({v.get('impact', '')}) {v.get('nodes', v.get('width'))}"
        for state, found in sweep.wrong.items()
        for v in found
    ]
    assert sweep.wrong == {}, "\n".join(said)
    assert page_errors.errors == []
