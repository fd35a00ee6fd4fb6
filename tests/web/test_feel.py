"""How the game feels in the browser, as a person meets it: one click from the
lobby to a game against a bot; each row's and column's points so far; a card
that lands (and does not move under prefers-reduced-motion); a focus ring
unlike the last-placed marker; a card dragged by a finger onto a cell; "10"
inside its card face; results whose fold-outs open by mouse, touch and
keyboard and stay open through redraws, whose lines show how they scored; and
a room of one seat that offers to play again, not a rematch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import TimeoutError as PlaywrightTimeout

from tests.server.live import running_server
from tests.web.conftest import PHONE, box, place_one, sign_in, store, wait_store

# Counts the landings the page plays (Element.animate), from before the page's own scripts.
COUNT_LANDINGS = """
window.__landings = 0;
const animate = Element.prototype.animate;
Element.prototype.animate = function (...args) {
  window.__landings += 1;
  return animate.apply(this, args);
};
"""

# The frames' types, both ways, for a failure to say what was sent and heard.
KEEP_FRAMES = """
window.__frames = [];
const Socket = window.WebSocket;
window.WebSocket = class extends Socket {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (e) => {
      try {
        const m = JSON.parse(e.data);  // one message, or an array of them (protocol 2)
        window.__frames.push("<" + (Array.isArray(m) ? m : [m]).map((x) => x.type).join("+"));
      } catch (_) {}
    });
  }
  send(data) {
    try { window.__frames.push(">" + JSON.parse(data).type); } catch (_) {}
    return super.send(data);
  }
};
"""

MODULE = "(name) => document.querySelector('script[type=module]').src.replace('js/app.js', name)"

SO_FAR = """async (url) => {
  const m = await import(url);
  const cells = window.cribsquares.store.match.cells;
  const p = m.boardSoFar(cells);
  const has = (ix) => ix.some((i) => cells[i]);
  const line = (f) => [0, 1, 2, 3].map(f);
  const rows = line((r) => (has(line((c) => r * 4 + c)) ? String(p.rows[r]) : ""));
  const cols = line((c) => (has(line((r) => r * 4 + c)) ? String(p.columns[c]) : ""));
  return [...rows, ...cols];
}"""

LOOKS = """() => {
  const f = document.activeElement, l = document.querySelector("button.cell.last");
  const fs = getComputedStyle(f), ls = getComputedStyle(l), mark = getComputedStyle(l, "::after");
  return { focusOutline: fs.outlineStyle + " " + fs.outlineWidth, lastOutline: ls.outlineStyle,
    marker: mark.content !== "none" && mark.width !== "auto", same: f === l };
}"""

TEN_FITS = """async ([url, size]) => {
  const m = await import(url);
  const b = document.createElement("div");
  b.className = "board";
  b.style.cssText = size;
  const c = document.createElement("span");
  c.className = "cell filled";
  b.append(c);
  c.append(m.cardFace("TD"));
  document.body.append(b);
  const face = c.querySelector(".card"), rank = face.querySelector(".card-rank");
  const ok = rank.getBoundingClientRect().right <= face.getBoundingClientRect().right
    && face.scrollWidth <= face.clientWidth;
  b.remove();
  return ok;
}"""

# A redraw from nothing: what is on the screen is dropped, then an answer comes (a
# redraw keeps what is drawn alike: this one has nothing to keep).
REDRAW = """() => {
  document.getElementById("app").replaceChildren();
  window.cribsquares.conn.send({ type: "list_online" });
}"""


async def computer_game(browser: Any, http: str, name: str, **context: Any) -> Any:
    ctx = await browser.new_context(**({"viewport": {"width": 1280, "height": 800}} | context))
    await ctx.add_init_script(COUNT_LANDINGS)
    page = await ctx.new_page()
    await page.goto(http + "/")
    await sign_in(page, name)
    await page.locator("button[data-key=vs-level-1]").click()  # one click to a game
    await page.wait_for_selector("#to-place-h:text-is('Card 1 of 16')")
    assert await store(page, "s.room.players.map((p) => p.player.bot)") == [False, True]
    return page


async def test_a_game_against_the_computer_feels_alive(
    browser, tmp_path: Path, page_errors
) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        page = await computer_game(browser, live.http, "ada")
        page_errors.watch(page)
        for turn in range(1, 6):
            await place_one(page, turn, "click")
        await page.wait_for_selector("#to-place-h:text-is('Card 6 of 16')")
        assert await page.evaluate("() => window.__landings") == 5  # each card landed, once
        # the points so far are what the cards of each line score without a starter
        shown = await page.locator(".board.mine .so-far [aria-hidden=true]").all_inner_texts()
        expected = await page.evaluate(SO_FAR, await page.evaluate(MODULE, "js/scoring.js"))
        assert shown == expected and any(shown)
        # the keyboard's focus ring is not the last-placed marker
        await page.locator('button.cell[tabindex="0"]').focus()
        await page.keyboard.press("ArrowRight")
        await page.keyboard.press("ArrowLeft")
        looks = await page.evaluate(LOOKS)
        assert looks["focusOutline"] == "solid 4px" and looks["marker"]
        assert looks["same"] or looks["lastOutline"] == "none"
        # "10" stays inside its card face, on this board's cells and the smallest phone's
        for cell in ("--cell: 116px", "--cell: 54px"):
            fits = await page.evaluate(TEN_FITS, [await page.evaluate(MODULE, "js/cards.js"), cell])
            assert fits, cell
        for turn in range(6, 17):
            await place_one(page, turn, "keys" if turn % 2 else "click")
        await page.wait_for_selector(".verify.ok", timeout=20_000)
        assert await page.evaluate("() => document.activeElement.id") == "outcome-h"
        headline = await page.inner_text("#outcome-h")
        assert headline.startswith(("You won by", "You lost by", "Draw"))

        # every fold-out opens by a real mouse click and stays open through redraws
        folds = page.locator("details.fold")
        assert await folds.count() == 3  # the checks, and each board's itemized score
        for i in range(3):
            # a click through the mouse's own events (down, up: a pointer, not a script)
            await folds.nth(i).locator("summary").click()
            await wait_store(page, "true")
            assert await folds.nth(i).get_attribute("open") == "", i
        before = await page.evaluate_handle("document.querySelector('details.fold')")
        await page.evaluate(REDRAW)
        # drawn again once the answer to list_online comes (the store already held an
        # earlier answer: waiting for s.online did not wait for this one)
        await page.wait_for_selector("details.fold", timeout=10_000)
        assert await page.evaluate("(el) => el.isConnected", before) is False  # drawn anew
        assert await page.locator("details.fold[open]").count() == 3
        assert await page.locator(".result-board .hand").count() == 16
        # and closes by the keyboard, and opens again by it
        first = folds.nth(0).locator("summary")
        await first.focus()
        await page.keyboard.press("Enter")
        await wait_store(page, "true")
        assert await folds.nth(0).get_attribute("open") is None
        await page.locator("details.fold").nth(0).locator("summary").focus()
        await page.keyboard.press(" ")
        await wait_store(page, "true")
        assert await folds.nth(0).get_attribute("open") == ""

        # a line's total, by the mouse or the keyboard, lights the cards that scored and says how
        totals = page.locator(".result-board.mine .line-total")
        await totals.nth(0).hover()
        await page.wait_for_selector(".result-board.mine .line-total.active")
        lit = await page.locator(".result-board.mine .cell.static.dim").count()
        assert lit == 12  # the other three rows
        how = await page.inner_text(".result-board.mine .how")
        assert how.startswith("Row 1: ")
        # The mouse leaves before the keyboard is used, as a keyboard user's would: left
        # over row 1, a redraw under it (beside a CPU hog) gave it a mouseenter after the
        # focus below, and row 1 was lit again, not the focused column.
        await page.mouse.move(0, 0)
        await totals.nth(5).focus()  # column b
        await page.wait_for_selector(".result-board.mine .how:has-text('Column b: ')")
        assert await page.evaluate("() => document.activeElement.classList.contains('active')")
        # two seats: a rematch to offer (a room of one seat plays again: below)
        assert await page.get_by_role("button", name="Offer a rematch").count() == 1
    assert page_errors.errors == []


async def test_a_finger_drags_the_card_onto_a_cell_and_a_solo_room_plays_again(
    browser, tmp_path: Path, page_errors
) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        context = await browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True,
                                            reduced_motion="reduce")  # fmt: skip
        await context.add_init_script(COUNT_LANDINGS)
        await context.add_init_script(KEEP_FRAMES)
        page = await context.new_page()
        page_errors.watch(page)
        await page.goto(live.http + "/")
        await sign_in(page, "pip")
        await page.locator("summary", has_text="Custom game").tap()
        await page.select_option("#new-seats", "1")
        await page.get_by_role("button", name="Create the room").tap()
        await page.get_by_role("button", name="Start now").tap()
        cdp = await context.new_cdp_session(page)
        for turn in range(1, 17):
            await page.wait_for_selector(f"#to-place-h:text-is('Card {turn} of 16')")
            cell = await page.get_attribute("button.cell.legal", "data-cell")
            source = await box(page.locator(".next-card .card"))
            goal = await box(page.locator(f'button.cell[data-cell="{cell}"]'))
            await drag_by_touch(cdp, source, goal)
            await wait_store(page, f"s.match && s.match.placements.some((p) => p.turn === {turn})")
            assert (
                await store(page, f"s.match.placements.find((p) => p.turn === {turn}).cell") == cell
            )
        await page.wait_for_selector(".verify.ok", timeout=20_000)
        assert await page.evaluate("() => window.__landings") == 0  # less motion, none at all
        assert await page.get_by_role("button", name="Offer a rematch").count() == 0
        # A click, not a tap: a tap less than a second after the last drag's lift reached
        # the button (pointerdown, touchstart, pointerup, touchend) but Chromium made no
        # click of it, now and then (a run of the suite; always, with the page redrawn at
        # once after a drag). Not understood yet: the drag above is the touch part.
        await page.get_by_role("button", name="Play again").click()
        try:
            await page.wait_for_selector("#to-place-h:text-is('Card 1 of 16')", timeout=15_000)
        except PlaywrightTimeout:  # say what the page sent and heard, and shows
            frames = await page.evaluate("() => window.__frames.slice(-12)")
            shown = await store(page, "[s.room && s.room.status, s.match && s.match.turn]")
            pytest.fail(f"waited 15 s for card 1 after 'Play again': frames {frames},"
                        f" room and turn {shown}", pytrace=False)  # fmt: skip
    assert page_errors.errors == []


async def drag_by_touch(cdp: Any, source: dict[str, float], goal: dict[str, float]) -> None:
    """A finger pressed on the card, moved in steps onto the cell, lifted."""
    x0, y0 = source["x"] + source["width"] / 2, source["y"] + source["height"] / 2
    x1, y1 = goal["x"] + goal["width"] / 2, goal["y"] + goal["height"] / 2
    touch = "Input.dispatchTouchEvent"
    await cdp.send(touch, {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for step in range(1, 9):
        x, y = x0 + (x1 - x0) * step / 8, y0 + (y1 - y0) * step / 8
        await cdp.send(touch, {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    await cdp.send(touch, {"type": "touchEnd", "touchPoints": []})
