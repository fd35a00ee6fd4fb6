"""A tournament's answer is written once until it changes (TournamentDesk.answer): what
get_tournament and a member signing in receive is byte for byte the update the
director would build now, at every step of a tournament's life."""

from __future__ import annotations

from protocol.prepared import TournamentText, tournament_update
from protocol.tournaments import (
    AddTournamentBot,
    CreateTournament,
    GetTournament,
    JoinTournament,
    ManageTournament,
    TournamentUpdate,
)
from protocol.wire import dump_server
from server.lobby import Lobby
from tests.server.roomkit import ALICE, BOB
from tests.server.tournaments.test_director import create, lobby


def asked(lb: Lobby, tid: str, now: int, ref: str | None = "r1") -> str:
    (out,) = lb.handle(ALICE, GetTournament(tournament_id=tid, ref=ref), now)
    assert out.to == (ALICE.id,)
    return out.text()


def fresh(lb: Lobby, tid: str, now: int, ref: str | None = "r1") -> str:
    return dump_server(lb.tournaments.directors[tid].update(now, ref))


def test_the_written_answer_is_the_fresh_one_at_every_step_of_a_swiss() -> None:
    lb = lobby(between_rounds_ms=3_000)
    d = create(lb, format="swiss", rounds=3, pace="race", deal_clock_ms=60_000,
               start_in_ms=10_000)  # fmt: skip
    assert asked(lb, d.id, 0) == fresh(lb, d.id, 0)
    assert asked(lb, d.id, 1_234) == fresh(lb, d.id, 1_234)  # the countdown moved alone
    lb.handle(BOB, JoinTournament(tournament_id=d.id), 2_000)
    assert asked(lb, d.id, 2_000) == fresh(lb, d.id, 2_000)  # a command changed it
    lb.handle(ALICE, AddTournamentBot(tournament_id=d.id, strategy="greedy", count=3), 2_500)
    lb.handle(ALICE, ManageTournament(tournament_id=d.id, action="start"), 3_000)
    phases = set()
    now = 3_000
    while not d.over:  # the clock and the tables move it on: rounds, results, the end
        now += 700
        lb.tick(now)
        phases.add(d.phase)
        for ref in ("r2", None):
            assert asked(lb, d.id, now, ref) == fresh(lb, d.id, now, ref), (now, d.phase)
    assert len(phases) >= 3, phases
    assert asked(lb, d.id, now + 5) == fresh(lb, d.id, now + 5)


def test_a_ref_that_must_be_escaped_is_written_by_the_model() -> None:
    lb = lobby()
    d = create(lb, format="duplicate", rounds=2)
    for ref in ('quote " and \\ back', "café", "tab\there"):
        assert asked(lb, d.id, 10, ref) == fresh(lb, d.id, 10, ref)
    written = TournamentText.of(d.info(10))
    update = tournament_update(written, 5, None, "x")
    assert update.model() == TournamentUpdate.model_validate_json(update.text)


def test_a_member_signing_in_is_sent_the_same_answer() -> None:
    lb = lobby()
    outs = lb.handle(ALICE, CreateTournament(name="cup", format="duplicate"), 0)
    tid = next(o.message.tournament.id for o in outs if isinstance(o.message, TournamentUpdate))
    lb.handle(BOB, JoinTournament(tournament_id=tid), 10)
    (snapshot,) = lb.tournaments.connect(BOB, 20)
    assert snapshot.to == (BOB.id,) and snapshot.text() == fresh(lb, tid, 20, None)
