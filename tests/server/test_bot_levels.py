"""The server's bot levels: listed with their ratings, chosen for quick play, each bot
seat a style of its own (a Swiss of one level ends without a tie), and rebuilt the
same after a restart from its stored level and seed."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.connection import ErrorMessage
from protocol.head_to_head import Bots, ListBots, QueueStatus, QuickPlay
from protocol.rooms import AddBot, Ready
from protocol.tournaments import AddTournamentBot, CreateTournament, ManageTournament
from server import errors
from server.bots import bot_factory, bot_levels, think
from server.events import MatchEnded
from server.lobby import Lobby, LobbyConfig
from server.room.restore import restore as restore_room
from server.storage import Storage, StoredPlayer
from server.tournaments.model import Phase
from tests.server.roomkit import ALICE, BOB, FixedIds, Mailbox, answer_bots, make_room, place


def lobby(**config: object) -> Lobby:
    return Lobby(
        LobbyConfig(between_rounds_ms=1_000, **config),  # type: ignore[arg-type]
        ids=FixedIds(),
        bots=bot_factory,
        levels=bot_levels(),
    )


def test_list_bots_answers_the_ladder_with_each_levels_rating() -> None:
    lb = lobby()
    lb.connect(ALICE, 0)
    [out] = lb.handle(ALICE, ListBots(ref="lv"), 0)
    reply = out.message
    assert isinstance(reply, Bots) and out.to == (ALICE.id,) and reply.ref == "lv"
    assert [lv.name for lv in reply.levels] == [f"level-{n}" for n in range(1, 9)]
    assert reply.quickplay_bot == "expert"
    assert {a for lv in reply.levels for a in lv.aliases} == {"random", "greedy", "expert"}
    ratings = [lv.rating for lv in reply.levels]
    assert all(r is not None for r in ratings) and ratings == sorted(ratings)  # type: ignore[type-var]


def test_quick_play_seats_the_bot_level_asked_for_and_refuses_an_unknown_one() -> None:
    lb = lobby()
    lb.connect(ALICE, 0)
    with pytest.raises(errors.UnknownStrategy):
        lb.handle(ALICE, QuickPlay(bot_after_ms=0, bot_level="level-9"), 0)
    outs = lb.handle(ALICE, QuickPlay(bot_after_ms=0, bot_level="level-2"), 0) + lb.tick(1)
    states = [o.message for o in outs if isinstance(o.message, QueueStatus)]
    assert [q.state for q in states] == ["waiting", "matched"]
    room = lb.rooms[states[1].room_id]  # type: ignore[index]
    bot = room.seats[1]
    assert (bot.player.id, bot.strategy, bot.player.bot) == ("bot-level-2-1", "level-2", True)
    assert not room.settings.rated


def test_a_swiss_of_one_levels_bots_ends_without_a_tie_on_any_tie_break() -> None:
    """Eight level-5 bots, four rounds: their boards differ, so the standings do too.
    The same Swiss of bots that all place alike (the fallback rule) ties everyone."""

    def swiss(strategy: str) -> tuple[list[tuple[int, str]], list[MatchEnded]]:
        lb = lobby()
        lb.connect(ALICE, 0)
        cup = CreateTournament(name="cup", format="swiss", rounds=4, card_clock_ms=10_000)
        lb.handle(ALICE, cup, 0)
        (director,) = lb.tournaments.directors.values()
        lb.handle(ALICE, AddTournamentBot(tournament_id=director.id, strategy=strategy, count=8), 0)
        start = ManageTournament(tournament_id=director.id, action="start")
        events = lb.run(lambda: lb.handle(ALICE, start, 0)).events
        now = 0
        for _ in range(200):  # rounds, and the pauses between them
            if director.phase == Phase.FINISHED:
                break
            now += 1_000
            events += lb.run(lambda: lb.tick(now)).events  # noqa: B023
        assert director.phase == Phase.FINISHED
        standings = [(s.rank, s.player.id) for s in director.standings()]
        return standings, [e for e in events if isinstance(e, MatchEnded)]

    standings, ended = swiss("level-5")
    assert sorted(rank for rank, _ in standings) == list(range(1, 9))
    # Round 1 dealt the same cards to the four tables: eight different boards.
    first_round = ended[:4]
    boards = {o.cells for e in first_round for o in e.outcomes}
    assert len(boards) == 8
    clones, _ = swiss("fallback")
    assert {rank for rank, _ in clones} == {1}


async def test_a_restart_rebuilds_each_bot_from_its_stored_level_and_seed(tmp_path: Path) -> None:
    """Levels whose names hold a dash, in a room whose bots think elsewhere: the
    restored seats play exactly the moves the original seats would have."""
    storage = await Storage.open(tmp_path / "db", opened_ms=0)
    await storage.create_player(StoredPlayer(ALICE.id, ALICE.name, False, False), "h1", 0)
    room = make_room(3, think_elsewhere=True, strategies=bot_factory)
    box = Mailbox.opening(room)
    for level in ("level-3", "level-6"):
        box.add(room.handle(ALICE, AddBot(room_id=room.id, strategy=level), 0))
    box.add(room.handle(ALICE, Ready(room_id=room.id), 0))
    for turn in range(1, 6):
        answer_bots(room, box, turn * 10)
        place(room, box, ALICE, turn * 10 + 5)
    await storage.persist(box.take_events())
    (saved,) = await storage.unfinished()
    assert saved.seat_bots[1:] == (
        ("level-3", "room1/bot-level-3-1"),
        ("level-6", "room1/bot-level-6-1"),
    )
    again = restore_room(saved, 1_000, bots=bot_factory, think_elsewhere=True)
    for seat, old in zip(again.seats, room.seats, strict=True):
        assert (seat.strategy, seat.bot_seed) == (old.strategy, old.bot_seed)
    asked = {t.player_id: t for t in again.resume(1_000).bot_turns}
    original = {t.player_id: t for t in box.take_bot_turns()}
    assert set(asked) == {"bot-level-3-1", "bot-level-6-1"}
    for pid, turn in asked.items():
        assert turn == original[pid]  # the same question ...
        assert think(turn) == think(original[pid])  # ... and so the same answer
    await storage.close()


def test_people_and_bots_keep_their_error_replies() -> None:
    lb = lobby()
    lb.connect(BOB, 0)
    with pytest.raises(errors.NotRateable):
        lb.handle(BOB, QuickPlay(arena=True), 0)
    assert not isinstance(lb.handle(BOB, ListBots(), 0)[0].message, ErrorMessage)
