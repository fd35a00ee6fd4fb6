"""Bots over the public protocol: the real server on loopback, bots playing whole matches."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from client_cli.botkit import (
    BotClient,
    BotError,
    Outcome,
    Plan,
    cell_index,
    default_name,
    load_chooser,
)
from engine.bots import BotView
from engine.cards import Card
from tests.server.live import Live, running_server

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "my_bot.py"


@pytest.fixture
async def live(tmp_path: Path) -> AsyncIterator[Live]:
    async with running_server(tmp_path / "bots.db") as server:
        yield server


async def get_json(url: str) -> dict:  # type: ignore[type-arg]
    async with aiohttp.ClientSession() as http, http.get(url) as response:
        assert response.status == 200, url
        return await response.json()  # type: ignore[no-any-return]


def quiet(_: str) -> None:
    pass


async def test_a_bot_plays_a_solo_match_and_is_labelled_a_bot(live: Live) -> None:
    choose = load_chooser(f"{EXAMPLE}:choose")
    bot = BotClient(live.url, choose, name="solo bot", say=quiet)
    [outcome] = await bot.run(Plan(seats=1, wait_s=5))
    assert outcome.players == 1 and outcome.rank == 1 and outcome.fallbacks == 0
    assert outcome.boards == [("solo bot", True, 1, outcome.score)]
    assert bot.welcome is not None and bot.welcome.player.bot
    match = await get_json(f"{live.http}/api/matches/{outcome.match_id}")
    [board] = match["boards"]
    assert board["player"]["bot"] is True and len(board["placements"]) == 16
    assert not any(p["auto"] for p in board["placements"])


async def test_a_bot_run_again_under_a_taken_name_registers_as_the_next_free_one(
    live: Live,
) -> None:
    names = []
    for _ in range(3):  # the same default name, run after run, on one server
        bot = BotClient(live.url, load_chooser("greedy"), name="expert bot", say=quiet)
        await bot.run(Plan(seats=1, wait_s=5))
        assert bot.welcome is not None and bot.welcome.player.bot
        names.append(bot.welcome.player.name)
    # "expert bot-2" would read as the server's own "expert bot 2"
    assert names == ["expert bot", "expert-2 bot", "expert-3 bot"]


async def test_two_bots_play_each_other_one_joining_by_room_id(live: Live) -> None:
    host = BotClient(live.url, load_chooser("greedy"), name="host bot", say=quiet)
    hosting = asyncio.create_task(host.run(Plan(seats=2, wait_s=30)))
    while not (rooms := (await get_json(f"{live.http}/api/rooms"))["rooms"]):
        await asyncio.sleep(0.02)
    guest = BotClient(live.url, load_chooser(str(EXAMPLE)), name="guest bot", say=quiet)
    [theirs] = await guest.run(Plan(room=rooms[0]["id"]))
    [mine] = await hosting
    assert mine.match_id == theirs.match_id and mine.players == theirs.players == 2
    assert mine.boards == theirs.boards
    assert {(name, bot) for name, bot, _, _ in mine.boards} == {
        ("host bot", True),
        ("guest bot", True),
    }
    assert sorted([mine.rank, theirs.rank]) in ([1, 1], [1, 2])


@pytest.mark.slow
async def test_quickplay_joins_an_open_room_and_starts_alone_after_the_wait(live: Live) -> None:
    first = BotClient(live.url, load_chooser("random"), name="early bot", say=quiet)
    waiting = asyncio.create_task(first.run(Plan(seats=3, wait_s=1.5)))
    while not (await get_json(f"{live.http}/api/rooms"))["rooms"]:
        await asyncio.sleep(0.02)
    second = BotClient(live.url, load_chooser("greedy"), name="late bot", say=quiet)
    [joined] = await second.run(Plan(seats=2, wait_s=30))  # finds the open room
    [opened] = await waiting
    assert joined.room_id == opened.room_id and joined.players == 2  # 3 seats, 2 came


async def test_a_bot_that_answers_nonsense_is_replaced_by_the_fallback_rule(live: Live) -> None:
    answers = iter(["a1", 99, "zz", None])

    def stubborn(view: BotView) -> object:
        return next(answers, "a1")

    bot = BotClient(live.url, stubborn, name="stubborn", say=quiet)  # type: ignore[arg-type]
    [outcome] = await bot.run(Plan(seats=1))
    # a1 is legal for the first card only: the 15 others were placed by the fallback rule.
    assert isinstance(outcome, Outcome) and outcome.fallbacks == 15


async def test_joining_a_room_that_does_not_exist_is_a_readable_error(live: Live) -> None:
    bot = BotClient(live.url, load_chooser("random"), name="lost bot", say=quiet)
    with pytest.raises(BotError, match="no room has the id or invite code 'nowhere'"):
        await bot.run(Plan(room="nowhere"))


@pytest.mark.slow
async def test_the_command_and_the_example_script_play_over_the_network(live: Live) -> None:
    async def run(*argv: str) -> tuple[int, str, str]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, *argv, cwd=ROOT,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await asyncio.wait_for(proc.communicate(), 30)
        return proc.returncode or 0, out.decode(), err.decode()

    code, out, err = await run(
        "-m", "client_cli", "bot", "--server", live.url, "--strategy", "greedy",
        "--quickplay", "--seats", "1", "--games", "2",
    )  # fmt: skip
    assert code == 0, err
    assert "as a bot" in out and out.count("rank 1 of 1") == 2 and "2 games: 2 won" in out

    code, out, err = await run(str(EXAMPLE), "--server", live.url, "--quickplay", "--seats", "1")
    assert code == 0, err
    assert "my bot (bot)" in out

    code, out, err = await run(
        "-m", "client_cli", "bot", "--server", live.url, "--strategy", "nope", "--quickplay"
    )  # fmt: skip
    assert code == 2 and out == "" and err.count("\n") == 1 and "unknown strategy 'nope'" in err


def test_strategies_load_by_name_file_or_module(tmp_path: Path) -> None:
    view = BotView((None,) * 16, Card.parse("5H"))
    for spec in ("random", "greedy", "expert", str(EXAMPLE), f"{EXAMPLE}:choose"):
        assert 0 <= cell_index(load_chooser(spec)(view)) < 16
    assert load_chooser("json:dumps") is json.dumps
    mine = tmp_path / "corner.py"
    mine.write_text("def corner(view):\n    return 'd4'\n")
    assert load_chooser(f"{mine}:corner")(view) == "d4"
    for spec, problem in [
        ("nope", "unknown strategy"),
        (f"{tmp_path}/missing.py", "no bot file"),
        (f"{mine}", "has no function choose"),
        ("no_such_module_here:f", "cannot import"),
    ]:
        with pytest.raises(BotError, match=problem):
            load_chooser(spec)


def test_cells_are_indices_or_names() -> None:
    assert cell_index(0) == 0 and cell_index("b2") == 5 and cell_index("D4") == 15
    for bad in (16, -1, "e1", None, True, 2.0):
        with pytest.raises(ValueError):
            cell_index(bad)
    assert default_name("examples/my_bot.py:choose") == "my_bot bot"
    assert default_name("expert") == "expert bot"


@pytest.mark.slow
async def test_a_queued_bot_is_taken_by_a_person_whose_wait_for_a_person_ran_out(
    live: Live,
) -> None:
    from tests.server.live import signed_in

    bot = BotClient(live.url, load_chooser("greedy"), name="queue bot", say=quiet)
    playing = asyncio.create_task(bot.run(Plan(queue=True, best_of=3)))
    await asyncio.sleep(0.5)  # the bot waits in the queue
    person = await signed_in(live, "pat")
    await person.send(type="quickplay", deals=3, bot_after_ms=200)
    matched = None
    while matched is None or matched["state"] != "matched":
        matched = await person.until("queue")
    room_id = matched["room_id"]
    while True:
        result = await person.play_to_end(room_id)
        if result["series"]["finished"]:
            break
    outcomes = await playing  # one per deal of the series
    assert outcomes and {o.room_id for o in outcomes} == {room_id}
    assert {(b["player"]["name"], b["player"]["bot"]) for b in result["boards"]} == {
        ("pat", False),
        ("queue bot", True),
    }
    await person.close()


async def test_the_bot_sees_the_board_the_client_model_folds_from_the_messages(
    live: Live,
) -> None:
    """The bot keeps no board of its own: each view it is asked about is the client
    model's board before that turn, as the server's stored placements replay it."""
    views: list[BotView] = []
    choose = load_chooser(f"{EXAMPLE}:choose")

    def watching(view: BotView) -> object:
        views.append(view)
        return choose(view)

    bot = BotClient(live.url, watching, name="model bot", say=quiet)
    [outcome] = await bot.run(Plan(seats=1, wait_s=5))
    assert outcome.fallbacks == 0 and len(views) == 16
    match = await get_json(f"{live.http}/api/matches/{outcome.match_id}")
    placements = sorted(match["boards"][0]["placements"], key=lambda p: p["turn"])
    board: list[Card | None] = [None] * 16
    for view, placed in zip(views, placements, strict=True):
        assert view.cells == tuple(board) and str(view.card) == placed["card"]
        board[cell_index(placed["cell"])] = Card.parse(placed["card"])
