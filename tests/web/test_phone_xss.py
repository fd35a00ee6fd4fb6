"""A phone-sized screen plays a whole deal by tapping; text from other players
(a name, a room name, a tournament name) is only ever shown as text."""

from __future__ import annotations

from pathlib import Path

from tests.server.live import running_server, signed_in
from tests.web.conftest import (
    PHONE,
    custom_game,
    open_page,
    place_one,
    player,
    shot,
    sign_in,
    store,
)


async def test_a_phone_plays_a_whole_deal(browser, tmp_path: Path, page_errors) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        context = await browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
        page = await context.new_page()
        page_errors.watch(page)
        await page.goto(live.http + "/")
        await sign_in(page, "pip")
        await shot(page, "phone-lobby")
        await custom_game(page)
        await page.select_option("#new-seats", "1")
        await page.get_by_role("button", name="Create the room").click()
        await page.get_by_role("button", name="Ready").tap()
        await page.wait_for_selector("#to-place-h:text-is('Card 1 of 16')")
        board = await page.locator(".board.mine").bounding_box()
        assert (
            board is not None and board["x"] >= 0 and board["x"] + board["width"] <= PHONE["width"]
        )
        assert await page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        for turn in range(1, 17):
            await place_one(page, turn, "tap")
            if turn == 6:
                await page.wait_for_selector("#to-place-h:text-is('Card 7 of 16')")
                await shot(page, "phone-play")
        await page.wait_for_selector(".verify.ok", timeout=20_000)
        assert await page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        await shot(page, "phone-results")
    assert page_errors.errors == []


XSS_ROOM = '<img src=x onerror="window.pwned=1">'
XSS_TOURNAMENT = "<script>window.pwned=2</script>"


async def test_names_and_room_names_are_shown_as_text(browser, tmp_path: Path, page_errors) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        # A name with markup is refused by the server; the page says why, as text.
        page = await open_page(browser, live.http + "/", page_errors)
        dialogs: list[str] = []
        page.on("dialog", lambda d: dialogs.append(d.message))
        await page.wait_for_selector("#signin-name")
        await page.evaluate("document.getElementById('signin-name').removeAttribute('pattern')")
        await sign_in_refused(page, '<img src=x onerror="window.pwned=3">')
        assert "name" in await page.inner_text(".error")
        # A room and a tournament named with markup, by a protocol client.
        mallory = await signed_in(live, "mallory")
        await mallory.send(type="create_room", name=XSS_ROOM, seats=3)
        await mallory.until("room_state")
        await mallory.send(type="create_tournament", name=XSS_TOURNAMENT)
        await mallory.until("tournament")
        await sign_in(page, "victim")
        await page.wait_for_selector("table.rooms")
        assert XSS_ROOM in await page.inner_text("table.rooms")
        # the server pages its listing: the page says how many there are
        await page.wait_for_selector(".pager:has-text('Rooms: 1 in all')")
        assert await page.get_by_role("button", name="Next page").count() == 0
        await page.get_by_role("button", name=f"Join {XSS_ROOM}").click()
        await page.wait_for_selector("text=Waiting for players")
        assert await page.inner_text(".room-head h1") == XSS_ROOM
        await page.goto(live.http + "/#/tournaments")
        await page.wait_for_selector("table.tournaments")
        assert XSS_TOURNAMENT in await page.inner_text("table.tournaments")
        await page.get_by_role("link", name=XSS_TOURNAMENT).click()
        # the page says "Loading…" under a plain heading until the tournament arrives
        await page.wait_for_selector("main:not(:has-text('Loading…')) h1")
        assert await page.inner_text("main h1") == XSS_TOURNAMENT
        await shot(page, "desktop-xss-as-text")
        assert await page.evaluate("window.pwned") is None
        assert await page.locator("main img, main script").count() == 0
        assert dialogs == []
        await mallory.close()
    assert page_errors.errors == []


async def sign_in_refused(page, name: str) -> None:
    await page.fill("#signin-name", name)
    await page.get_by_role("button", name="Sign in", exact=True).click()
    await page.wait_for_selector(".signin .error")


async def test_an_account_moves_to_another_device_by_its_token(browser, tmp_path: Path) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        first = await player(browser, live.http, "wanderer")
        me = await store(first, "s.me.id")
        await first.goto(live.http + "/#/account")
        await first.get_by_role("button", name="Show the token").click()
        token = await first.input_value("#token-text")
        assert len(token) > 20
        second = await open_page(browser, live.http + "/")
        await second.fill("#signin-token", token)
        await second.get_by_role("button", name="Sign in with the token").click()
        await second.wait_for_selector("nav.top .me")
        assert await store(second, "s.me.id") == me
        # signing out forgets the token in that browser
        await second.goto(live.http + "/#/account")
        await second.get_by_role("button", name="Sign out").click()
        await second.locator("dialog").get_by_role("button", name="Sign out").click()
        await second.wait_for_selector("#signin-name")
        assert await second.evaluate("localStorage.getItem('cribsquares.token')") is None
        await second.reload()
        await second.wait_for_selector("#signin-name")
