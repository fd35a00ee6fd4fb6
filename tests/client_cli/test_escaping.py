"""Text from elsewhere never reaches the terminal raw (issue: terminal injection).

Against a hostile server that puts escape sequences, control characters and
markup in names, room names and reasons: ``--plain`` prints them visibly
escaped; the full-screen client shows them escaped and its markup-reading
widgets (tables, notices, dialogs) show ``[bold]`` as typed.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from textual.widgets import DataTable

from client_cli.safe import clean, visible
from client_cli.tui.app import CribApp
from client_cli.tui.screens.challenge_prompt import ChallengePrompt
from client_cli.tui.screens.lobby import LobbyScreen
from tests.client_cli.hostile import EVIL, RAW, SHOWN, hostile_server
from tests.client_cli.test_play_tui import text_of, until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]
ROOT = Path(__file__).resolve().parents[2]


def test_visible_escapes_controls_and_format_characters_only() -> None:
    assert visible(EVIL) == SHOWN
    assert visible("ada lovelace") == "ada lovelace"
    assert visible("Ärger é ü 🂡") == "Ärger é ü 🂡"  # letters of every script stay
    assert visible("a\tb\nc\rd\x00e\x7f\x9b") == "a\\tb\\nc\\rd\\x00e\\x7f\\x9b"
    assert visible("zero\u200bwidth\ufeff") == "zero\\u200bwidth\\ufeff"
    assert visible(visible(EVIL)) == visible(EVIL)  # once escaped, nothing left to escape


def test_clean_escapes_every_string_but_what_the_deal_checks_need() -> None:
    data = {
        "type": "match_result",
        "name": EVIL,
        "boards": [{"player": {"name": EVIL}, "cells": ["5H\x1b"]}],
        "seed": "s\x1b",
        "contributions": ["c\x07"],
        "placed": {"p\x1b": 1},
    }
    safe = clean(data)
    assert safe["name"] == SHOWN
    assert safe["boards"][0]["player"]["name"] == SHOWN
    assert safe["boards"][0]["cells"] == ["5H\\x1b"]
    assert safe["placed"] == {"p\\x1b": 1}
    # checked against their commitments: kept as sent (shown escaped where shown)
    assert safe["seed"] == "s\x1b" and safe["contributions"] == ["c\x07"]


async def test_plain_prints_a_hostile_servers_text_escaped(tmp_path: Path) -> None:
    async with hostile_server() as url:
        script = ["rooms", "join Xk3r9TqZ", "history", "quit"]
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "client_cli", "play", "--plain", "--server", url,
            "--name", "me", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, cwd=ROOT,
            env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path)},
        )  # fmt: skip
        out_b, err_b = await asyncio.wait_for(proc.communicate("\n".join(script).encode()), 40)
    out, err = out_b.decode(), err_b.decode()
    assert proc.returncode == 0, err
    for raw in RAW:
        assert raw not in out + err
    assert f"room Xk3r9TqZ: {SHOWN}, 1/2 seated" in out  # the room list
    assert f"by {SHOWN}" in out  # its creator
    assert f"refused: refused by {SHOWN}" in out  # a reason
    assert f"{SHOWN} challenges you" in out  # a challenge
    assert f"room {SHOWN}" in out  # the history


async def test_a_hostile_servers_ranking_note_is_shown_escaped_in_every_replay(
    tmp_path: Path,
) -> None:
    """A stored match's ranking note (a sentence the clients show as the server wrote
    it) with escapes in it: ``history --match``, ``analyze`` and the plain ``replay``."""
    note = f"{SHOWN} resigned: ranked last"
    async with hostile_server() as url:
        runs = [
            ("history", "--match", "m-evil", "--server", url),
            ("analyze", "m-evil", "--server", url, "--simulations", "5", "--budget", "50"),
            ("play", "--plain", "--server", url, "--name", "me"),
        ]
        for argv in runs:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "client_cli", *argv, stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=ROOT,
                env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path)},
            )  # fmt: skip
            out_b, err_b = await asyncio.wait_for(proc.communicate(b"replay m-evil\nquit\n"), 40)
            out, err = out_b.decode(), err_b.decode()
            assert proc.returncode == 0, err
            assert not any(raw in out + err for raw in RAW), argv
            assert note in out.splitlines(), (argv, out)


async def test_the_full_screen_client_shows_a_hostile_servers_text_escaped(
    tmp_path: Path,
) -> None:
    async with hostile_server() as url:
        app = CribApp(url, name="me")
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ChallengePrompt), "the challenge")
            body = text_of(app.screen.query_one("#prompt-body"))
            assert f"{SHOWN} challenges you" in body
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            table = app.screen.query_one("#rooms", DataTable)
            await until(pilot, lambda: table.row_count == 1, "the hostile room")
            cells = [str(getattr(c, "plain", c)) for c in table.get_row_at(0)]
            assert cells[0] == SHOWN and cells[5] == SHOWN
            await pilot.press("enter")  # join: the server refuses, with a hostile reason
            await until(pilot, lambda: any(SHOWN in line for line in app.log_lines), "the refusal")
            await pilot.pause(0.3)
            shot = app.export_screenshot()
            for raw in RAW:
                assert raw not in shot
            # Markup in a name is shown as typed, in the table and in the notice.
            assert shot.count("[bold&#160;red]boom[/bold&#160;red]") >= 2
