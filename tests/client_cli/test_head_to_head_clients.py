"""Head-to-head outside the full screen: the plain client's quick play and
rematch, and a bot playing a whole series, against the real server on loopback."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from client_cli.botkit import BotClient, Plan, load_chooser
from server import errors
from server.shell.keys import HUB
from tests.client_cli.test_play_plain import ROW_BY_ROW, plain
from tests.server.live import Live, running_server

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[Live]:
    async with running_server(tmp_path / "h2h.db", between_deals_ms=300) as server:
        # The quick-play bot thinks fast here: two whole matches fit in the test's time.
        lobby = server.app[HUB].lobby
        lobby.config = replace(lobby.config, quickplay_bot="greedy")
        lobby.head_to_head.config = lobby.config
        yield server


@pytest.mark.slow
async def test_plain_quick_play_against_a_bot_then_a_rematch(live: Live, tmp_path: Path) -> None:
    # the first placement waits for the opponent, then for its card
    script = ["quickplay --bot-after 0", *ROW_BY_ROW, "wait", "rematch", "leaderboard", "quit"]
    code, out, err = await plain(live.url, tmp_path, script, "--name", "quinn")
    assert code == 0, err
    assert "quick play: waiting for an opponent (lockstep, one deal, rated" in out
    assert "quick play: matched, room" in out
    assert out.count("deal verified") == 1, out
    assert "board of quinn (you)" in out and "best of 1, 1 deal \u2014" in out
    # the bot accepts the rematch at once: a new match starts in the same room
    assert out.count(" started (lockstep") == 2, out
    assert "lockstep leaderboard: 0 ranked players" in out  # a bot's games are casual
    assert "Traceback" not in out + err


async def test_a_bot_plays_every_deal_of_its_series(live: Live) -> None:
    lines: list[str] = []
    bot = BotClient(live.url, load_chooser("greedy"), name="series bot", say=lines.append)
    outcomes = await bot.run(Plan(seats=1, wait_s=0.2, best_of=3))
    # alone, nobody can fall behind: all three deals are played
    assert [(o.deal, o.best_of, o.rank) for o in outcomes] == [(1, 3, 1), (2, 3, 1), (3, 3, 1)]
    assert len({o.match_id for o in outcomes}) == 3
    assert "game 1: best of 3, 3 deals \u2014 series bot won the series" in lines
    assert any(line.startswith("game 1: deal 2 of 3: room") for line in lines)


async def test_a_bot_told_the_queue_is_for_people_opens_a_room(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    def people_only(*args: object) -> None:
        raise errors.NotRateable("quick play is for people")

    # A server whose queue does not take bot programs (this one's does).
    monkeypatch.setattr(live.app[HUB].lobby.head_to_head, "quickplay", people_only)
    lines: list[str] = []
    bot = BotClient(live.url, load_chooser("random"), name="queue bot", say=lines.append)
    [outcome] = await bot.run(Plan(queue=True, seats=2, wait_s=0.2))
    assert outcome.players == 1
    assert any("quick play refused" in line for line in lines)
