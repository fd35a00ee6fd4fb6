"""Tournaments in the full-screen client, driven by Pilot: the list, registering
and withdrawing, the standings of a duplicate field and of a Swiss, a knockout's
bracket with byes, the host's form and keys, and a round's table played from the
tournament screen and back.

No server: the app's session is a stand-in that records what the app sends and
answers requests; the test feeds the server's messages in as they would
arrive. The real exchange is tried by tests/client_cli/test_tournament_plain.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import DataTable, Static

from client_cli.tui.app import CribApp
from client_cli.tui.screens.confirm import ConfirmDialog
from client_cli.tui.screens.game import GameScreen
from client_cli.tui.screens.lobby import LobbyScreen
from client_cli.tui.screens.results import ResultsScreen
from client_cli.tui.screens.room import RoomScreen
from client_cli.tui.screens.tournament import TournamentScreen
from client_cli.tui.screens.tournament_dialogs import AddBotsDialog, CreateTournamentDialog
from client_cli.tui.screens.tournament_list import TournamentListScreen
from engine import Grid, commitment, deal, room_seed
from engine.grid import cell_name
from protocol.connection import Welcome
from protocol.deals import CardDealt, MatchStarted, Placed
from protocol.rooms import RoomState, RoomUpdate
from protocol.tournaments import (
    AddTournamentBot,
    CreateTournament,
    GetTournament,
    JoinTournament,
    LeaveTournament,
    ListTournaments,
    ManageTournament,
    Tournaments,
    TournamentUpdate,
)
from server.tournaments.formats import OFFERS
from tests.client_cli.test_head_to_head_tui import Clock, Wire, reach
from tests.client_cli.test_play_tui import text_of, until
from tests.client_cli.test_series_model import CONTRIBUTIONS, result
from tests.client_cli.test_tournament_model import (
    BOB,
    BOT1,
    BOT2,
    C64,
    CY,
    FIELD,
    ME,
    duplicate_field,
    entrant,
    history,
    knockout_three,
    row,
    summary,
    table,
    table_room,
    update,
)

pytestmark = pytest.mark.timeout(60)


async def signed_in(pilot: Any, app: CribApp) -> Wire:
    wire = Wire(app)
    wire.answers[ListTournaments] = lambda m: Tournaments(tournaments=list(LISTED))
    wire.feed(Welcome(server="test", player=ME, formats=OFFERS))  # as the server says it
    await until(
        pilot,
        lambda: isinstance(app.screen, LobbyScreen) and bool(app.screen.query("#lobby-status")),
        "the lobby",
    )
    app.session.welcome = Welcome(server="test", player=ME)  # connected, as far as sends go
    return wire


LISTED = [
    summary(host=BOB.model_dump(), entrants=3, starts_ms=125000),
    summary(id="T2", name="Cup", format="knockout", status="playing", round=1, entrants=3,
            max_players=8, best_of=3, host=BOB.model_dump()),
]  # fmt: skip


def cells(screen: Any, table_id: str = "#standings") -> list[list[str]]:
    table = screen.query_one(table_id, DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def footer_keys(screen: Any) -> set[str]:
    """The keys the footer shows: a host's keys only to the host."""
    return {key for key, active in screen.active_bindings.items() if active.binding.show}


def status_text(app: CribApp) -> str:
    return text_of(app.screen.query_one("#tournament-status", Static))


@pytest.mark.slow
async def test_the_list_shows_a_tournament_registers_and_withdraws_with_a_confirmation() -> None:
    app = CribApp("ws://127.0.0.1:9/ws", clock=Clock())
    async with app.run_test(size=(130, 40)) as pilot:
        wire = await signed_in(pilot, app)
        await pilot.press("t")
        await reach(pilot, app, TournamentListScreen, "the list")
        wire.feed(Tournaments(tournaments=list(LISTED)))
        rows = app.screen.query_one("#tournaments", DataTable)
        await until(pilot, lambda: rows.row_count == 2, "two tournaments")
        first = [str(c) for c in rows.get_row_at(0)]
        assert first == [
            "Sunday", "duplicate field", "lockstep", "2 deals", "3/64", "registering",
            "in 2:05", "bob", "T1",
        ]  # fmt: skip
        second = [str(c) for c in rows.get_row_at(1)]
        assert second[:6] == [
            "Cup",
            "knockout",
            "lockstep",
            "2 rounds, best of 3",  # drawn at the start: its rounds known
            "3/8",
            "playing",
        ]
        assert second[6] == "-"

        # a refresh from the server updates the rows in place
        wire.feed(Tournaments(tournaments=[LISTED[0].model_copy(update={"entrants": 4})]))
        await until(pilot, lambda: rows.row_count == 1, "the refreshed list")
        assert str(rows.get_row_at(0)[4]) == "4/64"

        # Enter shows it
        await pilot.press("enter")
        await until(pilot, lambda: any(isinstance(m, GetTournament) for m in wire.sent), "ask")
        assert wire.last(GetTournament).tournament_id == "T1"
        registering = [entrant(p) for p in (BOB, CY, BOT1)]
        wire.feed(update(host=BOB.model_dump(), entrants=registering, next_round_ms=120000,
                         standings=[row(1, p, percentage=0.0, matchpoints=0.0, top=0.0)
                                    for p in (BOB, CY, BOT1)]))  # fmt: skip
        await reach(pilot, app, TournamentScreen, "the tournament")
        screen = app.screen
        assert "not registered" in status_text(app)
        assert "registration open: starts in 2:00" in status_text(app)
        assert not screen.check_action("start", ()) and not screen.check_action("bots", ())
        assert screen.check_action("register", ()) and not screen.check_action("withdraw", ())
        assert not {"s", "p", "c", "x", "a", "d"} & footer_keys(screen)
        head = text_of(screen.query_one("#tournament-head", Static))
        assert "Sunday" in head and "duplicate field, 2 deals, lockstep, 30s per card" in head
        assert "host bob" in head and "3/64 entrants" in head

        # j registers, with a contribution of its own
        def registered(m: JoinTournament) -> TournamentUpdate:
            return update(host=BOB.model_dump(), entrants=[*registering, entrant(ME)])

        wire.answers[JoinTournament] = registered
        await pilot.press("j")
        await until(pilot, lambda: any(isinstance(m, JoinTournament) for m in wire.sent), "j")
        join = wire.last(JoinTournament)
        assert join.tournament_id == "T1" and not join.spectate and join.contribution
        await until(pilot, lambda: "you are registered: your table comes" in status_text(app), "in")
        assert screen.check_action("withdraw", ()) and not screen.check_action("register", ())

        # d withdraws, after a confirmation; n keeps the place
        await pilot.press("d")
        await reach(pilot, app, ConfirmDialog, "the confirmation")
        assert "cannot register again" in text_of(app.screen.query_one("#confirm-text", Static))
        await pilot.press("n")
        await reach(pilot, app, TournamentScreen, "back, still registered")
        assert not any(isinstance(m, LeaveTournament) for m in wire.sent)
        await pilot.press("d")
        await reach(pilot, app, ConfirmDialog, "the confirmation again")
        await pilot.press("y")
        await until(pilot, lambda: any(isinstance(m, LeaveTournament) for m in wire.sent), "d")
        wire.feed(update(host=BOB.model_dump(), entrants=[*registering, entrant(ME, "withdrawn")]))
        await until(pilot, lambda: "you withdrew" in status_text(app), "withdrawn")

        # Escape: back to the lobby
        await pilot.press("escape")
        await reach(pilot, app, LobbyScreen, "the lobby")


async def test_duplicate_standings_are_live_and_swiss_shows_its_tie_breaks() -> None:
    app = CribApp("ws://127.0.0.1:9/ws", clock=Clock())
    async with app.run_test(size=(130, 40)) as pilot:
        wire = await signed_in(pilot, app)
        app.open_tournament("T1")
        standings = [
            row(1, BOB, deals=1, points=44, matchpoints=6.0, top=6.0, percentage=100.0),
            row(2, ME, deals=1, points=31, matchpoints=3.0, top=6.0, percentage=50.0),
            row(2, BOT1, deals=1, points=31, matchpoints=3.0, top=6.0, percentage=50.0),
            row(4, BOT2, deals=1, points=12, matchpoints=0.0, top=6.0, percentage=0.0),
        ]
        tables = [table(1, [ME], room_id="R1", status="finished", points={ME.id: 31})]
        wire.feed(duplicate_field(standings=standings, tables=tables,
                                  history=[history(1, "playing", 4, 3)]))  # fmt: skip
        await reach(pilot, app, TournamentScreen, "the tournament")
        grid = app.screen.query_one("#standings", DataTable)
        assert [str(c.label) for c in grid.columns.values()][:6] == [
            "rank", "player", "MP %", "Matchpoints", "Points", "Deals",
        ]  # fmt: skip
        rows = cells(app.screen)
        assert rows[1][:6] == ["2", "ada (you)", "50.0", "3/6", "31", "1"]
        assert rows[2][1] == "greedy bot 1 [bot]"
        text = status_text(app)
        assert "round 1 of 2: 3/4 tables done" in text and "left on the round clock" in text
        assert "#2 of 4" in text and "your table: round 1, table 1" in text
        assert "finished, 31 points" in text
        # the next push moves the standings at once
        moved = [standings[1].copy(), standings[0].copy(), standings[2], standings[3]]
        moved[0].update(rank=1, percentage=75.0)
        moved[1].update(rank=2, percentage=50.0)
        wire.feed(duplicate_field(standings=moved, tables=tables))
        await until(pilot, lambda: cells(app.screen)[0][1] == "ada (you)", "ada first")
        assert cells(app.screen)[0][2] == "75.0" and "#1 of 4" in status_text(app)

        # a Swiss tournament's columns
        swiss = [
            row(1, BOB, deals=2, points=90, score=2.0, buchholz=1.0, sonneborn_berger=1.0),
            row(2, ME, deals=2, points=80, score=1.0, buchholz=2.0, sonneborn_berger=0.5),
        ]
        app.open_tournament("T3")
        wire.feed(update(id="T3", name="Swiss night", format="swiss", status="playing", round=2,
                         rounds=3, entrants=[entrant(BOB), entrant(ME)], standings=swiss,
                         history=[history(1, "finished", 1, 1), history(2, "playing", 1, 0)],
                         tables=[table(1, [ME, BOB], room_id="S2",
                                       points={ME.id: 20})]))  # fmt: skip
        await until(
            pilot,
            lambda: "Swiss night" in text_of(app.screen.query_one("#tournament-head", Static)),
            "the Swiss",
        )
        grid = app.screen.query_one("#standings", DataTable)
        assert [str(c.label) for c in grid.columns.values()] == [
            "rank", "player", "Score", "Buchholz", "S-B", "Points", "Deals", "",
        ]  # fmt: skip
        assert cells(app.screen)[1] == ["2", "ada (you)", "1", "2", "0.5", "80", "2", ""]
        assert "round 2, table 1 against bob: playing, 20 points so far" in status_text(app)
        assert not app.screen.check_action("bracket", ())


@pytest.mark.slow
async def test_a_knockout_shows_its_bracket_with_byes_and_b_switches_to_standings() -> None:
    app = CribApp("ws://127.0.0.1:9/ws", clock=Clock())
    async with app.run_test(size=(130, 40)) as pilot:
        wire = await signed_in(pilot, app)
        app.open_tournament("T1")
        wire.feed(knockout_three(host=BOB.model_dump()))
        await reach(pilot, app, TournamentScreen, "the tournament")
        screen = app.screen
        await until(pilot, lambda: screen.query_one("#bracket-pane").display, "the bracket")
        assert not screen.query_one("#standings").display
        drawn = text_of(screen.query_one("#bracket", Static))
        assert "round 1" in drawn and "final" in drawn and "champion" in drawn
        assert "[1] ada" in drawn and "(bye)" in drawn
        assert "[3] cy" in drawn and "40" in drawn and "[2] bob" in drawn and "52" in drawn
        assert "round 1, table 2: a bye (you go through)" in status_text(app)
        await pilot.press("b")
        await until(pilot, lambda: screen.query_one("#standings").display, "the standings")
        assert cells(screen)[0][:4] == ["1", "ada (you)", "1", "still in"]
        await pilot.press("b")
        await until(pilot, lambda: screen.query_one("#bracket-pane").display, "the bracket again")

        # bob won his semi-final; the final is drawn and played
        standings = [row(1, ME), row(1, BOB), row(3, CY, status="eliminated", out_in_round=1)]
        wire.feed(
            knockout_three(
                host=BOB.model_dump(), round=2, standings=standings,
                history=[history(1, "finished", 1, 1), history(2, "playing", 1, 0)],
                tables=[table(1, [ME, BOB], room_id="K2", points={ME.id: 61, BOB.id: 30})],
                bracket=[[ME.id, None, CY.id, BOB.id], [ME.id, BOB.id]],
            )
        )  # fmt: skip
        await until(pilot, lambda: "61" in text_of(screen.query_one("#bracket", Static)), "final")
        drawn = text_of(screen.query_one("#bracket", Static))
        assert "52 ✔" in drawn and "40 ✖" in drawn


@pytest.mark.slow
async def test_the_host_creates_a_tournament_from_the_form_and_runs_it() -> None:
    app = CribApp("ws://127.0.0.1:9/ws", clock=Clock())
    async with app.run_test(size=(130, 45)) as pilot:
        wire = await signed_in(pilot, app)
        await pilot.press("t")
        await reach(pilot, app, TournamentListScreen, "the list")
        await pilot.press("n")
        await reach(pilot, app, CreateTournamentDialog, "the form")
        form = app.screen
        await pilot.click("#tn-best-of-3")
        await pilot.click("#tn-name")
        await pilot.press("enter")
        # The server's offer for the format chosen (a duplicate field) says one deal.
        refused = text_of(form.query_one("#dialog-error", Static))
        assert "a duplicate field's tables play 1 deal" in refused
        await pilot.click("#tn-best-of-1")
        await pilot.click("#tn-rounds")
        await pilot.press("end", "backspace", "2")
        await pilot.click("#tn-start")
        await pilot.press("6", "0", "0")  # seconds, as every clock of the client
        await pilot.click("#tn-max")
        await pilot.press("end", "backspace", "backspace", "8")
        await pilot.click("#tn-private")

        def created(m: CreateTournament) -> TournamentUpdate:
            return update(rounds=m.rounds, max_players=m.max_players, visibility="private",
                          invite_code="Zr8mQ1wd", next_round_ms=m.start_in_ms)  # fmt: skip

        wire.answers[CreateTournament] = created
        await pilot.click("#tn-name")
        await pilot.press("enter")
        await reach(pilot, app, TournamentScreen, "the new tournament")
        sent = wire.last(CreateTournament)
        assert (sent.name, sent.format.value, sent.rounds, sent.best_of) == (
            "Squares open", "duplicate", 2, 1,
        )  # fmt: skip
        assert (sent.pace.value, sent.card_clock_ms, sent.start_in_ms, sent.max_players) == (
            "lockstep", 30000, 600000, 8,
        )  # fmt: skip
        assert sent.visibility.value == "private" and sent.bots and sent.round_clock_ms is None
        screen = app.screen
        head = text_of(screen.query_one("#tournament-head", Static))
        assert "invite code: Zr8mQ1wd" in head and "host ada (you)" in head
        # the host's keys, and only theirs
        assert screen.check_action("start", ()) and screen.check_action("bots", ())
        assert not screen.check_action("pause", ())
        assert {"s", "a", "c", "x", "j"} <= footer_keys(screen) and "p" not in footer_keys(screen)

        await pilot.press("a")
        await reach(pilot, app, AddBotsDialog, "the bots dialog")
        await pilot.click("#bots-count")
        await pilot.press("end", "backspace", "2")
        await pilot.click("#bots-expert")
        await pilot.click("#add")
        await until(pilot, lambda: any(isinstance(m, AddTournamentBot) for m in wire.sent), "a")
        bots = wire.last(AddTournamentBot)
        assert (bots.tournament_id, bots.strategy, bots.count) == ("T1", "expert", 2)

        await pilot.press("s")
        await until(pilot, lambda: any(isinstance(m, ManageTournament) for m in wire.sent), "s")
        assert wire.last(ManageTournament).action == "start"
        wire.feed(duplicate_field(entrants=[entrant(p) for p in (BOB, BOT1, BOT2)],
                                  tables=[table(i + 1, [p]) for i, p in
                                          enumerate((BOB, BOT1, BOT2))]))  # fmt: skip
        await until(pilot, lambda: screen.check_action("pause", ()), "running")
        assert not screen.check_action("start", ())
        assert "no table for you this round" not in status_text(app)  # hosting, not playing
        await pilot.press("p")
        await until(pilot, lambda: wire.last(ManageTournament).action == "pause", "p")
        wire.feed(duplicate_field(status="paused", entrants=[entrant(p) for p in (BOB, BOT1)]))
        await until(pilot, lambda: "paused" in status_text(app), "paused")
        await pilot.press("p")
        await until(pilot, lambda: wire.last(ManageTournament).action == "resume", "resume")

        # remove the chosen player, after a confirmation
        await pilot.press("down", "down")  # the standings: ada, bob, greedy bot 1
        await pilot.press("x")
        await reach(pilot, app, ConfirmDialog, "remove?")
        assert "Remove greedy bot 1 [bot]" in text_of(app.screen.query_one("#confirm-text"))
        await pilot.press("y")
        await until(pilot, lambda: wire.last(ManageTournament).action == "remove", "x")
        assert wire.last(ManageTournament).player_id == BOT1.id

        await pilot.press("c")
        await reach(pilot, app, ConfirmDialog, "cancel?")
        await pilot.press("y")
        await until(pilot, lambda: wire.last(ManageTournament).action == "cancel", "c")


@pytest.mark.slow
async def test_a_round_takes_me_to_my_tables_game_and_the_results_back_to_the_standings() -> None:
    app = CribApp("ws://127.0.0.1:9/ws", clock=Clock())
    async with app.run_test(size=(130, 42)) as pilot:
        wire = await signed_in(pilot, app)
        app.open_tournament("T1")
        wire.feed(update(host=BOB.model_dump(), entrants=[entrant(p) for p in FIELD]))
        await reach(pilot, app, TournamentScreen, "the tournament")

        # the round starts: the push, then the table's room and its match, as the server sends
        secret = "t" * 64
        seed = room_seed(secret, CONTRIBUTIONS)
        wire.feed(duplicate_field(host=BOB.model_dump()))
        wire.feed(RoomState(room=table_room()))
        wire.feed(
            MatchStarted(room_id="R1", match_id="m1", pace="lockstep",
                         seed_commitment=commitment(seed), server_commitment=C64,
                         contributions=CONTRIBUTIONS, card_clock_ms=30000, deal_clock_ms=300000)
        )  # fmt: skip
        await reach(pilot, app, GameScreen, "the table's game")
        heading = app.screen.query_one("#game-tournament", Static)
        assert heading.display
        assert text_of(heading) == "tournament Sunday — round 1, table 1"
        grid = Grid()
        for turn, card in enumerate(deal(seed).cards, start=1):
            legal = [cell_name(i) for i in grid.legal_cells()]
            wire.feed(CardDealt(room_id="R1", turn=turn, card=str(card), legal=legal,
                                deadline_ms=30000))  # fmt: skip
            index = grid.legal_cells()[0]
            grid.place(index, card)
            wire.feed(Placed(room_id="R1", turn=turn, cell=cell_name(index), card=str(card)))
        over = result(1, grid, secret, None).model_copy(update={"room_id": "R1"})
        wire.feed(over)
        await reach(pilot, app, ResultsScreen, "the results")
        standings = [
            row(1, ME, deals=1, points=40, matchpoints=6.0, top=6.0, percentage=100.0),
            *[row(2, p, matchpoints=0.0, top=0.0, percentage=0.0) for p in FIELD[1:]],
        ]
        wire.feed(
            duplicate_field(host=BOB.model_dump(), standings=standings,
                            tables=[table(1, [ME], room_id="R1", status="finished",
                                          points={ME.id: 40})],
                            history=[history(1, "playing", 4, 1)])
        )  # fmt: skip
        series = app.screen.query_one("#results-series", Static)
        await until(pilot, lambda: "Sunday" in text_of(series), "the tournament line")
        assert "you are #1 of 4" in text_of(series)
        assert "Enter: back to the tournament" in text_of(series)
        wire.feed(RoomUpdate(room=table_room(status="finished")))
        await pilot.press("enter")
        await reach(pilot, app, TournamentScreen, "back to the standings")
        assert cells(app.screen)[0][:3] == ["1", "ada (you)", "100.0"]
        assert "finished, 40 points" in status_text(app)

        # the next round's table takes me there again, from wherever I am
        wire.feed(RoomState(room=table_room("R9")))
        await reach(pilot, app, RoomScreen, "the next table")
