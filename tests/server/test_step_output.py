"""One step, one output (server/step.py): Lobby.run returns all a lobby step decided,
its messages included, as one value; nothing is left for the next step, and the
shell takes nothing else from the core."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from protocol.deals import CardDealt, Place
from protocol.fields import Pace, Visibility
from protocol.head_to_head import QueueStatus, QuickPlay
from protocol.rooms import CreateRoom, JoinRoom, StartMatch
from protocol.tournaments import CreateTournament
from server import errors
from server.config import LobbyConfig
from server.events import (
    CardPlaced,
    MatchBegan,
    MatchEnded,
    RatingChanged,
    RoomOpened,
    SeriesBegan,
    SeriesEnded,
    TournamentChange,
    TournamentStatus,
)
from server.lobby import Lobby
from server.room import Outbound
from server.step import RoomNotes, SharedNotes, StepFailed, StepOutput
from tests.server.roomkit import ALICE, BOB, FixedIds, bots

ROOT = Path(__file__).resolve().parents[2]


def test_the_shell_drains_a_step_once_and_nowhere_else() -> None:
    taken: dict[str, list[str]] = {}
    for path in sorted((ROOT / "server" / "shell").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith("take_"):
                taken.setdefault(node.attr, []).append(str(path.relative_to(ROOT)))
    assert taken == {}, taken


def test_the_shell_runs_each_lobby_step_through_run() -> None:
    """Hub.apply is the one place a lobby step is run, and it runs it with Lobby.run."""
    hub = (ROOT / "server" / "shell" / "hub.py").read_text(encoding="utf-8")
    assert hub.count("self.lobby.run(") == 1


def test_one_servers_step_has_no_notes_and_leaves_nothing_behind() -> None:
    lobby = Lobby(LobbyConfig(), ids=FixedIds(), bots=bots)
    output = lobby.run(lambda: lobby.handle(ALICE, CreateRoom(name="open", seats=2), 0))
    assert any(isinstance(e, RoomOpened) for e in output.events) and output.notes is None
    assert output.messages and output.messages[0].to == (ALICE.id,)
    again = lobby.run(list)  # a step that does nothing: nothing was left behind
    assert again == StepOutput([], [], None, [])


def test_a_refused_command_raises_and_notes_nothing() -> None:
    lobby = Lobby(LobbyConfig(), ids=FixedIds(), bots=bots)
    with pytest.raises(errors.RoomError):
        lobby.run(lambda: lobby.handle(ALICE, JoinRoom(room_id="nowhere"), 0))
    assert lobby.run(list) == StepOutput([], [], None, [])


def test_a_shared_lobby_notes_in_the_output_what_the_other_nodes_hear_of() -> None:
    lobby = Lobby(LobbyConfig(), ids=FixedIds(), bots=bots)
    lobby.share()
    created = CreateRoom(name="open", seats=2, visibility=Visibility.PUBLIC)
    output = lobby.run(lambda: lobby.handle(ALICE, created, 0))
    room = lobby.rooms[next(iter(lobby.rooms))]
    outs = output.messages
    assert outs and room.id in [o.message.room.id for o in outs if hasattr(o.message, "room")]
    notes = output.notes
    assert notes is not None
    assert notes.rooms.opened == [room] and notes.rooms.touched == {room.id: room}
    assert notes.rooms.seated == [(room.id, ALICE.id)] and notes.rooms.closed == []

    notes = lobby.run(lambda: lobby.handle(BOB, JoinRoom(room_id=room.id), 0)).notes  # once
    assert notes is not None and notes.rooms.seated == [(room.id, BOB.id)]
    assert notes.rooms.opened == [] and notes.rooms.touched == {room.id: room}
    assert lobby.run(list).notes == SharedNotes()  # nothing left behind

    lobby.run(lambda: lobby.handle(ALICE, QuickPlay(pace=Pace.RACE, deals=1, contribution="a"), 0))
    notes = lobby.run(
        lambda: lobby.handle(BOB, QuickPlay(pace=Pace.RACE, deals=1, contribution="b"), 0)
    ).notes
    assert notes is not None and len(notes.paired) == 1
    assert [r.id for r in notes.rooms.opened] == notes.paired


def test_a_quick_play_duel_step_by_step_on_the_fake_clock() -> None:
    """A shared lobby driven step by step, on a clock only the test moves: each step's
    output compared whole (its events by kind and the placements by content, its bots'
    turns, its notes for the other nodes)."""
    lobby = Lobby(LobbyConfig(), ids=FixedIds(), bots=bots)
    lobby.share()
    for player in (ALICE, BOB):
        connected = lobby.run(lambda: lobby.connect(player, 0))  # noqa: B023 (run at once)
        assert connected == StepOutput([], [], SharedNotes(), connected.messages)
    queued = QuickPlay(pace=Pace.LOCKSTEP, deals=1, contribution="a")
    waits = lobby.run(lambda: lobby.handle(ALICE, queued, 0))
    assert waits == StepOutput([], [], SharedNotes(waiting={ALICE.id}), waits.messages)
    assert [type(o.message) for o in waits.messages] == [QueueStatus]

    paired = lobby.run(
        lambda: lobby.handle(BOB, QuickPlay(pace=Pace.LOCKSTEP, deals=1, contribution="b"), 10)
    )
    outs = paired.messages
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
            output = lobby.run(lambda: lobby.handle(player, place, now))  # noqa: B023
            outs = output.messages
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

    ticked = lobby.run(lambda: lobby.tick(now + LobbyConfig().finished_ttl_ms))  # forgotten
    assert ticked == StepOutput([], [], SharedNotes(RoomNotes(closed=[room])), [])
    assert lobby.rooms == {}


def test_a_room_tick_that_fails_half_done_still_hands_over_what_it_decided(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One broken room must not stop the clock of the others, and what it had
    decided before it failed is stored with the step, not kept in the room."""
    lobby = Lobby(LobbyConfig(), ids=FixedIds(), bots=bots)
    lobby.run(lambda: lobby.handle(ALICE, CreateRoom(name="broken", seats=2), 0))
    (room,) = lobby.rooms.values()
    decided = MatchEnded("m", "5H", (), 5, ())

    def tick(now_ms: int) -> object:
        room.note(decided)
        raise RuntimeError("a bug, half way through the step")

    monkeypatch.setattr(room, "tick", tick)
    lobby.alarms.set(room.id, 5)
    output = lobby.run(lambda: lobby.tick(5))
    assert output.events == [decided]
    assert room.conclude([]).events == []  # the room kept nothing of it


def test_no_part_of_the_core_keeps_an_outbox_of_events_bot_turns_or_requests() -> None:
    """A room, a director, a desk and the lobby hand over what a step decided as its
    result: none of them (nor the registry) defines a ``take_`` method that takes
    events, bots' turns, requests or notes from it afterwards."""
    found: list[str] = []
    for path in sorted((ROOT / "server").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            named = isinstance(node, ast.FunctionDef) and node.name.startswith("take_")
            if named:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")  # type: ignore[union-attr]
    assert found == []


def test_a_tournament_tick_that_fails_half_done_still_hands_over_what_it_decided(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lobby = Lobby(LobbyConfig(), ids=FixedIds(), bots=bots)
    cup = CreateTournament(name="cup", format="swiss", rounds=2)  # type: ignore[arg-type]
    lobby.run(lambda: lobby.handle(ALICE, cup, 0))
    (director,) = lobby.tournaments.directors.values()
    decided = TournamentStatus(director.id, TournamentChange.PAUSED, None, 5)

    def tick(now_ms: int) -> object:
        director.note(decided)
        raise RuntimeError("a bug, half way through the step")

    monkeypatch.setattr(director.play, "tick", tick)  # the bug inside the director's step
    lobby.tournaments.alarms.set(director.id, 5)
    output = lobby.run(lambda: lobby.tick(5))
    assert decided in output.events
    assert director.step_at is None  # the director kept nothing of it
    lobby.tournaments.alarms.set(director.id, 6)
    monkeypatch.undo()
    assert decided not in lobby.run(lambda: lobby.tick(6)).events


def test_a_step_a_bug_cuts_short_hands_over_what_it_decided_and_leaves_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A room's step raises after it noted a placement (a bug in what follows it):
    Lobby.run raises StepFailed from the bug with that placement in its output, and
    neither the room nor the lobby keeps anything of it for the next step."""
    lobby = Lobby(LobbyConfig(), ids=FixedIds(), bots=bots)
    lobby.run(lambda: lobby.handle(ALICE, CreateRoom(name="open", seats=2), 0))
    [room] = lobby.rooms.values()
    lobby.run(lambda: lobby.handle(BOB, JoinRoom(room_id=room.id), 0))
    lobby.run(lambda: lobby.handle(ALICE, StartMatch(room_id=room.id), 0))
    bug = RuntimeError("a bug after the placement was noted")

    def advance(now_ms: int, placed_by: str | None = None) -> list[Outbound]:
        raise bug

    monkeypatch.setattr(room.dealer, "advance", advance)
    with pytest.raises(StepFailed) as raised:
        lobby.run(lambda: lobby.handle(ALICE, Place(room_id=room.id, turn=1, cell="b2"), 5))
    assert raised.value.__cause__ is bug
    [placed] = raised.value.output.events
    assert isinstance(placed, CardPlaced) and (placed.player_id, placed.cell) == (ALICE.id, "b2")
    assert raised.value.output.messages == [] and room.step_at is None
    assert lobby.run(list) == StepOutput([], [], None, [])


def test_a_room_let_go_or_withdrawn_outside_a_step_notes_nothing() -> None:
    """Lobby.release and Lobby.withdraw are the shell's, outside any step: they leave
    no note for the next step (the node settles the room's listing and lease)."""
    lobby = Lobby(LobbyConfig(), ids=FixedIds(), bots=bots)
    lobby.share()
    public = CreateRoom(name="open", seats=2, visibility=Visibility.PUBLIC)
    for player in (ALICE, BOB):
        lobby.run(lambda: lobby.handle(player, public, 0))  # noqa: B023 (run at once)
    first, second = lobby.rooms.values()
    lobby.release(first.id)
    rooms, notices = lobby.withdraw([second.opened()])
    assert rooms == [second] and notices and lobby.rooms == {}
    assert lobby.run(list).notes == SharedNotes()


def test_no_machine_keeps_a_clock_between_steps() -> None:
    """The time is an argument of the steps: a room or a director holds no ``now``,
    only the time of a step being run, gone once the step has concluded; and an
    entry point that takes no time cannot be made."""
    from server.room import RoomResult
    from server.stepping import step

    lobby = Lobby(LobbyConfig(), ids=FixedIds(), bots=bots)
    lobby.run(lambda: lobby.handle(ALICE, CreateRoom(name="open", seats=2), 0))
    cup = CreateTournament(name="cup", format="swiss", rounds=2)  # type: ignore[arg-type]
    lobby.run(lambda: lobby.handle(ALICE, cup, 0))
    [room] = lobby.rooms.values()
    [director] = lobby.tournaments.directors.values()
    for machine in (room, director):
        assert not hasattr(machine, "now") and machine.step_at is None
    with pytest.raises(TypeError, match="now_ms"):

        @step(RoomResult)
        def timeless(machine: object) -> list[Outbound]:
            return []
