"""The client-side model, the token store and the deal check, driven by plain data."""

from __future__ import annotations

import hashlib
import stat

from client_cli.config import SavedSignIn, TokenStore
from client_cli.model.checks import verify_result
from client_cli.model.state import ClientModel
from client_cli.model.views import Connection, View
from client_cli.session import http_base, normalize_url
from engine import Grid, commitment, deal, room_seed, score_board
from engine.grid import cell_name
from protocol.connection import ErrorMessage, Welcome
from protocol.deals import (
    BoardResult,
    BoardScoreOut,
    CardDealt,
    MatchResult,
    MatchStarted,
    Placed,
    PlacementOut,
    YourBoard,
)
from protocol.fields import PlayerInfo
from protocol.rooms import RoomInfo, RoomState

ME = PlayerInfo(id="p1", name="ada")
SECRET = "s" * 64
CONTRIBUTIONS = ["mine", "theirs"]
SEED = room_seed(SECRET, CONTRIBUTIONS)
SERVER_COMMITMENT = hashlib.sha256(SECRET.encode()).hexdigest()


def room(status: str = "waiting") -> RoomInfo:
    return RoomInfo.model_validate(
        {
            "id": "r1",
            "name": "test",
            "visibility": "public",
            "pace": "lockstep",
            "seats": 1,
            "status": status,
            "card_clock_ms": 30000,
            "deal_clock_ms": 300000,
            "creator": ME.model_dump(),
            "players": [{"seat": 0, "player": ME.model_dump(), "ready": False}],
            "server_commitment": SERVER_COMMITMENT,
        }
    )


def signed_in_model() -> ClientModel:
    model = ClientModel("ws://x/ws")
    model.apply(Welcome(server="test", player=ME), 0.0)
    model.apply(RoomState(room=room()), 0.0)
    model.contribution = "mine"
    return model


def start(model: ClientModel) -> None:
    model.apply(
        MatchStarted(
            room_id="r1",
            match_id="m1",
            pace="lockstep",
            seed_commitment=commitment(SEED),
            server_commitment=SERVER_COMMITMENT,
            contributions=CONTRIBUTIONS,
            card_clock_ms=30000,
            deal_clock_ms=300000,
        ),
        0.0,
    )


def play_all(model: ClientModel) -> Grid:
    """Deal and place the 16 cards, first legal cell each time, as the server would."""
    d = deal(SEED)
    grid = Grid()
    for turn, card in enumerate(d.cards, start=1):
        legal = [cell_name(i) for i in grid.legal_cells()]
        model.apply(
            CardDealt(room_id="r1", turn=turn, card=str(card), legal=legal, deadline_ms=30000),
            float(turn),
        )
        cell = legal[0]
        assert model.why_not(cell) is None
        grid.place(grid.legal_cells()[0], card)
        model.apply(Placed(room_id="r1", turn=turn, cell=cell, card=str(card)), float(turn))
    return grid


def result_for(grid: Grid, seed: str = SEED) -> MatchResult:
    d = deal(seed)
    score = score_board(grid.cards(), d.starter)
    board = BoardResult(
        player=ME,
        seat=0,
        rank=1,
        cells=[str(c) if c else None for c in grid.cells()],
        placements=[
            PlacementOut(turn=t, cell=cell_name(grid.cells().index(c)), card=str(c))
            for t, c in enumerate(d.cards, start=1)
        ],
        score=BoardScoreOut.model_validate(score.to_dict()),
        time_used_ms=0,
    )
    return MatchResult(
        room_id="r1",
        match_id="m1",
        starter=str(d.starter),
        seed=seed,
        server_secret=SECRET,
        seed_commitment=commitment(SEED),
        boards=[board],
    )


def test_views_follow_the_match() -> None:
    model = ClientModel("ws://x/ws")
    assert model.view == View.SIGN_IN
    model.apply(Welcome(server="test", player=ME), 0.0)
    assert model.view == View.LOBBY
    model.apply(RoomState(room=room()), 0.0)
    assert model.view == View.ROOM and model.is_creator
    start(model)
    assert model.view == View.GAME
    grid = play_all(model)
    assert model.match is not None and model.match.placed_count == 16
    lines = model.apply(result_for(grid), 20.0)
    assert model.view == View.RESULTS
    assert any("deal verified" in line for line in lines)
    assert model.match.verification is not None and model.match.verification.ok


def test_an_illegal_cell_is_refused_with_the_reason_and_nothing_changes() -> None:
    model = signed_in_model()
    start(model)
    model.apply(
        CardDealt(
            room_id="r1",
            turn=1,
            card="5H",
            legal=[cell_name(i) for i in range(16)],
            deadline_ms=30000,
        ),
        0.0,
    )
    model.apply(Placed(room_id="r1", turn=1, cell="a1", card="5H"), 0.0)
    model.apply(
        CardDealt(room_id="r1", turn=2, card="6H", legal=["b1", "a2", "b2"], deadline_ms=30000), 0.0
    )
    assert (
        model.why_not("d4") == "cell d4 does not touch a placed card (across, down or diagonally)"
    )
    assert "already holds 5H" in (model.why_not("a1") or "")
    assert "unknown cell" in (model.why_not("e9") or "")
    assert model.match is not None and model.match.card == "6H" and model.match.placed_count == 1
    assert model.why_not("b2") is None


def test_a_tampered_seed_is_not_verified() -> None:
    model = signed_in_model()
    start(model)
    grid = play_all(model)
    good = result_for(grid)
    bad = good.model_copy(update={"seed": room_seed(SECRET, ["mine", "other"])})
    v = verify_result(bad, CONTRIBUTIONS, SERVER_COMMITMENT, model.match.received, "mine", 0)
    assert not v.ok and "NOT VERIFIED" in v.summary
    v = verify_result(good, CONTRIBUTIONS, SERVER_COMMITMENT, model.match.received, "mine", 0)
    assert v.ok
    v = verify_result(good, CONTRIBUTIONS, SERVER_COMMITMENT, model.match.received, "mine", 1)
    assert not v.ok and "my contribution" in v.summary
    v = verify_result(
        good,
        CONTRIBUTIONS,
        SERVER_COMMITMENT,
        {1: "AS" if str(deal(SEED).cards[0]) != "AS" else "2S"},
        "mine",
    )
    assert not v.ok


def test_a_snapshot_resumes_the_match_where_it_stands() -> None:
    model = signed_in_model()
    snapshot = RoomState(
        room=room("playing"),
        match_id="m1",
        seed_commitment=commitment(SEED),
        contributions=CONTRIBUTIONS,
        you=YourBoard(
            cells=["5H"] + [None] * 15,
            placements=[PlacementOut(turn=1, cell="a1", card="5H")],
            turn=2,
            card="6H",
            legal=["b1", "a2", "b2"],
            deadline_ms=12000,
            time_used_ms=0,
        ),
    )
    lines = model.apply(snapshot, 100.0)
    assert "match in progress: card 2/16 is 6H; legal: b1 a2 b2" in lines
    assert model.view == View.GAME
    m = model.match
    assert m is not None and m.card == "6H" and m.turn == 2 and m.cells[0] == "5H"
    assert m.clock is not None and m.clock.left_ms(101.0) == 11000
    # After a reconnect the server pushes the room's state and the client's resync
    # asks for it again: the log says where the match stands once.
    again = model.apply(snapshot, 101.0)
    assert not any(line.startswith("match in progress") for line in again)


def test_a_closed_room_sends_the_player_back_to_the_lobby() -> None:
    model = signed_in_model()
    model.apply(ErrorMessage(code="not_in_room", reason="you are not in room r1", room_id="r1"), 0)
    assert model.view == View.LOBBY


def test_tokens_are_kept_per_server_readable_by_the_owner_only(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    store = TokenStore()
    assert store.path == tmp_path / "cribsquares" / "tokens.json"
    store.put("ws://a/ws", SavedSignIn("secret-a", "ada", "p1"))
    store.put("ws://b/ws", SavedSignIn("secret-b", "bob", "p2"))
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert TokenStore().get("ws://a/ws") == SavedSignIn("secret-a", "ada", "p1")
    store.forget("ws://a/ws")
    assert store.get("ws://a/ws") is None and store.get("ws://b/ws") is not None
    store.path.write_text("not json")
    assert store.get("ws://b/ws") is None


def test_a_sign_in_is_the_server_s_whichever_node_the_address_asks_for(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    store = TokenStore()
    store.put("ws://h:8080/ws?node=b", SavedSignIn("secret", "ada", "p1"))
    for url in ("ws://h:8080/ws", "ws://h:8080/ws?node=a", "ws://h:8080/ws?node=b&node="):
        assert store.get(url) == SavedSignIn("secret", "ada", "p1"), url
    assert store.get("ws://h:8081/ws?node=b") is None  # another server
    store.put("ws://h:8080/ws?v=1", SavedSignIn("other", "bo", "p2"))
    assert store.get("ws://h:8080/ws?node=a&v=1") == SavedSignIn("other", "bo", "p2")
    store.forget("ws://h:8080/ws?node=c")
    assert store.get("ws://h:8080/ws") is None
    assert store.get("ws://h:8080/ws?v=1") is not None
    # One saved before the node was left out of the key is still found by its URL.
    store.path.write_text('{"ws://h:8080/ws?node=b": {"token": "old", "name": "cy", "id": "p3"}}')
    assert store.get("ws://h:8080/ws?node=b") == SavedSignIn("old", "cy", "p3")


def test_a_sign_in_is_told_unless_it_ends_a_move_to_another_node() -> None:
    model = ClientModel("ws://h/ws")
    model.set_connection(Connection.CONNECTING)
    assert model.apply(Welcome(server="test", player=ME), 0.0) == ["signed in as ada on test"]
    # A move: the session closes and signs in again with no state in between.
    assert model.apply(Welcome(server="test", player=ME), 1.0) == []
    # A connection lost and found again is told.
    model.set_connection(Connection.RECONNECTING, "the server closed the connection")
    assert model.apply(Welcome(server="test", player=ME), 2.0) == ["signed in as ada on test"]


def test_server_addresses() -> None:
    assert normalize_url("localhost:8765") == "ws://localhost:8765/ws"
    assert normalize_url("http://h:1/") == "ws://h:1/ws"
    assert normalize_url("wss://h/game") == "wss://h/game"
    assert http_base("wss://h:9/ws") == "https://h:9"
