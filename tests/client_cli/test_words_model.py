"""The client's words, checked on plain data: seats counted from 1, a player who
went back to the lobby has left (not disconnected), a one-deal result is not a
series score, a series' deal is told with its score, a race's clocks and times,
what leaving forfeits, a duplicate table's one board unranked, history results."""

from __future__ import annotations

from typing import Any

from client_cli.history import (
    MatchSummary,
    deal_result,
    history_line,
    history_rows,
    series_outcome,
)
from client_cli.model.text import board_line, deal_heading, result_lines, series_text, time_text
from client_cli.ratings import RatingEvent
from protocol.deals import Progress, SeriesInfo
from protocol.fields import Pace
from protocol.rooms import RoomState, RoomUpdate
from tests.client_cli.test_series_model import (
    BOB,
    ME,
    ROOM_COMMITMENT,
    SECRETS,
    model_in_room,
    play,
    result,
    room,
    series,
    standing,
    start,
)


def one_deal(mine: int, theirs: int, winner: Any) -> SeriesInfo:
    return SeriesInfo.model_validate(
        {
            "best_of": 1, "deal": 1, "finished": True, "winner": winner, "next_deal_ms": None,
            "standings": [standing(ME, mine, 40), standing(BOB, theirs, 40)],
        }
    )  # fmt: skip


def test_a_one_deal_result_is_not_a_series_score() -> None:
    assert series_text(one_deal(1, 1, None), ME) == "best of 1, 1 deal \u2014 a draw"
    assert series_text(one_deal(1, 0, ME.model_dump()), ME) == "best of 1, 1 deal \u2014 you won"
    assert series_text(one_deal(0, 1, BOB.model_dump()), ME) == "best of 1, 1 deal \u2014 bob won"
    assert "series" not in series_text(one_deal(1, 1, None), ME)
    # a real series still counts its deals
    assert series_text(series(3, 1, 1, finished=True), ME).endswith("the series is drawn 1\u20131")


def test_a_deal_of_a_series_is_told_with_the_score_before_it() -> None:
    assert deal_heading(1, 1, None, ME) == ""
    assert deal_heading(1, 3, None, ME) == "deal 1 of 3"
    assert deal_heading(2, 3, series(1, 1, 0), ME) == "deal 2 of 3 \u2014 you lead 1\u20130"
    assert deal_heading(3, 3, series(2, 1, 1), ME) == "deal 3 of 3 \u2014 level 1\u20131"
    model = model_in_room()
    start(model, 1, ROOM_COMMITMENT)
    model.series = series(1, 0, 1)
    line = start(model, 2, SECRETS[0])[0]
    assert line.startswith("deal 2 of 3 \u2014 bob leads 1\u20130: match m2 started")


def test_seats_are_counted_from_one_and_a_player_back_in_the_lobby_has_left() -> None:
    model = model_in_room()
    alone = room(players=[{"seat": 0, "player": ME.model_dump(), "ready": True}], status="waiting")
    model.apply(RoomState(room=alone), 0.0)
    lines = model.apply(RoomUpdate(room=room(status="waiting")), 0.0)
    assert "bob sits down (seat 2)" in lines
    gone = room(status="finished", players=[
        {"seat": 0, "player": ME.model_dump(), "ready": True},
        {"seat": 1, "player": BOB.model_dump(), "ready": True, "connected": False},
    ])  # fmt: skip
    model.apply(RoomUpdate(room=room(status="finished")), 0.0)
    assert model.apply(RoomUpdate(room=gone), 0.0) == ["bob left the room"]
    dropped = room(players=[
        {"seat": 0, "player": ME.model_dump(), "ready": True},
        {"seat": 1, "player": BOB.model_dump(), "ready": True, "connected": False},
    ])  # fmt: skip
    model.apply(RoomUpdate(room=room()), 0.0)
    assert model.apply(RoomUpdate(room=dropped), 0.0) == ["bob disconnected"]


def test_what_leaving_forfeits() -> None:
    model = model_in_room()
    start(model, 1, ROOM_COMMITMENT)
    assert model.leaving_forfeits() == "the series"
    model.room = model.room.model_copy(update={"deals": 1}) if model.room else None
    assert model.leaving_forfeits() == "the match"
    model.room = model.room.model_copy(update={"origin": "tournament"}) if model.room else None
    assert model.leaving_forfeits() == "your table in the tournament"
    model.room = model.room.model_copy(update={"status": "finished"}) if model.room else None
    assert model.leaving_forfeits() is None


def test_a_race_shows_every_players_clock_and_each_full_boards_time() -> None:
    model = model_in_room()
    model.apply(RoomState(room=room(pace="race")), 0.0)
    start(model, 1, ROOM_COMMITMENT)
    assert model.match is not None
    model.match.pace = Pace.RACE
    progress = Progress(
        room_id="r1", turn=5, placed={ME.id: 3, BOB.id: 5}, connected={ME.id: True, BOB.id: True},
        deadline_ms=200_000,
    )  # fmt: skip
    model.apply(progress, 10.0)
    rows = {r.player.id: r for r in model.progress_rows(15.0)}
    assert rows[BOB.id].clock_ms == 195_000 and rows[BOB.id].used_ms is None
    done = progress.model_copy(update={"placed": {ME.id: 4, BOB.id: 16}, "deadline_ms": 180_000})
    model.apply(done, 20.0)
    rows = {r.player.id: r for r in model.progress_rows(30.0)}
    assert rows[BOB.id].clock_ms is None and rows[BOB.id].used_ms == 120_000
    assert rows[ME.id].clock_ms == 170_000  # the same deal clock, still running for me


def test_a_race_board_line_has_its_time_and_a_lone_board_no_rank() -> None:
    model = model_in_room()
    start(model, 1, ROOM_COMMITMENT)
    grid = play(model, SECRETS[0])
    msg = result(1, grid, SECRETS[0], series(1, 1, 0))
    board = msg.boards[0].model_copy(update={"time_used_ms": 112_430})
    total = board.score.total
    win = " (61+)" if total >= 61 else ""  # not "WIN": a #2 board may have 61
    assert board_line(board, ME) == f"#1 ada (you): {total} points{win}"
    assert board_line(board, ME, Pace.RACE) == f"#1 ada (you): {total} points{win}, 1:52.4 used"
    assert board_line(board, ME, ranked=False) == f"ada (you): {total} points{win}"
    assert not any(line.startswith("#") for line in result_lines(msg, None, ME, ranked=False))
    assert time_text(7_000) == "0:07.0"


def test_history_rows_name_the_opponents_the_result_and_the_rating_change() -> None:
    def summary(mid: str, rank: int, players: int = 2) -> MatchSummary:
        return MatchSummary(mid, "2026-12-01 10:00", "duel", players, rank, 50, "finished", {})

    def detail(series_id: str, deal: int, ranks: dict[str, int]) -> dict[str, Any]:
        people = {ME.id: ME, BOB.id: BOB}
        return {
            "series_id": series_id, "deal": deal,
            "boards": [{"player": people[p].model_dump(), "rank": r} for p, r in ranks.items()],
        }  # fmt: skip

    matches = [summary("m2", 1), summary("m1", 2), summary("s1", 1, players=1)]
    details = {
        "m2": detail("m1", 2, {ME.id: 1, BOB.id: 2}),
        "m1": detail("m1", 1, {ME.id: 2, BOB.id: 1}),
        "s1": detail("s1", 1, {ME.id: 1}),
    }
    event = RatingEvent(
        pace="lockstep", room_id="r1", series_id="m1", at_ms=1, before=1500, after=1522,
        deviation_before=350, deviation_after=300, opponent="bob", result="win",
    )  # fmt: skip
    rows = history_rows(matches, details, [event], ME.id)
    assert [(r.opponents, r.result, r.rating) for r in rows] == [
        (("bob",), "win", "1500 -> 1522 (+22)"),  # the series' last deal carries the change
        (("bob",), "loss", ""),
        ((), "solo", ""),
    ]
    assert history_line(rows[0]) == (
        "match m2, 2026-12-01 10:00, room duel, 2 players, vs bob, win, 50 points, "
        "rating 1500 -> 1522 (+22)"
    )
    assert deal_result(1, [1, 3]) == "draw" and deal_result(None, [1]) == ""


def test_a_series_last_deal_says_how_the_series_ended_even_by_a_forfeit() -> None:
    """A forfeit between deals left only "draw" in both histories (issue "Results
    players can trust, second pass"): the list's ``series`` says how the series ended,
    on its last deal's row, from each player's side."""
    series = {
        "id": "m1", "best_of": 3, "deal": 1, "deals": 1, "status": "finished",
        "winner_id": ME.id,
        "standings": [
            {"player_id": ME.id, "deals_won": 1, "forfeited": False},
            {"player_id": BOB.id, "deals_won": 1, "forfeited": True},
        ],
    }  # fmt: skip
    opponents = {ME.id: [BOB], BOB.id: [ME]}
    said = {}
    for me in (ME, BOB):
        raw = {
            "series": series,
            "opponents": [{"player": p.model_dump()} for p in opponents[me.id]],
        }
        drawn = MatchSummary("m1", "2026-12-01 10:00", "duel", 2, 1, 50, "finished", raw)
        (row,) = history_rows([drawn], {}, [], me.id)
        said[me.name] = (row.series, history_line(row))
    assert said["ada"][0] == "won the series 1\u20131, bob resigned"
    assert said["bob"][0] == "lost the series 1\u20131, you resigned"
    assert "50 points, lost the series 1\u20131, you resigned" in said["bob"][1]
    # Its other deals, and a series still played or held back, say nothing of it.
    earlier = {**series, "deal": 1, "deals": 2}
    assert series_outcome(earlier, ME.id, {}) == ""
    assert series_outcome({**series, "status": "playing"}, ME.id, {}) == ""
    assert series_outcome({**series, "standings": [], "winner_id": None}, ME.id, {}) == ""
    assert series_outcome({**series, "winner_id": None}, ME.id, {BOB.id: "bob"}) == (
        "series drawn 1\u20131, bob resigned"
    )
    assert series_outcome({**series, "status": "aborted"}, ME.id, {}) == "series aborted"
