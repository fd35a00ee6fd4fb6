"""A game against a bot in one step, and the analysis on the results and replay screens.

The full-screen client against a real server on loopback, driven by Pilot;
the ``--plain`` client as a piped script.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.widgets import RadioButton, Static

from client_cli.tui.app import CribApp
from client_cli.tui.levels import LevelDialog
from client_cli.tui.screens.analysis import AnalysisScreen
from client_cli.tui.screens.game import GameScreen
from client_cli.tui.screens.lobby import LobbyScreen
from client_cli.tui.screens.replay import ReplayScreen
from client_cli.tui.screens.results import ResultsScreen
from server.bots import bot_levels
from tests.client_cli.test_play_plain import ROW_BY_ROW, plain
from tests.client_cli.test_play_plain import server as plain_server  # noqa: F401
from tests.client_cli.test_play_tui import server, text_of, until, wait_card

__all__ = ["server"]  # fixtures
pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


async def test_vs_bot_then_the_analysis_on_results_and_replay(server) -> None:
    url, _ = server
    app = CribApp(url, name="ada", vs_bot="greedy")
    async with app.run_test(size=(130, 45)) as pilot:
        # --vs-bot: straight from the sign-in into the game, a bot in the other seat
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game")
        room = app.model.room
        assert room is not None and room.seats == 2
        assert [p.player.name for p in room.players if p.player.bot] == ["greedy bot 1"]
        for turn in range(1, 17):
            legal = await wait_card(pilot, app, turn)
            await pilot.press(*legal[0])
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results", 15)
        assert len(app.screen.query("ResultBoard")) == 2

        # a: the analysis, computed in a thread while the screen stays live
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, AnalysisScreen), "the analysis")
        screen = app.screen
        body = screen.query_one("#analysis-body", Static)
        assert screen.analysis is not None or "analysing" in text_of(body)
        await until(pilot, lambda: screen.analysis is not None, "the analysis done", 30)
        text = text_of(body)
        assert "board of ada" in text and "hindsight best:" in text
        assert "turn  card  played  expert  loss" in text
        assert len(re.findall(r"^\s+\d+\s", text, re.M)) >= 16
        await pilot.press("escape")

        # the replay shows, at each placement, the expert's cell and the move's loss
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        replay = app.screen
        await pilot.press("a")  # made once: taken from the results' analysis
        assert replay.analysis is screen.analysis
        await pilot.press("right", "right", "right")
        head = text_of(replay.query_one("#replay-head", Static))
        move = replay.analysis.moves[2]
        assert f"played {legal_name(move.played)}, expert {legal_name(move.bot_cell)}" in head
        assert "hindsight best" in head
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, AnalysisScreen), "the full analysis")
        # made already: drawn at once (it was once handed back before the screen counted
        # as mounted, and "analysing…" stayed for good)
        full = app.screen.query_one("#analysis-body", Static)
        await until(pilot, lambda: "hindsight best:" in text_of(full), "the full analysis drawn", 5)
        assert "analysing" not in text_of(full)


def legal_name(cell: int) -> str:
    return "abcd"[cell % 4] + str(cell // 4 + 1)


async def test_the_lobby_key_v_starts_a_game_against_the_expert(server) -> None:
    url, _ = server
    app = CribApp(url, name="bea")
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await until(pilot, lambda: app.model.bots is not None, "the server's levels")
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, LevelDialog), "the level picker")
        await pilot.press("enter")  # the default: the server's quick-play bot
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game")
        room = app.model.room
        assert room is not None and room.seats == 2 and len(room.players) == 2
        assert any(p.player.bot and "expert" in p.player.name for p in room.players)


async def test_the_level_picker_shows_each_levels_rating_and_seats_the_one_chosen(
    server,
) -> None:
    url, _ = server
    app = CribApp(url, name="cal")
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await until(pilot, lambda: app.model.bots is not None, "the server's levels")
        bots = app.model.bots
        assert bots is not None
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, LevelDialog), "the level picker")
        shown = app.screen.query(RadioButton)
        assert len(shown) == len(bots.levels) == 8
        for button, level in zip(shown, bots.levels, strict=True):
            text = str(button.label)
            assert text.startswith(f"{level.name} {level.title} ({level.rating})"), text
        about = app.screen.query_one("#level-about", Static)
        expert = next(level for level in bots.levels if level.name == "level-7")
        assert str(about.render()) == f"level-7: {expert.description}"
        await pilot.click("#level-level-2")
        # The chosen level described whole, on lines of its own (none cut at 80 columns).
        await until(pilot, lambda: "level-2: " in str(about.render()), "level 2's description")
        assert str(about.render()) == f"level-2: {bots.levels[1].description}"
        await pilot.click("#choose")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), "the game")
        room = app.model.room
        assert room is not None
        assert [p.player.name for p in room.players if p.player.bot] == ["level-2 bot 1"]


async def test_plain_vsbot_and_analyze(plain_server: str, tmp_path: Path) -> None:  # noqa: F811
    script = ["analyze", "vsbot nosuchbot", "bots", "vsbot greedy", *ROW_BY_ROW, "wait"]
    script += ["analyze", "leave", "quit"]
    code, out, err = await plain(plain_server, tmp_path, script, "--name", "cy")
    assert code == 0, err
    # bots: the ladder, each level with its rating; vsbot says the one chosen
    for level in bot_levels():
        assert re.search(rf"^  {level.name} +{level.title} +rated {level.rating} ± ", out, re.M)
    five = next(lv for lv in bot_levels() if lv.name == "level-5")
    assert f"playing a bot of greedy ({five.title}, rated {five.rating} ± {five.deviation})" in out
    assert "no finished match here" in out
    assert "refused: no bot plays strategy 'nosuchbot'" in out
    assert "greedy bot 1 sits down" in out
    assert "analysing the board of cy in match" in out
    assert "as played:" in out and "hindsight best:" in out
    table = out[out.index("turn  card  played  expert  loss") :].splitlines()
    assert [line.split()[2] for line in table[1:17]] == ROW_BY_ROW
    match_id = re.search(r"in match (\S+)\.\.\.", out).group(1)  # type: ignore[union-attr]

    # a stored match by id, from the server's history
    code, out, err = await plain(plain_server, tmp_path, [f"analyze {match_id}", "quit"])
    assert code == 0, err
    assert f"analysing the board of cy in match {match_id}" in out
    assert "Traceback" not in out + err
