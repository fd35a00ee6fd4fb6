"""One step, one output (server/step.py): what a lobby step decided besides its
messages is taken in one piece right after it, nothing is left for the next step,
and the shell takes it nowhere else."""

from __future__ import annotations

import ast
from pathlib import Path

from protocol.deals import CardDealt, Place
from protocol.fields import Pace, Visibility
from protocol.head_to_head import QuickPlay
from protocol.rooms import CreateRoom, JoinRoom
from server.config import LobbyConfig
from server.events import (
    CardPlaced,
    MatchBegan,
    MatchEnded,
    RatingChanged,
    RoomOpened,
    SeriesBegan,
    SeriesEnded,
)
from server.lobby import Lobby
from server.registry import RoomNotes
from server.step import SharedNotes, StepOutput
from tests.server.roomkit import ALICE, BOB, FixedIds, bots

ROOT = Path(__file__).resolve().parents[2]


def test_the_shell_drains_a_step_once_and_nowhere_else() -> None:
    taken: dict[str, list[str]] = {}
    for path in sorted((ROOT / "server" / "shell").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith("take_"):
                taken.setdefault(node.attr, []).append(str(path.relative_to(ROOT)))
    assert taken == {"take_output": ["server/shell/hub.py"]}, taken


def test_one_servers_step_has_no_notes_and_leaves_nothing_behind() -> None:
    lobby = Lobby(LobbyConfig(), ids=FixedIds(), bots=bots)
    lobby.handle(ALICE, CreateRoom(name="open", seats=2), 0)
    output = lobby.take_output()
    assert any(isinstance(e, RoomOpened) for e in output.events) and output.notes is None
    again = lobby.take_output()
    assert (again.events, again.bot_turns, again.notes) == ([], [], None)


def test_a_shared_lobby_notes_in_the_output_what_the_other_nodes_hear_of() -> None:
    lobby = Lobby(LobbyConfig(), ids=FixedIds(), bots=bots)
    lobby.share()
    outs = lobby.handle(ALICE, CreateRoom(name="open", seats=2, visibility=Visibility.PUBLIC), 0)
    room = lobby.rooms[next(iter(lobby.rooms))]
    assert outs and room.id in [o.message.room.id for o in outs if hasattr(o.message, "room")]
    notes = lobby.take_output().notes
    assert notes is not None
    assert notes.rooms.opened == [room] and notes.rooms.touched == {room.id: room}
    assert notes.rooms.seated == [(room.id, ALICE.id)] and notes.rooms.closed == []

    lobby.handle(BOB, JoinRoom(room_id=room.id), 0)  # a seat taken: noted, once
    notes = lobby.take_output().notes
    assert notes is not None and notes.rooms.seated == [(room.id, BOB.id)]
    assert notes.rooms.opened == [] and notes.rooms.touched == {room.id: room}
    assert lobby.take_output().notes == SharedNotes()  # nothing left behind

    lobby.handle(ALICE, QuickPlay(pace=Pace.RACE, deals=1, contribution="a"), 0)
    lobby.take_output()
    lobby.handle(BOB, QuickPlay(pace=Pace.RACE, deals=1, contribution="b"), 0)
    notes = lobby.take_output().notes
    assert notes is not None and len(notes.paired) == 1
    assert [r.id for r in notes.rooms.opened] == notes.paired


def test_a_quick_play_duel_step_by_step_on_the_fake_clock() -> None:
    """A shared lobby driven step by step, on a clock only the test moves: each step's
    output compared whole (its events by kind and the placements by content, its bots'
    turns, its notes for the other nodes)."""
    lobby = Lobby(LobbyConfig(), ids=FixedIds(), bots=bots)
    lobby.share()
    for player in (ALICE, BOB):
        lobby.connect(player, 0)
        assert lobby.take_output() == StepOutput([], [], SharedNotes())
    lobby.handle(ALICE, QuickPlay(pace=Pace.LOCKSTEP, deals=1, contribution="a"), 0)
    assert lobby.take_output() == StepOutput([], [], SharedNotes(waiting={ALICE.id}))

    outs = lobby.handle(BOB, QuickPlay(pace=Pace.LOCKSTEP, deals=1, contribution="b"), 10)
    paired = lobby.take_output()
    [room] = lobby.rooms.values()
    assert [type(e) for e in paired.events] == [RoomOpened, SeriesBegan, MatchBegan]
    assert paired.bot_turns == []
    seated = [(room.id, ALICE.id), (room.id, BOB.id)]
    assert paired.notes == SharedNotes(
        RoomNotes(opened=[room], seated=seated), paired=[room.id], waiting={ALICE.id, BOB.id}
    )

    cells = {o.to[0]: o.message.legal[0] for o in outs if isinstance(o.message, CardDealt)}
    now = 10
    for turn in range(1, 17):
        for player in (ALICE, BOB):
            now += 100
            place = Place(room_id=room.id, turn=turn, cell=cells[player.id])
            outs = lobby.handle(player, place, now)
            output = lobby.take_output()
            kinds = [type(e) for e in output.events]
            last = turn == 16 and player is BOB
            assert kinds == (
                [CardPlaced, MatchEnded, SeriesEnded, RatingChanged, RatingChanged]
                if last
                else [CardPlaced]
            ), (turn, player.id, kinds)
            placed = output.events[0]
            assert isinstance(placed, CardPlaced)
            assert (placed.player_id, placed.turn, placed.cell, placed.auto, placed.at_ms) == (
                player.id, turn, cells[player.id], False, now
            )  # fmt: skip
            assert output.bot_turns == [] and output.notes == SharedNotes()
            cells |= {o.to[0]: o.message.legal[0] for o in outs if isinstance(o.message, CardDealt)}

    lobby.tick(now + LobbyConfig().finished_ttl_ms)  # the finished room leaves memory
    assert lobby.take_output() == StepOutput([], [], SharedNotes(RoomNotes(closed=[room])))
    assert lobby.rooms == {}
