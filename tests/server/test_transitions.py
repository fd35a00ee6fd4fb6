"""Transitions by construction: every phase change of a room or a tournament goes
through its checked table, a restart's included, and every room command is in the
table of the phases it may be played in."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from protocol.deals import Place
from protocol.rooms import AddBot, JoinRoom, LeaveRoom, Ready, Rematch, Resync, StartMatch
from protocol.tournaments import CreateTournament
from server import errors
from server.room import TRANSITIONS, Phase
from server.room.phases import COMMANDS, RESUMED, require
from server.tournaments import model
from server.tournaments.director import Director
from server.tournaments.formats import settings_for
from tests.server.roomkit import ALICE, make_room

ROOT = Path(__file__).resolve().parents[2]


def phase_writes(folder: str) -> list[str]:
    """Where a module of ``folder`` writes a ``phase`` attribute, but in ``go``."""
    found = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef) or func.name == "go":
                continue
            for node in ast.walk(func):
                targets = node.targets if isinstance(node, ast.Assign) else []
                for target in targets:
                    if isinstance(target, ast.Attribute) and target.attr == "phase":
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} in {func.name}")
    return found


def test_only_go_and_the_constructors_set_a_phase() -> None:
    writes = phase_writes("server/room") + phase_writes("server/tournaments")
    assert [w for w in writes if not w.endswith("in __init__")] == []
    assert len(writes) == 2  # the room's first phase, and the tournament's


def test_a_restart_resumes_a_room_through_the_table_only_where_it_may() -> None:
    for phase, way in RESUMED.items():
        room = make_room(2)
        room.resume_in(phase)
        assert room.phase == phase and way[-1] == phase
        for before, after in zip((Phase.WAITING, *way), way, strict=False):
            assert after in TRANSITIONS[before]
    for phase in (Phase.WAITING, Phase.FINISHED):
        with pytest.raises(ValueError, match="not resumed"):
            make_room(2).resume_in(phase)
    started = make_room(2)
    started.resume_in(Phase.PLAYING)
    with pytest.raises(ValueError, match="not resumed"):
        started.resume_in(Phase.BETWEEN)  # only a room built anew is resumed


def test_a_restart_resumes_a_tournament_in_any_phase_through_the_table() -> None:
    settings = settings_for(
        CreateTournament(name="cup"), 0, between_rounds_ms=0, between_deals_ms=0
    )
    for phase, way in model.RESUMED.items():
        director = Director("t", settings, ALICE, now_ms=0, root_secret="ab" * 32)
        director.resume_in(phase)
        assert director.phase == phase
        for before, after in zip((model.Phase.REGISTERING, *way), way, strict=False):
            assert after in model.TRANSITIONS[before]
    assert set(model.RESUMED) == set(model.Phase)


def test_every_room_command_is_in_the_table_and_no_other_is() -> None:
    assert set(COMMANDS) == {JoinRoom, LeaveRoom, Ready, StartMatch, AddBot, Place, Rematch, Resync}
    with pytest.raises(errors.RoomError) as refused:
        require(Phase.PLAYING, CreateTournament)
    assert refused.value.code == "bad_message"
    with pytest.raises(errors.NotPlaying):
        require(Phase.WAITING, Place)
    for command in (JoinRoom, LeaveRoom, Resync):
        for phase in Phase:
            require(phase, command)  # in every phase


def test_every_tournament_command_is_in_its_table() -> None:
    """Each command a director takes is checked against the tournament's table; an
    action the table does not list is refused as no tournament command."""
    assert set(model.COMMANDS) == {
        "register", "bots", "leave", "watch", "start", "pause", "resume", "cancel", "remove",
    }  # fmt: skip
    settings = settings_for(
        CreateTournament(name="cup"), 0, between_rounds_ms=0, between_deals_ms=0
    )
    director = Director("t", settings, ALICE, now_ms=0, root_secret="ab" * 32)
    with pytest.raises(errors.RoomError) as refused:
        director.manage(ALICE, "explode", 0)
    assert refused.value.code == "bad_message"
    with pytest.raises(errors.TournamentState, match="not paused"):
        director.manage(ALICE, "resume", 0)
    director.resume_in(model.Phase.CANCELLED)
    for command in ("register", "bots", "leave", "start", "pause", "resume", "cancel", "remove"):
        with pytest.raises(errors.TournamentError):
            model.require(director.phase, command)
    model.require(director.phase, "watch")  # watching, in every phase
