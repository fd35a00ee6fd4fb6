"""A cell name typed, then Enter (as after a command), with a cell of the board in
focus: the card goes on the typed cell and nothing more; the Enter does not place
the next card on the focused cell."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.server.live import running_server
from tests.web.conftest import new_room, place_one, player, store, wait_store


async def test_an_enter_after_a_typed_cell_places_nothing_more(
    browser, tmp_path: Path, page_errors
) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        ada = await player(browser, live.http, "ada", page_errors)
        await new_room(ada, "typing", seats="1")
        await ada.get_by_role("button", name="Start").click()
        await place_one(ada, 1, "click")  # a cell button now has the focus
        await ada.wait_for_selector("#to-place-h:text-is('Card 2 of 16')", timeout=20_000)
        cell = await ada.get_attribute("button.cell.legal", "data-cell")
        assert cell is not None
        await ada.locator('button.cell[tabindex="0"]').focus()
        await ada.keyboard.type(cell)
        await ada.keyboard.press("Enter")
        await wait_store(ada, "s.match && s.match.placements.some((p) => p.turn === 2)")
        await asyncio.sleep(1.0)  # a card 3 placed by that Enter would be answered by now
        turns = await store(ada, "s.match.placements.map((p) => p.turn)")
        assert sorted(turns) == [1, 2], turns
        placed = await store(ada, "s.match.placements.find((p) => p.turn === 2).cell")
        assert placed == cell


async def test_cells_typed_in_a_burst_are_all_placed_in_order(
    browser, tmp_path: Path, page_errors
) -> None:
    """Four cells typed with no pause, faster than the server answers: each goes on
    its card as the card comes, none lost (the ones typed before their card are
    shown as queued meanwhile)."""
    async with running_server(tmp_path / "db.sqlite") as live:
        ada = await player(browser, live.http, "ada", page_errors)
        await new_room(ada, "burst", seats="1")
        await ada.get_by_role("button", name="Start").click()
        await ada.wait_for_selector("#to-place-h:text-is('Card 1 of 16')", timeout=20_000)
        await ada.locator("h1").first.click()  # nothing focused that takes text
        await ada.keyboard.type("a1b1c1d1")
        await wait_store(ada, "s.match && s.match.placements.length === 4", timeout=10_000)
        placed = await store(ada, "s.match.placements.map((p) => [p.turn, p.cell])")
        assert sorted(placed) == [[1, "a1"], [2, "b1"], [3, "c1"], [4, "d1"]], placed
        await ada.wait_for_selector("#to-place-h:text-is('Card 5 of 16')")
        assert "typed" not in await ada.locator(".to-place").inner_text()
        assert page_errors.errors == []
