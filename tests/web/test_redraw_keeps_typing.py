"""A field being typed in survives the redraws that other players' doings cause:
the page is drawn anew on every update from the server, and a field drawn anew
would lose its caret and its selection, so that a key typed over a selected
number (the count of bots to add) was added to it ("11") instead of replacing it."""

from __future__ import annotations

from pathlib import Path

from tests.server.live import running_server, signed_in
from tests.web.conftest import custom_game, player, store, wait_store

FOCUSED = "[document.activeElement.id, document.activeElement.value]"


async def test_a_selection_typed_over_during_an_update_is_replaced(
    browser, tmp_path: Path, page_errors
) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        host = await player(browser, live.http, "hana", page_errors)
        # the lobby: a room's name half typed, two letters selected, then a challenge comes
        await custom_game(host)
        await host.fill("#new-name", "abcdef")
        await host.evaluate("document.getElementById('new-name').setSelectionRange(2, 4)")
        form = await host.evaluate_handle("document.querySelector('.custom-game')")
        ivy = await signed_in(live, "ivy")
        await ivy.send(type="challenge", opponent="hana", rated=False)
        await wait_store(host, "s.challenges.size === 1")
        # the lobby's sections were drawn anew (the challenge came in above them)
        assert await host.evaluate("(f) => f !== document.querySelector('.custom-game')", form)
        await host.keyboard.type("X")
        assert await host.evaluate(FOCUSED) == ["new-name", "abXef"]

        # a tournament's host selects the count of bots; an entrant registers meanwhile
        await host.goto(live.http + "/#/tournaments")
        await host.fill("#tc-name", "Typing field")
        await host.get_by_role("button", name="Create the tournament").click()
        await host.wait_for_selector("main h1:text-is('Typing field')")
        tid = await host.evaluate("location.hash.split('/')[2]")
        await host.focus("#tb-count")
        await host.keyboard.press("Control+a")
        await ivy.send(type="join_tournament", tournament_id=tid, contribution="ivy-share")
        await ivy.until("tournament")
        await wait_store(host, f"s.tournament.get('{tid}').info.entrants.length === 1")
        await host.keyboard.type("2")
        assert await host.evaluate(FOCUSED) == ["tb-count", "2"]
        await host.get_by_role("button", name="Add bots").click()
        await wait_store(host, f"s.tournament.get('{tid}').info.entrants.length === 3")
        assert await store(host, f"s.tournament.get('{tid}').info.entrants.length") == 3
        await ivy.close()
    assert page_errors.errors == []
