"""The Textual client, driven by Pilot at 80x24, when the network asks for more
than a steady line: a cluster's ``node_hint`` (a real server behind a proxy that
plays the cluster's part, tests/client_cli/node_proxy.py) and a server that
drops frames (a real server with a tiny frame bucket).

The move to the room's node is one line in the log and play goes on; a hint
while a placement is unanswered waits for its answer, and the card is sent
once. Frames dropped: a readable line, nothing sent for the back-off, then the
room asked for as it stands; the card is sent again only once that snapshot
shows it still waiting.
"""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from client_cli.flood import BACKOFF_S
from client_cli.model.views import Connection
from client_cli.tui.app import CribApp
from client_cli.tui.screens.game import GameScreen
from client_cli.tui.screens.results import ResultsScreen
from client_cli.tui.screens.room import RoomScreen
from protocol.connection import ErrorMessage
from protocol.deals import Placed
from protocol.wire import ServerMessage
from tests.client_cli.node_proxy import node_proxy
from tests.client_cli.test_play_tui import (
    sign_in_and_create_solo,
    text_of,
    until,
    wait_card,
)
from tests.server.live import running_server

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]

MOVED = "moved to the room's server node n1"


Sent = list[tuple[float, dict[str, Any]]]


def record(app: CribApp) -> tuple[list[ServerMessage], Sent, list[str]]:
    """What the app heard, what it sent with the loop's time of sending, and both in
    one list of events ("sent place 1", "heard room_state"...)."""
    heard: list[ServerMessage] = []
    sent: list[tuple[float, dict[str, Any]]] = []
    events: list[str] = []
    apply, send_raw = app.model.apply, app.session.send_raw

    def hear(msg: ServerMessage, now: float) -> list[str]:
        heard.append(msg)
        events.append(f"heard {msg.type} {getattr(msg, 'turn', '')}".strip())
        return apply(msg, now)

    async def send(data: dict[str, Any]) -> None:
        await send_raw(data)
        sent.append((asyncio.get_running_loop().time(), dict(data)))
        events.append(f"sent {data['type']} {data.get('turn', '')}".strip())

    app.model.apply = hear  # type: ignore[method-assign]
    app.session.send_raw = send  # type: ignore[method-assign]
    return heard, sent, events


async def first_card_of_a_solo_match(
    pilot: Pilot[int], app: CribApp
) -> tuple[GameScreen, list[str]]:
    await sign_in_and_create_solo(pilot, app)
    await pilot.press("s")
    legal = await wait_card(pilot, app, 1)
    game = app.screen
    assert isinstance(game, GameScreen)
    return game, legal


async def test_the_move_to_the_rooms_node_is_one_line_and_the_match_goes_on(
    tmp_path: Path,
) -> None:
    async with (
        running_server(tmp_path / "server.db") as live,
        node_proxy(live.url) as proxy,
    ):
        app = CribApp(proxy.url, name="ada")
        heard, _, _ = record(app)
        async with app.run_test(size=(80, 24)) as pilot:
            await sign_in_and_create_solo(pilot, app)  # the seat: the hint comes with it
            await until(
                pilot, lambda: len(proxy.connections) == 2 and MOVED in app.log_lines, "the move"
            )
            assert proxy.connections[0].close_code == 1000
            assert proxy.connections[1].query == {"node": "n1"}
            assert isinstance(app.screen, RoomScreen) and app.model.connection == Connection.ONLINE
            said = "\n".join(app.log_lines)
            assert "connection lost" not in said and "Refused" not in said
            # The move is one line: the sign-in on the new node is not told again.
            assert said.count("signed in as ada") == 1, app.log_lines
            await pilot.press("s")
            await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game")
            for turn in range(1, 17):
                legal = await wait_card(pilot, app, turn)
                await pilot.press(*legal[0])
            await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results", 20)
            assert app.model.match is not None and app.model.match.verification.ok
    assert len(proxy.connections) == 2  # the new node's hint names its own node: ignored
    assert not [m for m in heard if isinstance(m, ErrorMessage)]
    assert len([m for m in heard if isinstance(m, Placed)]) == 16


async def test_a_hint_while_a_card_is_unanswered_waits_and_the_card_goes_once(
    tmp_path: Path,
) -> None:
    """The proxy tells of the node as the placement of card 1 passes, and holds the
    placement back until the test lets it go on: the client follows the hint only
    after ``placed``."""
    async with (
        running_server(tmp_path / "server.db") as live,
        node_proxy(live.url, on_place=True) as proxy,
    ):
        app = CribApp(proxy.url, name="bea")
        heard, _, _ = record(app)
        async with app.run_test(size=(80, 24)) as pilot:
            game, legal = await first_card_of_a_solo_match(pilot, app)
            assert game.place(legal[0])
            await until(pilot, lambda: proxy.connections[0].hinted == ["n1"], "the hint")
            await pilot.pause(0.5)  # time to move, were the client not to wait
            assert not game.place(legal[0])  # on its way: not sent again
            assert "on its way" in text_of(game.query_one("#game-note"))
            assert len(proxy.connections) == 1  # not moved while the card is unanswered
            assert proxy.connections[0].close_code is None
            proxy.release.set()
            await until(
                pilot, lambda: len(proxy.connections) == 2 and MOVED in app.log_lines, "the move"
            )
            legal = await wait_card(pilot, app, 2)
            await pilot.press(*legal[0])
            await wait_card(pilot, app, 3)
            assert isinstance(app.screen, GameScreen)
    events = proxy.events

    def at(prefix: str) -> int:
        return next((i for i, event in enumerate(events) if event.startswith(prefix)), -1)

    steps = ("c0 said place t1", "c0 hinted n1", "c0 heard placed t1", "c0 closed 1000",
             "c1 opened node=n1")  # fmt: skip
    order = [at(step) for step in steps]
    assert -1 not in order and order == sorted(order), events
    places = [m for c in proxy.connections for m in c.said if m["type"] == "place"]
    assert [m["turn"] for m in places] == [1, 2]  # each card sent once, across both
    assert proxy.connections[1].said[0]["type"] == "hello"
    assert not [m for m in heard if isinstance(m, ErrorMessage)]


BURST = 12  # frames: enough for signing in and starting a solo match
RATE = 2.0  # frames a second: after the 1 s back-off, room for a resync and a card


async def place_until_taken(pilot: Pilot[int], app: CribApp, turn: int) -> None:
    """Place the card of ``turn`` whenever the client lets it go (a person trying
    again once the card is theirs again), until the server took it; a few tries."""
    match = app.model.match
    assert match is not None
    for _ in range(5):
        if match.turn != turn:
            return
        if match.sent != turn:
            assert isinstance(app.screen, GameScreen) and app.screen.place(match.legal[0])
        await until(pilot, lambda: match.turn != turn or match.sent != turn,
                    f"card {turn} taken, or the room's state", timeout=15)  # fmt: skip
    raise AssertionError(f"card {turn} was never taken")


async def test_frames_dropped_the_tui_says_so_waits_and_resyncs_before_the_card_again(
    tmp_path: Path,
) -> None:
    async with running_server(
        tmp_path / "tight.db", rate_per_second=RATE, rate_burst=BURST
    ) as live:
        app = CribApp(live.url, name="cy")
        heard, sent, events = record(app)
        async with app.run_test(size=(80, 24)) as pilot:
            game, legal = await first_card_of_a_solo_match(pilot, app)
            # Another program on the line floods it: the bucket runs dry, and the
            # card placed at that moment is dropped with the flood.
            flood = [asyncio.ensure_future(app.session.send_raw({"type": "ping"}))
                     for _ in range(BURST + 4)]  # fmt: skip
            assert game.place(legal[0])
            await asyncio.gather(*flood)
            await until(pilot, lambda: any("dropping" in line for line in app.log_lines),
                        "the line saying so")  # fmt: skip
            told_at = app.session.flood.told_at  # when the notice came
            assert told_at is not None
            line = next(line for line in app.log_lines if "dropping" in line)
            assert "waiting 1 s, then asking for the room as it stands" in line
            assert not any(line.startswith("refused:") for line in app.log_lines)
            match = app.model.match
            assert match is not None and match.sent == 1  # the card: not sendable again yet
            assert not game.place(legal[0]) and "on its way" in text_of(
                game.query_one("#game-note")
            )
            await until(pilot, lambda: match.sent is None, "the room's state", timeout=10)
            resyncs = [t for t, d in sent if d["type"] == "resync"]
            assert resyncs and resyncs[0] >= told_at + BACKOFF_S[0]  # after the back-off
            assert match.turn == 1  # the card was among the frames dropped: still waiting
            for turn in (1, 2):
                await wait_card(pilot, app, turn)
                await place_until_taken(pilot, app, turn)
            await wait_card(pilot, app, 3)
    # A card went again only after a resync's room_state showed it still waiting.
    for turn in (1, 2):
        at = [i for i, e in enumerate(events) if e == f"sent place {turn}"]
        for before, after in itertools.pairwise(at):
            between = events[before:after]
            assert "sent resync" in between, between
            assert "heard room_state" in between[between.index("sent resync") :], between
    assert len([e for e in events if e == "sent place 1"]) >= 2  # it was dropped once
    errors = [m for m in heard if isinstance(m, ErrorMessage)]
    assert {e.code for e in errors} == {"rate_limited"} and all(e.ref is None for e in errors)
    assert [m.turn for m in heard if isinstance(m, Placed)] == [1, 2]
