"""A client checks its own contribution only in the room it sent it for.

A player who sat in an earlier room and then plays the daily deal, or watches a
room, was told "DEAL NOT VERIFIED: my contribution was used, at my seat" on
honest deals: the model compared the daily deal's one contribution (the day's
name) with the one it had sent for the earlier room. Each case below: the same
player, an earlier room played and verified first, then the deal in question,
honest (verified) and altered in transit (not verified, the failing check named).
"""

from __future__ import annotations

import hashlib

import pytest

from client_cli.model.state import ClientModel
from engine import Grid, commitment, deal, room_seed, score_board
from engine.grid import cell_name
from protocol.connection import Welcome
from protocol.deals import (
    BoardResult,
    BoardScoreOut,
    CardDealt,
    MatchResult,
    MatchStarted,
    Placed,
    PlacementOut,
)
from protocol.fields import PlayerInfo
from protocol.rooms import RoomInfo, RoomState

ME = PlayerInfo(id="p1", name="ada")
OTHER = PlayerInfo(id="p2", name="bo")


def secret_of(room_id: str) -> str:
    return hashlib.sha256(room_id.encode()).hexdigest()


def room(room_id: str, origin: str, seated: bool) -> RoomInfo:
    player = ME if seated else OTHER
    return RoomInfo.model_validate(
        {
            "id": room_id,
            "name": room_id,
            "visibility": "public",
            "pace": "lockstep",
            "seats": 1,
            "status": "playing",
            "card_clock_ms": 30000,
            "deal_clock_ms": 300000,
            "creator": player.model_dump(),
            "players": [{"seat": 0, "player": player.model_dump(), "ready": True}],
            "server_commitment": commitment(secret_of(room_id)),
            "origin": origin,
        }
    )


def play(
    model: ClientModel,
    room_id: str,
    contributions: list[str],
    *,
    origin: str = "room",
    seated: bool = True,
    sent: list[str] | None = None,
) -> MatchResult:
    """A deal of ``room_id`` from the server's secret and ``contributions``, as the model
    sees it (``sent``: the contributions match_started carries, altered in transit when
    they differ); its result, applied."""
    secret = secret_of(room_id)
    seed = room_seed(secret, contributions)
    model.apply(RoomState(room=room(room_id, origin, seated)), 0.0)
    model.apply(
        MatchStarted(
            room_id=room_id, match_id=f"m-{room_id}", pace="lockstep",
            seed_commitment=commitment(seed), server_commitment=commitment(secret),
            contributions=sent if sent is not None else contributions,
            card_clock_ms=30000, deal_clock_ms=300000,
        ),
        0.0,
    )  # fmt: skip
    dealt, grid = deal(seed), Grid()
    for turn, card in enumerate(dealt.cards, start=1):
        cell = grid.legal_cells()[0]
        if seated:
            legal = [cell_name(i) for i in grid.legal_cells()]
            model.apply(
                CardDealt(room_id=room_id, turn=turn, card=str(card), legal=legal,
                          deadline_ms=30000),
                float(turn),
            )  # fmt: skip
            model.apply(
                Placed(room_id=room_id, turn=turn, cell=cell_name(cell), card=str(card)),
                float(turn),
            )
        grid.place(cell, card)
    result = MatchResult(
        room_id=room_id, match_id=f"m-{room_id}", starter=str(dealt.starter), seed=seed,
        server_secret=secret, seed_commitment=commitment(seed),
        boards=[BoardResult(
            player=ME if seated else OTHER, seat=0, rank=1,
            cells=[str(c) if c else None for c in grid.cells()],
            placements=[
                PlacementOut(turn=t, cell=cell_name(grid.cells().index(c)), card=str(c))
                for t, c in enumerate(dealt.cards, start=1)
            ],
            score=BoardScoreOut.model_validate(score_board(grid.cells(), dealt.starter).to_dict()),
            time_used_ms=0,
        )],
    )  # fmt: skip
    model.apply(result, 20.0)
    return result


def labels(model: ClientModel) -> list[str]:
    assert model.match is not None and model.match.verification is not None
    return [check.label for check in model.match.verification.checks]


def after_an_earlier_room() -> ClientModel:
    model = ClientModel("ws://x/ws")
    model.apply(Welcome(server="test", player=ME), 0.0)
    mine = model.new_contribution()
    play(model, "r-first", [mine])
    assert model.match is not None and model.match.verification is not None
    assert model.match.verification.ok, model.match.verification.summary
    assert "my contribution was used, at my seat" in labels(model)
    return model


def test_the_daily_deal_after_an_earlier_room_is_verified() -> None:
    model = after_an_earlier_room()
    play(model, "r-daily", ["2026-12-06"], origin="daily")  # the day's name, no one's
    assert model.match is not None and model.match.verification is not None
    assert model.match.verification.ok, model.match.verification.summary
    assert "my contribution was used, at my seat" not in labels(model)


def test_a_room_watched_after_playing_one_is_verified() -> None:
    model = after_an_earlier_room()
    play(model, "r-watched", ["theirs"], seated=False)
    assert model.match is not None and model.match.verification is not None
    assert model.match.verification.ok, model.match.verification.summary
    assert "my contribution was used, at my seat" not in labels(model)


@pytest.mark.parametrize("origin", ["room", "quickplay", "challenge"])
def test_the_next_room_checks_the_contribution_sent_for_it(origin: str) -> None:
    model = after_an_earlier_room()
    mine = model.new_contribution()
    play(model, "r-next", [mine], origin=origin)
    assert model.match is not None and model.match.verification is not None
    assert model.match.verification.ok, model.match.verification.summary
    assert "my contribution was used, at my seat" in labels(model)


def test_a_contribution_altered_in_transit_is_named() -> None:
    model = after_an_earlier_room()
    mine = model.new_contribution()
    play(model, "r-next", [mine], sent=["someone else's"])
    assert model.match is not None and model.match.verification is not None
    failed = [c.label for c in model.match.verification.checks if not c.ok]
    assert not model.match.verification.ok
    assert "my contribution was used, at my seat" in failed
    assert "the seed comes from the server's secret and every contribution" in failed


def test_a_daily_deal_altered_in_transit_is_not_verified() -> None:
    model = after_an_earlier_room()
    play(model, "r-daily", ["2026-12-06"], origin="daily", sent=["2026-12-07"])
    assert model.match is not None and model.match.verification is not None
    failed = [c.label for c in model.match.verification.checks if not c.ok]
    assert failed == ["the seed comes from the server's secret and every contribution"]
