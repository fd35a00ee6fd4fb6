"""Head-to-head play in the client model: series, the hash chain of a series'
secrets, rematches, quick play, challenges, ratings and the leaderboard.

Plain data in, the model's state and lines out: no server, no screen.
"""

from __future__ import annotations

from typing import Any

from client_cli.model.checks import verify_result
from client_cli.model.state import ClientModel
from client_cli.model.text import rating_text, series_text
from client_cli.model.views import Connection, View
from engine import Grid, commitment, deal, room_seed, score_board
from engine.grid import cell_name
from engine.verification import chain_back
from protocol.connection import Welcome
from protocol.deals import (
    BoardResult,
    BoardScoreOut,
    CardDealt,
    MatchResult,
    MatchStarted,
    Placed,
    PlacementOut,
    SeriesInfo,
    YourBoard,
)
from protocol.fields import PlayerInfo
from protocol.head_to_head import ChallengeUpdate, Leaderboard, QueueStatus, RatingsChanged
from protocol.rooms import Left, RoomInfo, RoomState, RoomUpdate

ME = PlayerInfo(id="p1", name="ada")
BOB = PlayerInfo(id="p2", name="bob")
CONTRIBUTIONS = ["mine", "theirs"]


def chain(deals: int, last: str = "z" * 64) -> tuple[str, list[str]]:
    """A series' secrets built backwards from the last: (room commitment, [s1, s2, ...])."""
    secrets = [last]
    for _ in range(deals - 1):
        secrets.insert(0, commitment(secrets[0]))
    return commitment(secrets[0]), secrets


ROOM_COMMITMENT, SECRETS = chain(3)


def room(**extra: Any) -> RoomInfo:
    data: dict[str, Any] = {
        "id": "r1",
        "name": "duel",
        "visibility": "public",
        "pace": "lockstep",
        "seats": 2,
        "status": "playing",
        "card_clock_ms": 30000,
        "deal_clock_ms": 300000,
        "creator": ME.model_dump(),
        "players": [
            {"seat": 0, "player": ME.model_dump(), "ready": True},
            {"seat": 1, "player": BOB.model_dump(), "ready": True},
        ],
        "server_commitment": ROOM_COMMITMENT,
        "deals": 3,
        "rated": True,
        "origin": "quickplay",
    }
    data.update(extra)
    return RoomInfo.model_validate(data)


def standing(player: PlayerInfo, won: int, points: int = 0, forfeited: bool = False) -> dict:  # type: ignore[type-arg]
    return {
        "player": player.model_dump(),
        "deals_won": won,
        "points": points,
        "time_used_ms": 0,
        "forfeited": forfeited,
    }


def series(
    deal_no: int, mine: int, theirs: int, *, finished: bool = False, next_ms: int | None = None
) -> SeriesInfo:
    rows = [standing(ME, mine, 60 * deal_no), standing(BOB, theirs, 50 * deal_no)]
    if theirs > mine:
        rows.reverse()
    winner = None
    if finished and mine != theirs:
        winner = (ME if mine > theirs else BOB).model_dump()
    return SeriesInfo.model_validate(
        {
            "best_of": 3,
            "deal": deal_no,
            "standings": rows,
            "finished": finished,
            "winner": winner,
            "next_deal_ms": next_ms,
        }
    )


def model_in_room() -> ClientModel:
    model = ClientModel("ws://x/ws")
    model.apply(Welcome(server="test", player=ME), 0.0)
    model.apply(RoomState(room=room()), 0.0)
    model.contribution = "mine"
    return model


def start(
    model: ClientModel, deal_no: int, announced: str, now: float = 0.0, secret: str = ""
) -> list[str]:
    """Deal ``deal_no`` starts on ``secret`` (default: the chain's), ``announced`` as the
    commitment to it."""
    seed = room_seed(secret or SECRETS[deal_no - 1], CONTRIBUTIONS)
    return model.apply(
        MatchStarted(
            room_id="r1",
            match_id=f"m{deal_no}",
            pace="lockstep",
            seed_commitment=commitment(seed),
            server_commitment=announced,
            contributions=CONTRIBUTIONS,
            card_clock_ms=30000,
            deal_clock_ms=300000,
            deal=deal_no,
            best_of=3,
        ),
        now,
    )


def play(model: ClientModel, secret: str) -> Grid:
    """Deal the 16 cards of ``secret``'s seed and place them row by row."""
    dealt = deal(room_seed(secret, CONTRIBUTIONS))
    grid = Grid()
    for turn, card in enumerate(dealt.cards, start=1):
        legal = [cell_name(i) for i in grid.legal_cells()]
        model.apply(
            CardDealt(room_id="r1", turn=turn, card=str(card), legal=legal, deadline_ms=30000), 1.0
        )
        index = grid.legal_cells()[0]
        grid.place(index, card)
        model.apply(Placed(room_id="r1", turn=turn, cell=cell_name(index), card=str(card)), 1.0)
    return grid


def result(
    deal_no: int, grid: Grid, secret: str, after: SeriesInfo | None, match_id: str = ""
) -> MatchResult:
    seed = room_seed(secret, CONTRIBUTIONS)
    dealt = deal(seed)
    score = BoardScoreOut.model_validate(score_board(grid.cards(), dealt.starter).to_dict())
    cells = [str(c) if c else None for c in grid.cells()]
    placements = [
        PlacementOut(turn=t, cell=cell_name(grid.cells().index(c)), card=str(c))
        for t, c in enumerate(dealt.cards, start=1)
    ]
    boards = [
        BoardResult(
            player=p,
            seat=i,
            rank=1,
            cells=cells,
            placements=placements,
            score=score,
            time_used_ms=0,
        )
        for i, p in enumerate((ME, BOB))
    ]
    return MatchResult(
        room_id="r1",
        match_id=match_id or f"m{deal_no}",
        starter=str(dealt.starter),
        seed=seed,
        server_secret=secret,
        seed_commitment=commitment(seed),
        boards=boards,
        deal=deal_no,
        series=after,
    )


def test_the_chain_of_secrets_leads_back_to_the_rooms_commitment() -> None:
    assert SECRETS[0] == commitment(SECRETS[1]) and SECRETS[1] == commitment(SECRETS[2])
    for k, secret in enumerate(SECRETS, start=1):
        assert chain_back(secret, k) == ROOM_COMMITMENT


def test_a_best_of_three_is_followed_deal_by_deal_and_each_deal_verified() -> None:
    model = model_in_room()
    lines = start(model, 1, ROOM_COMMITMENT)
    assert lines[0].startswith("deal 1 of 3: match m1 started")
    grid = play(model, SECRETS[0])
    lines = model.apply(result(1, grid, SECRETS[0], series(1, 1, 0, next_ms=5000)), 10.0)
    match = model.match
    assert match is not None and match.verification is not None and match.verification.ok
    labels = [c.label for c in match.verification.checks]
    assert "the deal's commitment is the one the room published" in labels
    assert lines[-1] == "deal 1 of 3 \u2014 you lead 1\u20130, next deal in 5s"
    assert model.view == View.RESULTS and not model.series_over()
    assert model.next_in_ms(12.5) == 2500
    # the room update that follows the result counts from its own arrival
    model.apply(RoomUpdate(room=room(series=series(1, 1, 0, next_ms=4000).model_dump())), 11.0)
    assert model.next_in_ms(12.5) == 2500
    assert series_text(model.series, ME, model.next_in_ms(12.5)).endswith("next deal in 3s")

    # deal 2: announced with the secret deal 1 revealed
    start(model, 2, SECRETS[0], now=15.0)
    assert model.view == View.GAME and model.next_deal is None
    grid = play(model, SECRETS[1])
    model.apply(result(2, grid, SECRETS[1], series(2, 1, 1, next_ms=5000)), 20.0)
    v = model.match.verification
    assert v is not None and v.ok, v.summary
    labels = [c.label for c in v.checks]
    assert "deal 2's commitment is the secret revealed by deal 1" in labels
    assert "the secret hashed 2 times is the room's commitment" in labels
    assert series_text(model.series, ME).startswith("deal 2 of 3 \u2014 level 1\u20131")

    start(model, 3, SECRETS[1], now=25.0)
    grid = play(model, SECRETS[2])
    lines = model.apply(result(3, grid, SECRETS[2], series(3, 2, 1, finished=True)), 30.0)
    assert model.match.verification is not None and model.match.verification.ok
    assert lines[-1] == "best of 3, 3 deals \u2014 you won the series 2\u20131"
    assert model.series_over() and model.next_deal is None


def test_a_deal_announced_off_the_chain_is_not_verified() -> None:
    model = model_in_room()
    start(model, 1, ROOM_COMMITMENT)
    model.apply(result(1, play(model, SECRETS[0]), SECRETS[0], series(1, 1, 0, next_ms=10)), 1.0)
    # the server swaps in a secret of its choosing and announces its true commitment
    rogue = "r" * 64
    start(model, 2, commitment(rogue), secret=rogue)
    grid = play(model, rogue)
    model.apply(result(2, grid, rogue, series(2, 1, 1, next_ms=10)), 2.0)
    v = model.match.verification
    assert v is not None and not v.ok
    failed = [c.label for c in v.checks if not c.ok]
    assert failed == [
        "deal 2's commitment is the secret revealed by deal 1",
        "the secret hashed 2 times is the room's commitment",
    ]
    assert "NOT VERIFIED" in v.summary


def test_a_client_that_missed_a_deal_still_checks_the_chain() -> None:
    # reconnected during deal 3: the snapshot, then the result; deal 2's secret never seen
    model = ClientModel("ws://x/ws")
    model.apply(Welcome(server="test", player=ME), 0.0)
    seed = room_seed(SECRETS[2], CONTRIBUTIONS)
    model.apply(
        RoomState(
            room=room(series=series(3, 1, 1).model_dump()),
            match_id="m3",
            seed_commitment=commitment(seed),
            contributions=CONTRIBUTIONS,
            you=YourBoard(
                cells=[None] * 16,
                placements=[],
                turn=1,
                card=str(deal(seed).cards[0]),
                legal=[cell_name(i) for i in range(16)],
                deadline_ms=1000,
                time_used_ms=0,
            ),
        ),
        0.0,
    )
    assert model.match is not None and model.match.deal == 3
    grid = Grid()
    for _turn, card in enumerate(deal(seed).cards, start=1):
        grid.place(grid.legal_cells()[0], card)
    model.apply(result(3, grid, SECRETS[2], series(3, 2, 1, finished=True)), 1.0)
    v = model.match.verification
    assert v is not None and v.ok, v.summary
    assert "the secret hashed 3 times is the room's commitment" in [c.label for c in v.checks]
    # and a wrong secret fails that check on its own
    forged = model.match.result.model_copy(update={"server_secret": "q" * 64})
    bad = verify_result(
        forged, CONTRIBUTIONS, None, {}, deal_number=3, series_commitment=ROOM_COMMITMENT
    )
    assert not bad.ok


def test_a_rematch_is_offered_then_starts_a_new_chain() -> None:
    model = model_in_room()
    start(model, 1, ROOM_COMMITMENT)
    grid = play(model, SECRETS[0])
    model.apply(result(1, grid, SECRETS[0], series(1, 0, 0, finished=True)), 1.0)
    assert model.series_over() and model.rematch_state() == (False, [])
    new_commitment, new_secrets = chain(3, "n" * 64)
    finished = room(status="finished", series=series(1, 0, 0, finished=True).model_dump())
    model.apply(RoomUpdate(room=finished), 2.0)
    lines = model.apply(RoomUpdate(room=finished.model_copy(update={"rematch": ["p2"]})), 3.0)
    assert lines == ["bob wants a rematch"]
    assert model.rematch_state() == (False, [BOB])
    lines = model.apply(
        RoomUpdate(
            room=finished.model_copy(
                update={"rematch": ["p2", "p1"], "server_commitment": new_commitment}
            )
        ),
        4.0,
    )
    assert "you want a rematch" in lines
    assert model.rematch_state()[0] is True
    model.apply(
        MatchStarted(
            room_id="r1",
            match_id="n1",
            pace="lockstep",
            seed_commitment=commitment(room_seed(new_secrets[0], CONTRIBUTIONS)),
            server_commitment=new_commitment,
            contributions=CONTRIBUTIONS,
            card_clock_ms=30000,
            deal_clock_ms=300000,
            deal=1,
            best_of=3,
        ),
        5.0,
    )
    assert model.view == View.GAME and model.secrets == {} and model.room.rematch == []
    grid = play(model, new_secrets[0])
    model.apply(result(1, grid, new_secrets[0], series(1, 1, 0, next_ms=5000), "n1"), 6.0)
    assert model.match.verification is not None and model.match.verification.ok


def test_quick_play_waits_is_matched_or_cancelled() -> None:
    model = model_in_room()
    model.forget_room()
    model.bot_after_ms = 20000
    lines = model.apply(
        QueueStatus(state="waiting", pace="race", deals=3, rating=1500, ref="c1"), 100.0
    )
    assert lines == [
        "quick play: waiting for an opponent (race, best of 3, rated, your rating 1500)"
    ]
    assert model.queue is not None and model.queue.waited_s(112.4) == 12
    assert model.queue.bot_after_ms == 20000
    assert model.apply(QueueStatus(state="matched", pace="race", deals=3, room_id="r9"), 101.0) == [
        "quick play: matched, room r9"
    ]
    assert model.queue is None
    model.apply(QueueStatus(state="waiting", pace="lockstep", deals=1), 102.0)
    assert model.apply(QueueStatus(state="cancelled", pace="lockstep", deals=1), 103.0) == [
        "quick play cancelled"
    ]
    model.apply(QueueStatus(state="waiting", pace="lockstep", deals=1), 104.0)
    model.set_connection(Connection.ONLINE)
    lines = model.set_connection(Connection.RECONNECTING, "closed")
    assert model.queue is None and "quick play cancelled: the connection dropped" in lines


def challenge(
    state: str,
    *,
    challenger: PlayerInfo,
    opponent: PlayerInfo,
    cid: str = "ch1",
    expires_ms: int = 60000,
    **extra: Any,
) -> ChallengeUpdate:
    return ChallengeUpdate.model_validate(
        {
            "state": state,
            "challenge": {
                "id": cid,
                "challenger": challenger.model_dump(),
                "opponent": opponent.model_dump(),
                "pace": "lockstep",
                "deals": 3,
                "card_clock_ms": 20000,
                "deal_clock_ms": 300000,
                "rated": True,
                "expires_ms": expires_ms,
            },
            **extra,
        }
    )


def test_an_incoming_challenge_counts_down_until_answered() -> None:
    model = model_in_room()
    model.forget_room()
    lines = model.apply(challenge("offered", challenger=BOB, opponent=ME), 50.0)
    assert lines == [
        "bob challenges you: lockstep, best of 3, rated, 20s per card (answer within 60s)"
    ]
    [offer] = model.incoming()
    assert offer.other == BOB and offer.clock.left_ms(71.0) == 39000 and not model.outgoing()
    lines = model.apply(challenge("accepted", challenger=BOB, opponent=ME, room_id="r7"), 55.0)
    assert lines == ["you accept the challenge: room r7"] and not model.challenges
    model.apply(challenge("offered", challenger=BOB, opponent=ME), 60.0)
    assert model.apply(challenge("cancelled", challenger=BOB, opponent=ME), 61.0) == [
        "bob withdrew the challenge"
    ]


def test_an_outgoing_challenge_and_its_answers() -> None:
    model = model_in_room()
    lines = model.apply(challenge("offered", challenger=ME, opponent=BOB), 0.0)
    assert lines[0].startswith("you challenge bob: lockstep, best of 3")
    [mine] = model.outgoing()
    assert mine.other == BOB and not model.incoming()
    assert model.apply(challenge("declined", challenger=ME, opponent=BOB), 1.0) == ["bob declines"]
    model.apply(challenge("offered", challenger=ME, opponent=BOB), 2.0)
    assert model.apply(challenge("expired", challenger=ME, opponent=BOB), 3.0) == [
        "bob did not answer: the challenge expired"
    ]
    assert not model.challenges


def test_rating_changes_are_told_and_kept_for_the_results() -> None:
    model = model_in_room()
    msg = RatingsChanged.model_validate(
        {
            "type": "ratings",
            "room_id": "r1",
            "pace": "lockstep",
            "changes": [
                {"player": ME.model_dump(), "before": 1500, "after": 1662,
                 "deviation_before": 350, "deviation_after": 290, "provisional": True},
                {"player": BOB.model_dump(), "before": 1500, "after": 1338,
                 "deviation_before": 350, "deviation_after": 290, "provisional": True},
            ],
        }
    )  # fmt: skip
    lines = model.apply(msg, 0.0)
    assert lines == [
        "your lockstep rating 1500 \u2192 1662 (+162), provisional",
        "bob's lockstep rating 1500 \u2192 1338 (-162), provisional",
    ]
    change = model.my_rating_change()
    assert change is not None and rating_text(change) == (
        "rating 1500 \u2192 1662 (+162), provisional"
    )
    # a new series in the room forgets it
    start(model, 1, ROOM_COMMITMENT)
    assert model.my_rating_change() is None


def test_the_leaderboard_is_kept() -> None:
    model = model_in_room()
    board = Leaderboard.model_validate(
        {
            "type": "leaderboard",
            "pace": "race",
            "players": 1,
            "top": [{"rank": 1, "player": BOB.model_dump(), "rating": 1600, "deviation": 80,
                     "games": 12, "provisional": False}],
            "around": [],
        }
    )  # fmt: skip
    assert model.apply(board, 0.0) == [] and model.leaderboard == board


def test_series_text_for_every_standing() -> None:
    assert series_text(series(1, 0, 1, next_ms=2100), ME, 2100) == (
        "deal 1 of 3 \u2014 bob leads 1\u20130, next deal in 3s"
    )
    assert series_text(series(2, 0, 2, finished=True), ME) == (
        "best of 3, 2 deals \u2014 bob won the series 2\u20130"
    )
    assert series_text(series(3, 1, 1, finished=True), ME) == (
        "best of 3, 3 deals \u2014 the series is drawn 1\u20131"
    )
    forfeit = SeriesInfo.model_validate(
        {
            "best_of": 3, "deal": 1, "finished": True, "winner": ME.model_dump(),
            "standings": [standing(ME, 1), standing(BOB, 0, forfeited=True)],
        }
    )  # fmt: skip
    assert series_text(forfeit, ME) == "bob resigned \u2014 you win the series 1\u20130"
    assert series_text(forfeit, BOB) == "you resigned \u2014 ada wins the series 1\u20130"
    assert series_text(forfeit, PlayerInfo(id="p9", name="cy")) == (
        "bob resigned \u2014 ada wins the series 1\u20130"
    )
    one = forfeit.model_copy(update={"best_of": 1})
    assert series_text(one, ME) == "bob resigned \u2014 you win"
    # level (or behind) when the other resigned: the score is the one at the resignation
    level = SeriesInfo.model_validate(
        {**forfeit.model_dump(), "standings": [standing(ME, 1), standing(BOB, 1, forfeited=True)]}
    )
    assert series_text(level, ME) == "bob resigned at 1\u20131 \u2014 you win the series"
    assert series_text(level, BOB) == "you resigned at 1\u20131 \u2014 ada wins the series"
    # a spectator sees the two leaders by name
    watcher = PlayerInfo(id="p9", name="cy")
    assert series_text(series(1, 1, 0), watcher) == "deal 1 of 3 \u2014 ada 1, bob 0"


def test_the_leaver_is_told_the_series_its_leaving_decided() -> None:
    """A forfeit between deals (issue "Results players can trust, second pass"): the
    leaver saw no result at all; ``left`` now carries the series, said as to the stayer."""
    level = SeriesInfo.model_validate(
        {
            "best_of": 3, "deal": 2, "finished": True, "winner": BOB.model_dump(),
            "standings": [standing(BOB, 1), standing(ME, 1, forfeited=True)],
        }
    )  # fmt: skip
    model = model_in_room()
    lines = model.apply(Left(room_id="r1", series=level), 1.0)
    assert lines[-1] == "you resigned at 1\u20131 \u2014 bob wins the series"
    assert model.room is None
    # Its result under a round's embargo: what it did, no score.
    model = model_in_room()
    hidden = level.model_copy(update={"standings": [], "winner": None})
    assert model.apply(Left(room_id="r1", series=hidden), 1.0)[-1] == "you forfeited the series"
    # Others play on (a room of three): the leaver forfeited, the series goes on.
    model = model_in_room()
    going = level.model_copy(update={"finished": False, "winner": None})
    assert model.apply(Left(room_id="r1", series=going), 1.0)[-1] == (
        "you forfeited the series: the others play on"
    )
    # A plain leave (nothing under way): nothing more said.
    model = model_in_room()
    assert len(model.apply(Left(room_id="r1"), 1.0)) == 1
