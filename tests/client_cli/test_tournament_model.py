"""Tournaments in the client model and their text: the list, registration, rounds,
the standings of each format, a table's room and the way back, the knockout bracket.

Plain data in (``tournaments`` and ``tournament`` messages as the server sends
them), the model's state, its lines and the text out: no server, no screen.
"""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any

from client_cli import tournaments as tt
from client_cli.model.checks import table_round_checks, tournament_checks
from client_cli.model.state import ClientModel
from client_cli.model.views import View
from engine.deal import commitment, table_deal_secret, table_root
from engine.verification import TableDeal
from protocol.connection import ErrorMessage, Welcome
from protocol.fields import PlayerInfo
from protocol.rooms import Left, RoomInfo, RoomState
from protocol.tournaments import (
    TournamentFormat,
    Tournaments,
    TournamentStanding,
    TournamentSummary,
    TournamentUpdate,
)
from server.tournaments.formats import FORMATS

ME = PlayerInfo(id="p1", name="ada")
BOB = PlayerInfo(id="p2", name="bob")
CY = PlayerInfo(id="p3", name="cy")
BOT1 = PlayerInfo(id="bot-greedy-T1-1", name="greedy bot 1", bot=True)
BOT2 = PlayerInfo(id="bot-greedy-T1-2", name="greedy bot 2", bot=True)
C64 = "c" * 64


def entrant(p: PlayerInfo, status: str = "active", seed: int | None = None) -> dict[str, Any]:
    return {"player": p.model_dump(), "status": status, "joined_round": 1, "seed": seed}


def row(rank: int, p: PlayerInfo, **figures: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "rank": rank,
        "player": p.model_dump(),
        "status": "active",
        "deals": 0,
        "points": 0,
    }
    data.update(figures)
    return data


def history(number: int, status: str, tables: int, done: int) -> dict[str, Any]:
    return {
        "number": number,
        "status": status,
        "contribution": C64,
        "server_commitment": C64,
        "server_secret": C64 if status == "finished" else None,
        "tables": tables,
        "finished_tables": done,
    }


def table(number: int, players: list[PlayerInfo], **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "number": number,
        "room_id": None,
        "players": [p.id for p in players],
        "status": "playing",
        "winner": None,
        "points": {},
    }
    data.update(extra)
    return data


def info(**extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "T1",
        "name": "Sunday",
        "format": "duplicate",
        "status": "registering",
        "visibility": "public",
        "invite_code": None,
        "pace": "lockstep",
        "card_clock_ms": 30000,
        "deal_clock_ms": 300000,
        "round_clock_ms": 540000,
        "rounds": 2,
        "best_of": 1,
        "max_players": 64,
        "bots": True,
        "late_join": True,
        "host": ME.model_dump(),
        "commitment": C64,
        "round": 0,
        "next_round_ms": None,
        "round_left_ms": None,
        "entrants": [],
        "standings": [],
        "history": [],
        "tables": [],
        "bracket": None,
    }
    data.update(extra)
    data.setdefault("actions", actions(data))
    return presented(data, listed=False)


def presented(data: dict[str, Any], *, listed: bool) -> dict[str, Any]:
    """What a real server adds to show the format (its name, length, standings'
    columns and each line's cells): worded by the server's own format modules."""
    fmt = FORMATS[TournamentFormat(data["format"])]
    listed_entrants = data.get("entrants")  # a count, in a list's line
    entrants = listed_entrants if isinstance(listed_entrants, list) else []
    seeds = {e["player"]["id"]: e.get("seed") for e in entrants}
    bracket = data.get("bracket") or []
    field = SimpleNamespace(
        settings=SimpleNamespace(rounds=data["rounds"], best_of=data["best_of"]),
        bracket=bracket,
        entrants={pid: SimpleNamespace(seed=seed) for pid, seed in seeds.items()},
        active=lambda: list(seeds),
    )
    data.setdefault("format_title", fmt.title)
    # A bracket is drawn at the start: its rounds are known from then on.
    drawn = not fmt.has_bracket or bool(bracket) or (listed and data["status"] != "registering")
    rounds = data["rounds"] if drawn else None
    data.setdefault("length", fmt.length(rounds, data["best_of"]))
    if listed:
        return data
    data.setdefault("columns", list(fmt.columns))
    over = data["status"] == "finished"
    data["standings"] = [  # new lines: the test's own are left as they are
        {"cells": fmt.cells(field, TournamentStanding.model_validate(line), over), **line}  # type: ignore[arg-type]
        for line in data["standings"]
    ]
    return data


def actions(data: dict[str, Any]) -> dict[str, Any]:
    """What a real server offers in such a tournament (server.tournaments.model's rules,
    as the fake server sends them)."""
    status, late = data["status"], data["late_join"] and data["format"] != "knockout"
    if status in ("finished", "cancelled"):
        return {"entry": None, "withdraw": False, "host": []}
    entry = "open" if status == "registering" else (
        "next_round" if late and data["round"] < data["rounds"] else None
    )  # fmt: skip
    host = {"registering": ["start"], "playing": ["pause"], "paused": ["resume"]}[status]
    host += ["cancel", "remove"] + (["add_bots"] if data["bots"] and entry else [])
    return {"entry": entry, "withdraw": True, "host": host}


def update(**extra: Any) -> TournamentUpdate:
    return TournamentUpdate.model_validate({"tournament": info(**extra)})


def summary(**extra: Any) -> TournamentSummary:
    data: dict[str, Any] = {
        "id": "T1",
        "name": "Sunday",
        "format": "duplicate",
        "status": "registering",
        "visibility": "public",
        "pace": "lockstep",
        "rounds": 2,
        "best_of": 1,
        "round": 0,
        "entrants": 0,
        "max_players": 64,
        "host": ME.model_dump(),
        "starts_ms": None,
    }
    data.update(extra)
    return TournamentSummary.model_validate(presented(data, listed=True))


def table_room(room_id: str = "R1", status: str = "playing") -> RoomInfo:
    return RoomInfo.model_validate(
        {
            "id": room_id,
            "name": "Sunday r1 t1",
            "visibility": "private",
            "pace": "lockstep",
            "seats": 1,
            "status": status,
            "card_clock_ms": 30000,
            "deal_clock_ms": 300000,
            "creator": ME.model_dump(),
            "players": [{"seat": 0, "player": ME.model_dump(), "ready": True}],
            "server_commitment": C64,
            "origin": "tournament",
        }
    )


FIELD = [ME, BOB, BOT1, BOT2]


def duplicate_field(**extra: Any) -> TournamentUpdate:
    """A duplicate field of two people and two bots, round 1 of 2 being played."""
    data: dict[str, Any] = {
        "status": "playing",
        "round": 1,
        "round_left_ms": 200000,
        "entrants": [entrant(p) for p in FIELD],
        "standings": [row(1, p, matchpoints=0.0, top=0.0, percentage=0.0) for p in FIELD],
        "history": [history(1, "playing", 4, 0)],
        "tables": [table(i + 1, [p]) for i, p in enumerate(FIELD)],
    }
    data.update(extra)
    return update(**data)


def signed_in() -> ClientModel:
    model = ClientModel("ws://x/ws")
    model.apply(Welcome(server="test", player=ME), 0.0)
    return model


def test_the_list_is_kept_and_each_line_says_what_a_player_needs() -> None:
    model = signed_in()
    listed = Tournaments(
        tournaments=[
            summary(entrants=3, starts_ms=125000),
            summary(id="T2", name="Cup", format="knockout", best_of=3, rounds=3, status="playing",
                    round=2, entrants=8, max_players=8),
        ]
    )  # fmt: skip
    assert model.apply(listed, 0.0) == []
    assert [t.id for t in model.tournament_list] == ["T1", "T2"]
    first, second = (tt.summary_line(t) for t in model.tournament_list)
    assert first == (
        "tournament T1: Sunday, duplicate field, lockstep, 2 deals, 3/64 entrants, "
        "registering (not started), host ada, starts in 2:05"
    )
    assert "knockout, lockstep, 3 rounds, best of 3, 8/8 entrants, playing (round 2)" in second
    assert tt.start_text("registering", None) == "by the host"


def test_registering_then_a_round_shows_my_table_and_brings_me_back_after_the_deal() -> None:
    model = signed_in()
    model.apply(Tournaments(tournaments=[summary()]), 0.0)
    lines = model.apply(update(), 0.0)
    assert lines == ["tournament Sunday (T1): duplicate field, registering, 0 entrants"]
    assert model.is_host("T1") and model.tournament_role("T1") == "host"
    assert model.gets_updates("T1") and not model.entered("T1")
    model.show_tournament("T1")
    assert model.view == View.TOURNAMENT

    registered = [entrant(p) for p in FIELD]
    lines = model.apply(update(entrants=registered, next_round_ms=60000), 1.0)
    assert "you are registered in Sunday" in lines
    assert "bob, greedy bot 1 [bot], greedy bot 2 [bot] registered in Sunday" in lines
    assert model.tournament_role("T1") == "entrant"
    assert model.tournament_list[0].entrants == 4  # the list's line follows the push
    view = model.shown_tournament()
    assert view is not None and view.next_round_ms(31.0) == 30000

    # The round's first push comes before its tables have rooms.
    lines = model.apply(duplicate_field(), 2.0)
    assert "Sunday has started" in lines and "Sunday: round 1 of 2 begins" in lines
    view = model.shown_tournament()
    assert view is not None and view.round_left_ms(12.0) == 190000
    assert tt.round_text(view.info, view.round_left_ms(12.0), None) == (
        "round 1 of 2: 0/4 tables done, 3:10 left on the round clock"
    )
    me = view.table_of(ME.id)
    assert tt.table_text(me, view.names(), ME.id, 1) == (
        "round 1, table 1 (alone: the duplicate deal): playing"
    )

    # The server seats me at my table: the game, as in any room.
    model.apply(RoomState(room=table_room()), 2.5)
    assert model.view == View.ROOM and model.tournament_of_room("R1") == "T1"
    assert model.tournament_for_room() is model.tournaments["T1"]

    # After the deal the standings move; leaving the finished table goes back to them.
    done = [table(1, [ME], room_id="R1", status="finished", points={ME.id: 31})]
    done += [table(i + 2, [p], room_id=f"R{i + 2}") for i, p in enumerate(FIELD[1:])]
    standings = [
        row(1, ME, deals=1, points=31, matchpoints=6.0, top=6.0, percentage=100.0),
        row(2, BOB, matchpoints=0.0, top=0.0, percentage=0.0),
        row(2, BOT1, matchpoints=0.0, top=0.0, percentage=0.0),
        row(2, BOT2, matchpoints=0.0, top=0.0, percentage=0.0),
    ]
    model.apply(
        duplicate_field(tables=done, standings=standings, history=[history(1, "playing", 4, 1)]),
        40.0,
    )
    assert model.table_rooms["R1"] == "T1"
    model.apply(RoomState(room=table_room(status="finished")), 40.5)
    model.forget_room()
    assert model.view == View.TOURNAMENT and model.tournament_id == "T1"
    view = model.shown_tournament()
    assert view is not None
    assert view.standing(ME.id) is not None and view.standing(ME.id).percentage == 100.0
    assert tt.table_text(view.table_of(ME.id), view.names(), ME.id, 1).endswith(
        "finished, 31 points"
    )
    columns = tt.standing_columns(view.info)[:6]
    assert columns == ("rank", "player", "MP %", "Matchpoints", "Points", "Deals")
    assert tt.standing_cells(view.info.standings[0], ME.id) == (
        "1", "ada (you)", "100.0", "6/6", "31", "1", "",
    )  # fmt: skip
    assert tt.standing_cells(view.info.standings[2], ME.id)[1] == "greedy bot 1 [bot]"
    assert tt.standing_line(view.info.standings[0], view.info.columns, ME.id) == (
        "1. ada (you): MP % 100.0, Matchpoints 6/6, Points 31, Deals 1"
    )

    # the round ends, then the tournament
    over = duplicate_field(
        standings=standings, history=[history(1, "finished", 4, 4)], round_left_ms=None,
        next_round_ms=10000,
    )  # fmt: skip
    assert "Sunday: round 1 is over; you are #1 of 4" in model.apply(over, 50.0)
    final = duplicate_field(status="finished", standings=standings, winners=[ME.model_dump()],
                            history=[history(1, "finished", 4, 4)])  # fmt: skip
    lines = model.apply(final, 60.0)
    assert "Sunday is over" in lines and "Sunday: won by ada; you finished #1 of 4" in lines
    assert tt.round_text(final.tournament, None, None) == "over: 1 round played; won by ada"


def test_a_left_table_room_goes_back_to_its_tournament_and_other_rooms_to_the_lobby() -> None:
    model = signed_in()
    model.apply(duplicate_field(tables=[table(1, [ME], room_id="R1")]), 0.0)
    model.apply(RoomState(room=table_room()), 0.0)
    assert model.view == View.ROOM
    model.apply(Left(room_id="R1"), 1.0)
    assert model.view == View.TOURNAMENT and model.tournament_id == "T1"
    model.show_tournament(None)
    assert model.view == View.LOBBY


def test_withdrawal_removal_and_a_private_tournaments_code_are_told() -> None:
    model = signed_in()
    lines = model.apply(
        update(visibility="private", invite_code="Zr8mQ1wd", host=BOB.model_dump(),
               entrants=[entrant(ME), entrant(CY)]),
        0.0,
    )  # fmt: skip
    assert lines[0].endswith("2 entrants, invite code Zr8mQ1wd")
    assert "you are registered in Sunday" in lines
    assert not model.is_host("T1") and model.tournament_role("T1") == "entrant"
    lines = model.apply(
        update(host=BOB.model_dump(), entrants=[entrant(ME, "withdrawn"), entrant(CY, "removed")]),
        1.0,
    )
    assert "you withdrew from Sunday" in lines and "cy removed from Sunday" in lines
    assert model.tournament_role("T1") == "withdrawn" and not model.gets_updates("T1")
    lines = model.apply(update(host=BOB.model_dump(), entrants=[entrant(ME, "removed")]), 2.0)
    assert "the host removed you from Sunday" in lines
    # a tournament asked for that the server does not know: back to the lobby
    model.show_tournament("NOPE")
    model.apply(ErrorMessage(code="tournament_not_found", reason="no tournament NOPE"), 3.0)
    assert model.tournament_id is None and model.view == View.LOBBY


def test_swiss_standings_show_score_buchholz_and_sonneborn_berger() -> None:
    standings = [
        row(1, BOB, deals=2, points=90, score=2.0, buchholz=1.0, sonneborn_berger=1.0),
        row(2, ME, deals=2, points=80, score=1.0, buchholz=2.0, sonneborn_berger=0.5),
        row(3, CY, deals=2, points=70, score=0.0, buchholz=3.0, sonneborn_berger=0.0,
            status="withdrawn"),
    ]  # fmt: skip
    msg = update(format="swiss", status="playing", round=2, standings=standings)
    info = msg.tournament  # the columns and cells as the server words them
    assert tt.standing_columns(info) == (
        "rank", "player", "Score", "Buchholz", "S-B", "Points", "Deals", "",
    )  # fmt: skip
    cells = [tt.standing_cells(r, ME.id) for r in info.standings]
    assert cells[1] == ("2", "ada (you)", "1", "2", "0.5", "80", "2", "")
    assert cells[2][-1] == "withdrawn"
    assert tt.standing_line(info.standings[0], info.columns) == (
        "1. bob: Score 2, Buchholz 1, S-B 1, Points 90, Deals 2"
    )
    assert info.length == "2 rounds"


def knockout_three(**extra: Any) -> TournamentUpdate:
    """Three entrants: a bracket of four, the top seed has a bye."""
    data: dict[str, Any] = {
        "format": "knockout",
        "status": "playing",
        "round": 1,
        "rounds": 2,
        "best_of": 3,
        "entrants": [entrant(ME, seed=1), entrant(BOB, seed=2), entrant(CY, seed=3)],
        "standings": [
            row(1, ME, out_in_round=None),
            row(1, BOB, out_in_round=None),
            row(1, CY, out_in_round=None),
        ],
        "history": [history(1, "playing", 1, 0)],
        "tables": [
            table(1, [CY, BOB], room_id="K1", points={CY.id: 40, BOB.id: 52}),
            table(2, [ME], status="bye", winner=ME.id),
        ],
        "bracket": [[ME.id, None, CY.id, BOB.id]],
    }
    data.update(extra)
    return update(**data)


def test_a_knockout_bracket_shows_seeds_byes_results_and_the_rounds_to_come() -> None:
    model = signed_in()
    model.apply(knockout_three(), 0.0)
    view = model.tournaments["T1"]
    rounds = tt.bracket(view.info, view.tables)
    assert [len(r) for r in rounds] == [2, 1]
    bye, match = rounds[0]
    assert (
        bye.status == "bye" and bye.top.player == ME and bye.top.won and bye.bottom.player is None
    )
    assert match.status == "playing" and (match.top.seed, match.bottom.seed) == (3, 2)
    assert (match.top.points, match.bottom.points, match.top.won) == (40, 52, None)
    final = rounds[1][0]
    assert final.status == "waiting" and final.top.player == ME and final.bottom.player is None
    assert tt.bracket_text_lines(rounds, ME.id) == [
        "round 1:",
        "  [1] ada (you): a bye",
        "  [3] cy 40 v [2] bob 52 (playing)",
        "final:",
        "  [1] ada (you) v ? (not drawn yet)",
    ]

    # bob wins; round 2 is drawn: the final. Round 1's points stay from what was seen.
    standings = [row(1, ME), row(1, BOB), row(3, CY, status="eliminated", out_in_round=1)]
    model.apply(
        knockout_three(
            round=2,
            standings=standings,
            history=[history(1, "finished", 1, 1), history(2, "playing", 1, 0)],
            tables=[table(1, [ME, BOB], room_id="K2", points={ME.id: 61, BOB.id: 30})],
            bracket=[[ME.id, None, CY.id, BOB.id], [ME.id, BOB.id]],
        ),
        5.0,
    )
    view = model.tournaments["T1"]
    rounds = tt.bracket(view.info, view.tables)
    match = rounds[0][1]
    assert match.status == "finished" and match.bottom.won and match.top.won is False
    assert (match.top.points, match.bottom.points) == (40, 52)
    assert rounds[1][0].status == "playing" and rounds[1][0].top.points == 61
    assert tt.standing_cells(view.info.standings[2], ME.id) == (
        "3", "cy", "3", "out in round 1", "0", "0", "",
    )  # fmt: skip

    # the champion
    model.apply(
        knockout_three(
            status="finished", round=2, standings=standings,
            history=[history(1, "finished", 1, 1), history(2, "finished", 1, 1)],
            tables=[table(1, [ME, BOB], room_id="K2", status="finished", winner=ME.id,
                          points={ME.id: 120, BOB.id: 90})],
            bracket=[[ME.id, None, CY.id, BOB.id], [ME.id, BOB.id]],
        ),
        9.0,
    )  # fmt: skip
    view = model.tournaments["T1"]
    rounds = tt.bracket(view.info, view.tables)
    assert tt.champion(rounds) is not None and tt.champion(rounds).player == ME
    grid = tt.bracket_grid(rounds, ME.id)
    text = ["".join(c.text for c in line) for line in grid]
    assert text[0].startswith("round 1") and "final" in text[0] and "champion" in text[0]
    # round 1: the bye on lines 1 and 3, joined (┐ │ ┘) and led from line 2 (├─) to
    # the final's top slot, where its winner plays; cy v bob on lines 5 and 7, led
    # from line 6 to the final's bottom slot; the final leads from line 4 to the champion
    assert "[1] ada" in text[1] and "(bye)" in text[3]
    assert "[3] cy" in text[5] and "[2] bob" in text[7]
    assert "─┐" in text[1] and "─┘" in text[3] and "├─[1] ada" in text[2]
    assert "─┐" in text[5] and "─┘" in text[7] and "├─[2] bob" in text[6]
    assert "120 ✔─┐" in text[2] and "90 ✖─┘" in text[6] and "│" in text[3].split("(bye)")[1]
    assert text[4].split("├─")[-1].startswith("[1] ada")  # the champion
    # no line ever leaves a slot to reach another round's slot but its own winner's
    for line in (text[1], text[3], text[5], text[7]):
        assert "├" not in line
    assert {c.kind for c in grid[4]} >= {"empty", "line"}
    assert any(c.kind == "me" for c in grid[1])
    assert tt.bracket_text_lines(rounds, ME.id)[-1] == "champion: [1] ada (you)"


def test_a_knockout_match_won_on_a_tie_break_says_how() -> None:
    level = {CY.id: 40, BOB.id: 40}
    for pace, best_of, reason in (
        ("lockstep", 1, "level on points: to the better seed"),
        ("race", 1, "level on points: on time used (then seed)"),
        ("lockstep", 3, "level on points: by deals won, then seed"),
    ):
        done = knockout_three(
            pace=pace, best_of=best_of, round=1,
            tables=[table(1, [CY, BOB], room_id="K1", status="finished", winner=BOB.id,
                          points=level), table(2, [ME], status="bye", winner=ME.id)],
        )  # fmt: skip
        rounds = tt.bracket(done.tournament)
        assert rounds[0][1].decided == reason
        assert f"(won) ({reason})" in tt.bracket_text_lines(rounds)[2]
        assert tt.tie_break_lines(rounds) == [f"round 1: [2] bob beat [3] cy, {reason}"]
    fewer = knockout_three(
        tables=[table(1, [CY, BOB], room_id="K1", status="finished", winner=BOB.id,
                      points={CY.id: 90, BOB.id: 70}), table(2, [ME], status="bye", winner=ME.id)],
    )  # fmt: skip
    assert tt.bracket(fewer.tournament)[0][1].decided == "on deals won, with fewer points"
    more = knockout_three(
        tables=[table(1, [CY, BOB], room_id="K1", status="finished", winner=BOB.id,
                      points={CY.id: 50, BOB.id: 70}), table(2, [ME], status="bye", winner=ME.id)],
    )  # fmt: skip
    assert tt.bracket(more.tournament)[0][1].decided == ""


def test_a_knockout_not_yet_drawn_has_no_bracket_and_a_walkover_is_shown() -> None:
    waiting = update(format="knockout", entrants=[entrant(ME), entrant(BOB)])
    assert tt.bracket(waiting.tournament) == []
    assert tt.bracket_grid([]) == []
    # a later round with an empty slot: the winner before it withdrew
    drawn = knockout_three(
        round=2,
        history=[history(1, "finished", 1, 1), history(2, "playing", 0, 0)],
        tables=[table(1, [ME], status="bye", winner=ME.id)],
        bracket=[[ME.id, None, CY.id, BOB.id], [ME.id, None]],
    )
    rounds = tt.bracket(drawn.tournament)
    assert rounds[1][0].status == "walkover" and rounds[1][0].top.won
    assert tt.bracket_text_lines(rounds)[-2:] == ["  [1] ada: a walkover", "champion: [1] ada"]


def test_a_tables_deal_is_checked_against_what_the_tournament_published() -> None:
    r1 = history(1, "finished", 2, 2)
    r2 = {**history(2, "playing", 2, 0), "contribution": "d" * 64, "server_commitment": C64}
    first = update(status="playing", round=1, history=[history(1, "playing", 2, 0)])
    checks = tournament_checks(first.tournament, [C64, C64])
    assert [c.ok for c in checks] == [True, True]
    assert (
        checks[1].label
        == "round 1's commitment is the one the tournament published at its creation"
    )
    # round 2 hangs from the secret round 1 revealed; a seat with another contribution fails
    second = update(status="playing", round=2, history=[r1, r2])
    checks = tournament_checks(second.tournament, ["d" * 64, "e" * 64])
    assert [c.ok for c in checks] == [False, True]
    assert checks[0].label == "every seat has round 2's published contribution"
    assert checks[1].label == "round 2's commitment is the secret revealed by round 1"
    wrong = {**r1, "server_secret": "f" * 64}
    checks = tournament_checks(update(round=2, history=[wrong, r2]).tournament, ["d" * 64])
    assert not checks[1].ok and not tournament_checks(update().tournament, [])[0].ok


def test_once_its_round_is_over_every_deal_of_a_table_is_checked_against_the_round_secret() -> None:
    secret = "5e" * 32
    root = table_root(secret, "T1", 1)
    first = commitment(table_deal_secret(root, 1))
    deals = [TableDeal("T1", 1, k, f"m{k}", table_deal_secret(root, k), first) for k in (1, 2, 3)]
    over = {**history(1, "finished", 2, 2), "server_secret": secret,
            "server_commitment": commitment(secret)}  # fmt: skip
    revealed = update(status="playing", round=1, history=[over]).tournament
    checks = table_round_checks(revealed, 1, deals)
    assert len(checks) == 5 and all(c.ok for c in checks)
    assert checks[2].label == "deal 2's secret comes from round 1's secret"
    # A table dealt from the round secret's hash chain (as before the secrets were
    # made fresh) fails: its second deal's secret would be the tournament's commitment.
    chained = [replace(deals[0], server_secret=commitment(commitment(secret))),
               replace(deals[1], server_secret=commitment(secret))]  # fmt: skip
    assert [c.ok for c in table_round_checks(revealed, 1, chained)] == [True, False, False, True]
    # Another tournament's root (or another round's) is not this one's.
    elsewhere = table_deal_secret(table_root(secret, "T2", 1), 1)
    assert not table_round_checks(revealed, 1, [replace(deals[0], server_secret=elsewhere)])[1].ok
    round_two = table_deal_secret(table_root(secret, "T1", 2), 1)
    assert not table_round_checks(revealed, 1, [replace(deals[0], server_secret=round_two)])[1].ok
    assert not table_round_checks(revealed, 1, [replace(deals[0], table_commitment=C64)])[-1].ok
    # A secret that does not match the round's commitment, or none yet: not verified.
    lying = update(history=[{**over, "server_commitment": C64}]).tournament
    assert not table_round_checks(lying, 1, deals)[0].ok
    playing = update(history=[history(1, "playing", 2, 0)]).tournament
    assert not table_round_checks(playing, 1, deals)[0].ok
