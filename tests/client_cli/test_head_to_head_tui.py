"""Head-to-head play in the full-screen client, driven by Pilot: quick play,
challenges, the leaderboard, and a best-of-3 series to its rematch.

No server: the app's session is replaced by a stand-in that records what the
app sends and answers requests, and the test feeds the server's messages in
as they would arrive. The real exchange is tested against the server itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from client_cli.tui.app import CribApp
from client_cli.tui.screens.challenge_prompt import ChallengePrompt
from client_cli.tui.screens.game import GameScreen
from client_cli.tui.screens.leaderboard import LeaderboardScreen
from client_cli.tui.screens.lobby import LobbyScreen
from client_cli.tui.screens.lobby_dialogs import ChallengeDialog, CreateRoomDialog, QuickPlayDialog
from client_cli.tui.screens.results import ResultsScreen
from client_cli.tui.screens.room import RoomScreen
from client_cli.tui.widgets import ResultBoard
from engine import Grid, commitment, deal, room_seed
from engine.grid import cell_name
from protocol.connection import Welcome
from protocol.deals import CardDealt, MatchStarted, Placed
from protocol.head_to_head import (
    AnswerChallenge,
    CancelQuickPlay,
    Challenge,
    ChallengeUpdate,
    GetLeaderboard,
    Leaderboard,
    QueueStatus,
    QuickPlay,
    RatingsChanged,
)
from protocol.rooms import CreateRoom, LeaveRoom, Rematch, RoomState, RoomUpdate
from protocol.wire import ServerMessage
from server.tournaments.formats import OFFERS
from tests.client_cli.test_play_tui import text_of, until
from tests.client_cli.test_series_model import (
    BOB,
    CONTRIBUTIONS,
    ME,
    ROOM_COMMITMENT,
    SECRETS,
    chain,
    challenge,
    result,
    room,
    series,
)

pytestmark = pytest.mark.timeout(60)


class Wire:
    """The network, as far as the app can tell: sends are recorded, requests answered."""

    def __init__(self, app: CribApp) -> None:
        self.app = app
        self.sent: list[BaseModel] = []
        self.answers: dict[type[BaseModel], Callable[[Any], ServerMessage]] = {}
        app.session.send = self.send  # type: ignore[method-assign]
        app.session.request = self.request  # type: ignore[method-assign]

    async def send(self, msg: BaseModel) -> str:
        self.sent.append(msg)
        return f"c{len(self.sent)}"

    async def request(self, msg: BaseModel, timeout: float = 10.0) -> ServerMessage:
        self.sent.append(msg)
        reply = self.answers[type(msg)](msg)
        self.app.on_server_message(reply)  # the session's listener hears every reply
        return reply

    def feed(self, *messages: ServerMessage) -> None:
        for msg in messages:
            self.app.on_server_message(msg)

    def last(self, kind: type[BaseModel]) -> Any:
        found = [m for m in self.sent if isinstance(m, kind)]
        assert found, f"nothing of type {kind.__name__} was sent: {self.sent}"
        return found[-1]


async def reach(pilot: Pilot[int], app: CribApp, kind: type, what: str) -> None:
    """Until the app shows a screen of ``kind``, composed."""
    await until(
        pilot,
        lambda: isinstance(app.screen, kind) and bool(app.screen.query("Static")),
        what,
    )


async def signed_in(pilot: Pilot[int], app: CribApp) -> Wire:
    wire = Wire(app)
    wire.feed(Welcome(server="test", player=ME, formats=OFFERS))  # as the server says it
    await until(
        pilot,
        lambda: isinstance(app.screen, LobbyScreen) and bool(app.screen.query("#lobby-status")),
        "the lobby",
    )
    return wire


def status(app: CribApp) -> str:
    return text_of(app.screen.query_one("#lobby-status", Static))


@pytest.mark.slow
async def test_quick_play_waits_with_a_cancel_then_is_matched_into_a_match() -> None:
    app = CribApp("ws://127.0.0.1:9/ws", clock=Clock())
    async with app.run_test(size=(120, 40)) as pilot:
        wire = await signed_in(pilot, app)
        assert not app.screen.query_one("#lobby-status").display
        await pilot.press("p")
        await reach(pilot, app, QuickPlayDialog, "the dialog")
        await pilot.click("#qp-pace-race")
        await pilot.click("#qp-deals-3")
        await pilot.click("#qp-bot")
        await pilot.press("2", "0", "enter")
        await reach(pilot, app, LobbyScreen, "back in the lobby")
        await until(pilot, lambda: any(isinstance(m, QuickPlay) for m in wire.sent), "the ask")
        asked = wire.last(QuickPlay)
        assert (asked.pace.value, asked.deals, asked.bot_after_ms) == ("race", 3, 20000)
        assert asked.contribution and asked.contribution == app.model.contribution

        wire.feed(QueueStatus(state="waiting", pace="race", deals=3, rating=1500))
        await until(pilot, lambda: "waiting for an opponent" in status(app), "the indicator")
        text = status(app)
        assert "race, best of 3, rated, your rating 1500" in text
        assert "a bot in 20s" in text and "x cancels" in text
        await pilot.press("x")
        await until(pilot, lambda: any(isinstance(m, CancelQuickPlay) for m in wire.sent), "x")
        wire.feed(QueueStatus(state="cancelled", pace="race", deals=3))
        await until(pilot, lambda: not app.screen.query_one("#lobby-status").display, "no wait")

        # again, and this time an opponent is found: the room, then the match by itself
        await pilot.press("p")
        await reach(pilot, app, QuickPlayDialog, "the dialog again")
        await pilot.press("enter")
        await until(pilot, lambda: len([m for m in wire.sent if isinstance(m, QuickPlay)]) == 2, "")
        assert wire.last(QuickPlay).deals == 1 and wire.last(QuickPlay).bot_after_ms is None
        wire.feed(
            QueueStatus(state="waiting", pace="lockstep", deals=1, rating=1500),
            QueueStatus(state="matched", pace="lockstep", deals=1, room_id="r1"),
            RoomState(room=room(deals=1)),
        )
        await reach(pilot, app, RoomScreen, "the room")
        head = text_of(app.screen.query_one("#room-head", Static))
        assert "rated" in head and app.model.queue is None
        seed = room_seed(SECRETS[0], CONTRIBUTIONS)
        wire.feed(
            MatchStarted(
                room_id="r1", match_id="m1", pace="lockstep", seed_commitment=commitment(seed),
                server_commitment=ROOM_COMMITMENT, contributions=CONTRIBUTIONS,
                card_clock_ms=30000, deal_clock_ms=300000,
            )
        )  # fmt: skip
        await reach(pilot, app, GameScreen, "the game")
        assert not app.screen.query_one("#game-tournament").display  # not a tournament's table


def offer(state: str, *, incoming: bool = True, cid: str = "ch1", **extra: Any) -> ChallengeUpdate:
    """A challenge between bob and this player, answered within 30 seconds."""
    challenger, opponent = (BOB, ME) if incoming else (ME, BOB)
    return challenge(
        state, challenger=challenger, opponent=opponent, cid=cid, expires_ms=30000, **extra
    )


class Clock:
    """The client's clock, moved by the test: a countdown shows what it says, however
    long the loaded machine took to draw it (a fresh-clone run beside a CPU hog saw
    28 s left of a challenge just received, against the real clock)."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def seconds_to_answer(text: str) -> int:
    found = re.search(r"(\d+)s to answer", text)
    assert found is not None, text
    return int(found.group(1))


@pytest.mark.slow
async def test_a_challenge_is_put_as_a_prompt_with_its_clock_and_answered() -> None:
    clock = Clock()
    app = CribApp("ws://127.0.0.1:9/ws", clock=clock)
    async with app.run_test(size=(120, 40)) as pilot:
        wire = await signed_in(pilot, app)
        wire.feed(offer("offered"))
        await reach(pilot, app, ChallengePrompt, "the prompt")
        body = app.screen.query_one("#prompt-body", Static)
        text = text_of(body)
        assert "bob challenges you" in text
        assert "lockstep, best of 3, rated, 20s per card" in text
        assert seconds_to_answer(text) == 30
        clock.t += 1.0  # it counts down, by itself
        await until(pilot, lambda: seconds_to_answer(text_of(body)) == 29, "29s to answer")

        # later: the lobby keeps it, a brings the prompt back, y accepts
        await pilot.press("escape")
        await reach(pilot, app, LobbyScreen, "the lobby")
        assert "bob challenges you" in status(app) and "a answers" in status(app)
        await pilot.press("a")
        await reach(pilot, app, ChallengePrompt, "the prompt again")
        await pilot.press("y")
        await until(pilot, lambda: any(isinstance(m, AnswerChallenge) for m in wire.sent), "y")
        answer = wire.last(AnswerChallenge)
        assert answer.challenge_id == "ch1" and answer.accept and answer.contribution
        wire.feed(offer("accepted", room_id="r1"), RoomState(room=room(origin="challenge")))
        await reach(pilot, app, RoomScreen, "the challenge's room")

        # a second one is declined with n; a withdrawn one closes its prompt by itself
        app.model.forget_room()
        app.refresh_views()
        await reach(pilot, app, LobbyScreen, "the lobby again")
        wire.feed(offer("offered", cid="ch2"))
        await reach(pilot, app, ChallengePrompt, "a second prompt")
        await pilot.press("n")
        await until(pilot, lambda: wire.last(AnswerChallenge).challenge_id == "ch2", "n")
        assert not wire.last(AnswerChallenge).accept
        wire.feed(offer("offered", cid="ch3"))
        await reach(pilot, app, ChallengePrompt, "a third prompt")
        wire.feed(offer("cancelled", cid="ch3"))
        await reach(pilot, app, LobbyScreen, "the prompt closes")


@pytest.mark.slow
async def test_challenging_a_player_by_name_and_withdrawing() -> None:
    app = CribApp("ws://127.0.0.1:9/ws", clock=Clock())
    async with app.run_test(size=(120, 40)) as pilot:
        wire = await signed_in(pilot, app)
        await pilot.press("c")
        await reach(pilot, app, ChallengeDialog, "the dialog")
        await pilot.press("enter")  # no name: refused in the dialog
        error = app.screen.query_one("#dialog-error", Static)
        assert "type a player's name" in text_of(error)
        await pilot.click("#ch-deals-5")
        await pilot.click("#ch-rated")
        await pilot.click("#ch-name")
        await pilot.press("b", "o", "b", "enter")
        await until(pilot, lambda: any(isinstance(m, Challenge) for m in wire.sent), "the ask")
        sent = wire.last(Challenge)
        assert (sent.opponent, sent.deals, sent.rated, sent.card_clock_ms) == (
            "bob", 5, False, 30000,
        )  # fmt: skip
        wire.feed(offer("offered", incoming=False))
        await until(pilot, lambda: "challenge to bob" in status(app), "the outgoing line")
        assert "x withdraws" in status(app)
        await pilot.press("x")
        await until(pilot, lambda: any(isinstance(m, AnswerChallenge) for m in wire.sent), "x")
        assert wire.last(AnswerChallenge).accept is False
        wire.feed(offer("cancelled", incoming=False))
        await until(pilot, lambda: not app.screen.query_one("#lobby-status").display, "gone")


@pytest.mark.slow
async def test_a_new_room_can_be_a_rated_best_of_three() -> None:
    app = CribApp("ws://127.0.0.1:9/ws", clock=Clock())
    async with app.run_test(size=(120, 45)) as pilot:
        wire = await signed_in(pilot, app)
        await pilot.press("n")
        await reach(pilot, app, CreateRoomDialog, "the dialog")
        await pilot.click("#room-deals-3")
        await pilot.click("#room-rated")
        await pilot.click("#room-seats")
        await pilot.press("end", "backspace", "3", "enter")
        error = app.screen.query_one("#dialog-error", Static)
        assert "a rated room has 2 seats" in text_of(error)
        await pilot.click("#room-seats")
        await pilot.press("end", "backspace", "2", "enter")
        await until(pilot, lambda: any(isinstance(m, CreateRoom) for m in wire.sent), "create")
        made = wire.last(CreateRoom)
        assert (made.deals, made.rated, made.seats) == (3, True, 2)


def leaderboard_for(msg: GetLeaderboard) -> Leaderboard:
    entries = [
        {"rank": i + 1, "player": {"id": f"x{i}", "name": f"player {i}"}, "rating": 1900 - 10 * i,
         "deviation": 60, "games": 40 - i, "provisional": False}
        for i in range(min(msg.top, 25))
    ]  # fmt: skip
    mine = {"rank": 0, "player": ME.model_dump(), "rating": 1500, "deviation": 300, "games": 2,
            "provisional": True}  # fmt: skip
    return Leaderboard.model_validate(
        {"type": "leaderboard", "pace": msg.pace.value, "top": entries, "around": [mine],
         "players": 25, "ref": None}
    )  # fmt: skip


async def test_the_leaderboard_per_pace_top_and_around_me() -> None:
    app = CribApp("ws://127.0.0.1:9/ws", clock=Clock())
    async with app.run_test(size=(120, 45)) as pilot:
        wire = await signed_in(pilot, app)
        wire.answers[GetLeaderboard] = leaderboard_for
        await pilot.press("l")
        await reach(pilot, app, LeaderboardScreen, "the leaderboard")
        screen = app.screen
        top = screen.query_one("#leaders-top", DataTable)
        await until(pilot, lambda: top.row_count == 20, "the top 20")
        assert (wire.last(GetLeaderboard).pace.value, wire.last(GetLeaderboard).top) == (
            "lockstep",
            20,
        )
        around = screen.query_one("#leaders-around", DataTable)
        assert around.row_count == 1 and screen.query_one("#leaders-around").display
        row = [str(c) for c in around.get_row_at(0)]
        assert row[:3] == ["-", "ada", "1500"] and "provisional" in row[5] and "you" in row[5]
        assert "25 ranked player(s)" in text_of(screen.query_one("#leaders-note", Static))
        await pilot.press("p")
        await until(pilot, lambda: wire.last(GetLeaderboard).pace.value == "race", "race")
        await until(pilot, lambda: "race" in text_of(screen.query_one("#leaders-head")), "head")
        await pilot.press("plus")
        await until(pilot, lambda: top.row_count == 25, "more rows")
        assert wire.last(GetLeaderboard).top == 30
        await pilot.press("escape")
        await reach(pilot, app, LobbyScreen, "back")


def deal_messages(
    secret: str, match_id: str, deal_no: int, announced: str
) -> tuple[list[Any], Grid]:
    seed = room_seed(secret, CONTRIBUTIONS)
    messages: list[Any] = [
        MatchStarted(
            room_id="r1", match_id=match_id, pace="lockstep", seed_commitment=commitment(seed),
            server_commitment=announced, contributions=CONTRIBUTIONS, card_clock_ms=30000,
            deal_clock_ms=300000, deal=deal_no, best_of=3,
        )
    ]  # fmt: skip
    grid = Grid()
    for turn, card in enumerate(deal(seed).cards, start=1):
        legal = [cell_name(i) for i in grid.legal_cells()]
        index = grid.legal_cells()[0]
        grid.place(index, card)
        messages.append(
            CardDealt(room_id="r1", turn=turn, card=str(card), legal=legal, deadline_ms=30000)
        )
        messages.append(Placed(room_id="r1", turn=turn, cell=cell_name(index), card=str(card)))
    return messages, grid


def series_line(app: CribApp) -> str:
    return text_of(app.screen.query_one("#results-series", Static))


@pytest.mark.slow
async def test_a_best_of_three_shows_its_score_the_rating_and_a_rematch() -> None:
    clock = Clock()
    app = CribApp("ws://127.0.0.1:9/ws", clock=clock)
    async with app.run_test(size=(130, 45)) as pilot:
        wire = await signed_in(pilot, app)
        wire.feed(RoomState(room=room()))
        await reach(pilot, app, RoomScreen, "the room")
        assert "best of 3, rated" in text_of(app.screen.query_one("#room-head", Static))
        app.model.contribution = "mine"

        messages, grid = deal_messages(SECRETS[0], "m1", 1, ROOM_COMMITMENT)
        wire.feed(*messages)
        await reach(pilot, app, GameScreen, "deal 1")
        wire.feed(result(1, grid, SECRETS[0], series(1, 1, 0, next_ms=5000)))
        await reach(pilot, app, ResultsScreen, "deal 1's results")
        line = series_line(app)
        assert "deal 1 of 3 \u2014 you lead 1\u20130, next deal in 5s" in line
        assert "deal verified" in text_of(app.screen.query_one("#results-head", Static))
        clock.t += 1.0
        await until(pilot, lambda: "next deal in 4s" in series_line(app), "next deal in 4s")

        # leaving in the middle of a series forfeits it: Enter asks first
        await pilot.press("enter")
        assert "Leaving now forfeits the series" in series_line(app)
        await pilot.press("left")
        assert "forfeits" not in series_line(app)
        assert not any(isinstance(m, LeaveRoom) for m in wire.sent)
        await pilot.press("r")  # no rematch before the end

        messages, grid = deal_messages(SECRETS[1], "m2", 2, SECRETS[0])
        wire.feed(*messages)
        await reach(pilot, app, GameScreen, "deal 2, by itself")
        # A fresh log for each match: deal 2's starts with its own start, none of deal 1's.
        log = app.match_log()
        assert "match m2 started" in log[0] and not any("m1" in line for line in log), log
        wire.feed(result(2, grid, SECRETS[1], series(2, 2, 0, finished=True)))
        await reach(pilot, app, ResultsScreen, "the series' end")
        assert app.model.match is not None and app.model.match.verification.ok
        over = series(2, 2, 0, finished=True).model_dump()
        wire.feed(RoomUpdate(room=room(status="finished", series=over, can_rematch=True)))
        wire.feed(
            RatingsChanged.model_validate(
                {"type": "ratings", "room_id": "r1", "pace": "lockstep", "changes": [
                    {"player": ME.model_dump(), "before": 1500, "after": 1662,
                     "deviation_before": 350, "deviation_after": 290, "provisional": True},
                    {"player": BOB.model_dump(), "before": 1500, "after": 1338,
                     "deviation_before": 350, "deviation_after": 290, "provisional": True}]}
            )
        )  # fmt: skip
        await until(pilot, lambda: "rating" in series_line(app), "the rating")
        line = series_line(app)
        assert "best of 3, 2 deals \u2014 you won the series 2\u20130" in line
        assert "your rating 1500 \u2192 1662 (+162), provisional" in line
        assert "r offers a rematch" in line

        # the opponent wants a rematch; r accepts; a new series starts on a new chain
        finished = room(status="finished", series=over, can_rematch=True)
        wire.feed(RoomUpdate(room=finished.model_copy(update={"rematch": ["p2"]})))
        await until(pilot, lambda: "bob wants a rematch" in series_line(app), "bob's offer")
        assert "r accepts" in series_line(app)
        await pilot.press("r")
        await until(pilot, lambda: any(isinstance(m, Rematch) for m in wire.sent), "r")
        asked = wire.last(Rematch)
        assert asked.want and asked.room_id == "r1" and asked.contribution
        new_commitment, new_secrets = chain(3, "n" * 64)
        wire.feed(
            RoomUpdate(
                room=finished.model_copy(
                    update={"rematch": ["p2", "p1"], "server_commitment": new_commitment}
                )
            )
        )
        await until(pilot, lambda: "Rematch: starting" in series_line(app), "both want it")
        messages, _ = deal_messages(new_secrets[0], "n1", 1, new_commitment)
        wire.feed(*messages[:2])
        await reach(pilot, app, GameScreen, "the rematch")
        assert app.model.my_rating_change() is None and app.model.secrets == {}
        assert "match n1 started" in app.match_log()[0]


@pytest.mark.slow
async def test_the_match_screen_tells_the_series_and_escape_resigns_after_asking() -> None:
    from client_cli.tui.screens.confirm import ConfirmDialog

    app = CribApp("ws://127.0.0.1:9/ws", clock=Clock())
    async with app.run_test(size=(80, 24)) as pilot:
        wire = await signed_in(pilot, app)
        wire.feed(RoomState(room=room()))
        await reach(pilot, app, RoomScreen, "the room")
        app.model.contribution = "mine"
        messages, grid = deal_messages(SECRETS[0], "m1", 1, ROOM_COMMITMENT)
        wire.feed(*messages)
        await reach(pilot, app, GameScreen, "deal 1")
        assert "deal 1 of 3" in text_of(app.screen.query_one("#game-series", Static))
        first = result(1, grid, SECRETS[0], series(1, 1, 0, next_ms=5000))
        # bob's board first, ranked above mine (as the server orders them)
        ranked = [
            b.model_copy(update={"rank": 2 if b.player.id == ME.id else 1}) for b in first.boards
        ]
        ranked.sort(key=lambda b: b.rank)
        assert ranked[0].player.id != ME.id
        wire.feed(first.model_copy(update={"boards": ranked}))
        await reach(pilot, app, ResultsScreen, "deal 1's results")
        # at 80 columns one board fits: it is mine, whatever my rank
        shown = [b.player_id for b in app.screen.query(ResultBoard)]
        assert shown[0] == ME.id and len(shown) == 2

        messages, _ = deal_messages(SECRETS[1], "m2", 2, SECRETS[0])
        wire.feed(*messages[:2])  # deal 2 starts; its first card arrives
        await reach(pilot, app, GameScreen, "deal 2")
        heading = text_of(app.screen.query_one("#game-series", Static))
        assert heading == "deal 2 of 3 \u2014 you lead 1\u20130"
        # Escape with something typed clears it; with nothing typed it asks to resign
        await pilot.press("b")
        await pilot.press("escape")
        assert not isinstance(app.screen, ConfirmDialog)
        await pilot.press("escape")
        await reach(pilot, app, ConfirmDialog, "the question")
        assert "forfeits the series" in text_of(app.screen.query_one("#confirm-text", Static))
        await pilot.press("n")
        await reach(pilot, app, GameScreen, "still playing")
        assert not any(isinstance(m, LeaveRoom) for m in wire.sent)
        await pilot.press("escape")
        await reach(pilot, app, ConfirmDialog, "asked again")
        await pilot.press("y")
        await until(pilot, lambda: any(isinstance(m, LeaveRoom) for m in wire.sent), "the leave")


@pytest.mark.slow
async def test_a_tournament_tables_results_offer_no_rematch() -> None:
    app = CribApp("ws://127.0.0.1:9/ws", clock=Clock())
    async with app.run_test(size=(120, 40)) as pilot:
        wire = await signed_in(pilot, app)
        wire.feed(RoomState(room=room(origin="tournament", deals=1, rated=False)))
        await reach(pilot, app, RoomScreen, "the table")
        messages, grid = deal_messages(SECRETS[0], "m1", 1, ROOM_COMMITMENT)
        wire.feed(*messages)
        await reach(pilot, app, GameScreen, "the deal")
        wire.feed(result(1, grid, SECRETS[0], None))
        await reach(pilot, app, ResultsScreen, "the results")
        await pilot.pause(0.2)
        assert app.screen.check_action("rematch", ()) is False
        offered = [b.binding.description for b in app.screen.active_bindings.values() if b.enabled]
        assert "Rematch" not in offered and "Replay" in offered
