"""The tournament director driven through the lobby, no sockets: every format to its
end with bots thinking in place, the same deal on every table of a round, the
host's commands and their refusals."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from engine.deal import table_deal_secret, table_root
from protocol.deals import Place
from protocol.fields import PlayerInfo
from protocol.tournaments import (
    AddTournamentBot,
    CreateTournament,
    GetTournament,
    JoinTournament,
    LeaveTournament,
    ListTournaments,
    ManageTournament,
    TournamentUpdate,
)
from server import errors
from server.bots import bot_factory
from server.config import LobbyConfig
from server.events import Event, MatchBegan, MatchEnded, TournamentStatus
from server.lobby import Lobby
from server.room import Outbound
from server.series import secret_chain
from server.tournaments.director import Director
from server.tournaments.model import Phase, round_contribution
from tests.server.roomkit import ALICE, BOB, CAROL, FixedIds, events_of


def lobby(**config: Any) -> Lobby:
    return Lobby(
        LobbyConfig(**{"between_rounds_ms": 0, "between_deals_ms": 0, **config}),
        ids=FixedIds(),
        bots=bot_factory,
    )


def create(lb: Lobby, now: int = 0, **fields: Any) -> Director:
    outs = lb.handle(ALICE, CreateTournament(name="cup", **fields), now)
    (update,) = [o.message for o in outs if isinstance(o.message, TournamentUpdate)]
    return lb.tournaments.directors[update.tournament.id]


def run_to_end(
    lb: Lobby,
    director: Director,
    now: int = 0,
    step: int = 1_000,
    events: list[Event] | None = None,
) -> int:
    """Tick the lobby until ``director`` is over (its steps' events added to ``events``)."""
    for _ in range(500):
        if director.over:
            return now
        now += step
        ticked = lb.run(lambda: lb.tick(now))  # noqa: B023 (run at once)
        if events is not None:
            events += ticked.events
    raise AssertionError(f"still {director.phase} after many ticks")


def last_update(outs: list[Outbound], who: str) -> TournamentUpdate:
    got = [o.message for o in outs if who in o.to and isinstance(o.message, TournamentUpdate)]
    assert got, f"no tournament update for {who}"
    message = got[-1]
    assert isinstance(message, TournamentUpdate)
    return message


def test_duplicate_field_every_table_of_a_round_has_the_same_deal() -> None:
    lb = lobby()
    d = create(lb, format="duplicate", rounds=3, pace="race", deal_clock_ms=60_000)
    lb.handle(ALICE, AddTournamentBot(tournament_id=d.id, strategy="greedy", count=3), 0)
    lb.handle(ALICE, AddTournamentBot(tournament_id=d.id, strategy="random", count=2), 0)
    start = ManageTournament(tournament_id=d.id, action="start")
    events = events_of(lb, lambda: lb.handle(ALICE, start, 0))
    run_to_end(lb, d, events=events)
    assert d.phase == Phase.FINISHED and len(d.rounds) == 3
    seeds: dict[str, set[str]] = {}
    scores: list[dict[str, int]] = [{} for _ in range(3)]
    match_round: dict[str, int] = {}
    chain = secret_chain(d.round_secrets[-1], len(d.round_secrets))
    # Round k's tables deal from the HMAC of round k's secret (docs/fairness.md).
    firsts = [table_deal_secret(table_root(s, d.id, i + 1), 1) for i, s in enumerate(chain)]
    for e in events:
        if isinstance(e, MatchBegan):
            (number,) = [i + 1 for i, s in enumerate(firsts) if s == e.server_secret]
            seeds.setdefault(str(number), set()).add(e.seed)
            match_round[e.match_id] = number
            assert [c for _, _, c in e.players] == [d.rounds[number - 1].contribution]
        if isinstance(e, MatchEnded):
            for o in e.outcomes:
                scores[match_round[e.match_id] - 1][o.player_id] = o.score
    assert {k: len(v) for k, v in seeds.items()} == {"1": 1, "2": 1, "3": 1}
    # The standings, recomputed by hand: 2 matchpoints a board beaten, 1 a tie.
    mp = Counter[str]()
    for deal in scores:
        for p, s in deal.items():
            mp[p] += sum(2 if s > o else 1 if s == o else 0 for q, o in deal.items() if q != p)
    table = d.standings()
    assert [round(s.matchpoints or 0) for s in table] == sorted(mp.values(), reverse=True)
    assert all(s.top == 3 * 2 * 4 for s in table)
    final = [e for e in events if isinstance(e, TournamentStatus) and e.status == "finished"]
    assert final and final[0].standings is not None and len(final[0].standings) == 5
    # The round contribution is made from the entrants' contributions, in order.
    contribs = [e.contribution for e in d.entrants.values()]
    assert d.rounds[0].contribution == round_contribution(d.id, 1, contribs)


def test_swiss_never_repeats_a_pair_and_gives_one_bye_a_round() -> None:
    lb = lobby()
    d = create(lb, format="swiss", rounds=4, pace="race", deal_clock_ms=60_000)
    lb.handle(ALICE, AddTournamentBot(tournament_id=d.id, strategy="greedy", count=7), 0)
    lb.handle(ALICE, ManageTournament(tournament_id=d.id, action="start"), 0)
    run_to_end(lb, d)
    assert len(d.rounds) == 4
    pairs = [frozenset(t.players) for r in d.rounds for t in r.tables if t.status != "bye"]
    assert len(pairs) == len(set(pairs)) == 4 * 3
    byes = [t.players[0] for r in d.rounds for t in r.tables if t.status == "bye"]
    assert len(byes) == len(set(byes)) == 4
    table = d.standings()
    assert sum(s.score or 0 for s in table) == 4 * 3 + 4  # a point a game, a point a bye


def test_knockout_seeds_byes_and_a_champion() -> None:
    lb = lobby()
    d = create(lb, format="knockout", best_of=3, pace="race", deal_clock_ms=60_000)
    lb.handle(ALICE, AddTournamentBot(tournament_id=d.id, strategy="greedy", count=5), 0)
    lb.handle(ALICE, ManageTournament(tournament_id=d.id, action="start"), 0)
    seeds = {e.seed for e in d.entrants.values()}
    assert seeds == {1, 2, 3, 4, 5}
    first = d.format.bracket(d)[0]
    assert len(first) == 8 and first.count(None) == 3
    run_to_end(lb, d)
    assert len(d.rounds) == 3
    table = d.standings()
    assert table[0].rank == 1 and table[0].out_in_round is None
    assert table[1].rank == 2 and table[1].out_in_round == 3
    assert sum(1 for e in d.entrants.values() if e.status == "eliminated") == 4


def test_host_commands_and_refusals_change_nothing() -> None:
    lb = lobby()
    d = create(lb, max_players=3, bots=False)
    with pytest.raises(errors.BotsNotAllowed):
        lb.handle(ALICE, AddTournamentBot(tournament_id=d.id), 0)
    with pytest.raises(errors.TooFewPlayers):
        lb.handle(ALICE, ManageTournament(tournament_id=d.id, action="start"), 0)
    for who in (ALICE, BOB, CAROL):
        lb.handle(who, JoinTournament(tournament_id=d.id, contribution=who.name), 0)
    before = repr(d.info(0))
    for who, message, error in [
        (BOB, ManageTournament(tournament_id=d.id, action="start"), errors.NotHost),
        (BOB, ManageTournament(tournament_id=d.id, action="pause"), errors.NotHost),
        (ALICE, ManageTournament(tournament_id=d.id, action="resume"), errors.TournamentState),
        (ALICE, ManageTournament(tournament_id=d.id, action="remove", player_id="x"),
         errors.NotRegistered),
        (ALICE, GetTournament(tournament_id="nope"), errors.TournamentNotFound),
    ]:  # fmt: skip
        with pytest.raises(error):
            lb.handle(who, message, 0)
        assert repr(d.info(0)) == before
    dave = ALICE.model_copy(update={"id": "id-dave", "name": "dave"})
    with pytest.raises(errors.TournamentFull):
        lb.handle(dave, JoinTournament(tournament_id=d.id), 0)
    listed = lb.handle(dave, ListTournaments(), 0)[0].message
    assert [t.entrants for t in listed.tournaments] == [3]  # type: ignore[attr-defined]
    outs = lb.handle(BOB, LeaveTournament(tournament_id=d.id, ref="w"), 0)
    assert last_update(outs, BOB.id).ref == "w"
    assert d.entrants[BOB.id].status == "withdrawn"
    outs = lb.handle(ALICE, ManageTournament(tournament_id=d.id, action="start", ref="s"), 5)
    assert last_update(outs, ALICE.id).ref == "s" and d.phase == Phase.PLAYING
    # Every update of the new round already says where each table plays.
    updates = [o.message for o in outs if isinstance(o.message, TournamentUpdate)]
    assert updates and all(t.room_id for u in updates for t in u.tournament.tables)
    with pytest.raises(errors.TournamentState):
        lb.handle(ALICE, ManageTournament(tournament_id=d.id, action="start"), 5)
    lb.handle(ALICE, ManageTournament(tournament_id=d.id, action="pause"), 6)
    assert d.phase == Phase.PAUSED
    lb.handle(ALICE, ManageTournament(tournament_id=d.id, action="resume"), 7)
    assert d.phase == Phase.PLAYING
    lb.handle(ALICE, ManageTournament(tournament_id=d.id, action="cancel"), 8)
    assert d.phase == Phase.CANCELLED


def test_the_round_clock_stops_tables_and_an_absent_player_is_played_for() -> None:
    lb = lobby(grace_ms=1_000)
    d = create(lb, format="duplicate", rounds=2, round_clock_ms=20_000, card_clock_ms=30_000)
    lb.handle(ALICE, JoinTournament(tournament_id=d.id), 0)  # alice never connects
    lb.handle(ALICE, AddTournamentBot(tournament_id=d.id, count=2), 0)
    lb.handle(ALICE, ManageTournament(tournament_id=d.id, action="start"), 0)
    # Alice is not online: after the grace period the server places her cards.
    end = run_to_end(lb, d, step=500)
    assert d.phase == Phase.FINISHED and end < 2 * 20_000 + 5_000
    alice = next(s for s in d.standings() if s.player.id == ALICE.id)
    assert alice.deals == 2


def test_late_entrant_plays_from_the_next_round_with_neuberg_scaling() -> None:
    lb = lobby(between_rounds_ms=1_500)
    d = create(lb, format="duplicate", rounds=2, pace="race", deal_clock_ms=60_000)
    lb.handle(ALICE, AddTournamentBot(tournament_id=d.id, strategy="greedy", count=3), 0)
    lb.handle(ALICE, ManageTournament(tournament_id=d.id, action="start"), 0)
    assert d.rounds[0].finished  # bots think in place: round 1 is over at once
    lb.handle(BOB, JoinTournament(tournament_id=d.id, contribution="late"), 1_000)
    assert d.entrants[BOB.id].joined_round == 2
    lb.tick(2_000)
    assert len(d.rounds) == 2
    # Bob plays round 2 by hand.
    room_id = next(t.room_id for t in d.rounds[1].tables if BOB.id in t.players)
    assert room_id is not None
    room = lb.rooms[room_id]
    for turn in range(1, 17):
        cell = room.view_for(BOB.id, 2_000).you.legal[0]  # type: ignore[union-attr]
        lb.handle(BOB, Place(room_id=room_id, turn=turn, cell=cell), 2_000 + turn)
    run_to_end(lb, d, now=3_000)
    bob = next(s for s in d.standings() if s.player.id == BOB.id)
    assert bob.deals == 1 and bob.top == 2 * 3  # one deal, a field of four


def test_a_bot_thinking_elsewhere_is_asked_again_on_every_deal_of_a_series() -> None:
    from protocol.fields import Pace
    from server.room import Room, RoomSettings
    from tests.server.roomkit import answer_bots

    room = Room("r", RoomSettings(name="bo3", best_of=3, pace=Pace.RACE), ALICE, now_ms=0,  # type: ignore[arg-type]
                server_secret="s" * 64, match_id="m", bots=bot_factory, think_elsewhere=True,
                between_deals_ms=0)  # fmt: skip
    room.seat_bot("greedy")
    room.play_as_bot(ALICE.id, "greedy")
    from tests.server.roomkit import Mailbox

    box = Mailbox()
    box.add(room.start(0))
    now = 0
    while room.series.started <= 3 and not room.series.finished:
        assert answer_bots(room, box, now) > 0, f"deal {room.series.started}: no bot was asked"
        now += 10
        box.add(room.tick(now))
    assert room.series.finished and not any(
        p.auto
        for b in room.match.boards.values()
        for p in b.placements  # type: ignore[union-attr]
    )


def test_a_server_admin_may_run_a_tournament_it_does_not_host() -> None:
    lb = lobby(admins=frozenset({CAROL.id}))
    d = create(lb, format="duplicate", rounds=1)
    for who in (ALICE, BOB):
        lb.handle(who, JoinTournament(tournament_id=d.id), 0)
    with pytest.raises(errors.NotHost):
        lb.handle(BOB, ManageTournament(tournament_id=d.id, action="start"), 0)
    lb.handle(CAROL, ManageTournament(tournament_id=d.id, action="start"), 0)
    assert d.phase == Phase.PLAYING


def test_admin_rights_go_by_id_never_to_a_name_a_bot_or_a_guest() -> None:
    lb = lobby(admins=frozenset({CAROL.id}))
    d = create(lb, format="duplicate", rounds=1)
    for who in (ALICE, BOB):
        lb.handle(who, JoinTournament(tournament_id=d.id), 0)
    pretenders = (
        PlayerInfo(id="p-other", name=CAROL.name),  # her name, another id
        PlayerInfo(id=CAROL.id, name=CAROL.name, bot=True),  # even her id, as a bot
        PlayerInfo(id=CAROL.id, name=CAROL.name, guest=True),
    )
    for who in pretenders:
        before = d.phase
        with pytest.raises(errors.NotHost):
            lb.handle(who, ManageTournament(tournament_id=d.id, action="start"), 0)
        with pytest.raises(errors.NotHost):
            lb.handle(who, AddTournamentBot(tournament_id=d.id), 0)
        assert d.phase == before


def test_what_may_be_done_now_is_the_servers_and_holds_as_commands_are_tried() -> None:
    """tournament.actions, sent to every client, says what the phase table and the
    settings allow now; each action offered is accepted, and one not offered is
    refused, at each stage of a tournament's life."""
    lb = lobby()
    director = create(lb, format="swiss", rounds=2, bots=True, late_join=True)
    tid = director.id
    opened = director.info(0).actions
    assert (opened.entry, opened.withdraw) == ("open", True)
    assert opened.host == ["start", "cancel", "remove", "add_bots"]
    lb.handle(BOB, JoinTournament(tournament_id=tid), 1)
    lb.handle(ALICE, AddTournamentBot(tournament_id=tid, strategy="greedy", count=1), 2)
    lb.handle(ALICE, ManageTournament(tournament_id=tid, action="start"), 3)
    playing = director.info(3).actions
    assert (playing.entry, playing.withdraw) == ("next_round", True)
    assert playing.host == ["pause", "cancel", "remove", "add_bots"]
    with pytest.raises(errors.TournamentState):  # not offered: refused
        lb.handle(ALICE, ManageTournament(tournament_id=tid, action="start"), 4)
    lb.handle(ALICE, ManageTournament(tournament_id=tid, action="pause"), 4)
    assert director.info(4).actions.host == ["resume", "cancel", "remove", "add_bots"]
    lb.handle(ALICE, ManageTournament(tournament_id=tid, action="resume"), 5)
    lb.handle(CAROL, JoinTournament(tournament_id=tid), 6)  # a late entry, as offered
    assert director.entrants[CAROL.id].joined_round == 2
    run_to_end(lb, director, now=10)
    over = director.info(10**9).actions
    assert (over.entry, over.withdraw, over.host) == (None, False, [])
    with pytest.raises(errors.RegistrationClosed):
        lb.handle(PlayerInfo(id="p-dan", name="dan"), JoinTournament(tournament_id=tid), 10**9)


def test_no_late_entry_is_offered_where_the_settings_allow_none() -> None:
    lb = lobby()
    director = create(lb, format="knockout", max_players=4, late_join=True)
    for player in (ALICE, BOB):
        lb.handle(player, JoinTournament(tournament_id=director.id), 1)
    lb.handle(ALICE, ManageTournament(tournament_id=director.id, action="start"), 2)
    assert director.info(2).actions.entry is None  # a knockout's bracket is drawn
    with pytest.raises(errors.RegistrationClosed):
        lb.handle(CAROL, JoinTournament(tournament_id=director.id), 3)


@pytest.mark.parametrize(
    ("fmt", "title", "columns", "length"),
    [
        ("duplicate", "duplicate field", ["MP %", "Matchpoints", "Points", "Deals"], "2 deals"),
        ("swiss", "Swiss", ["Score", "Buchholz", "S-B", "Points", "Deals"], "2 rounds"),
        ("knockout", "knockout", ["Seed", "Standing", "Points", "Deals"],
         "rounds as the field needs, one deal a match"),
    ],
)  # fmt: skip
def test_the_server_words_how_a_format_is_shown(
    fmt: str, title: str, columns: list[str], length: str
) -> None:
    """Clients show a format from what the server sends, knowing none: its title,
    its length, its standings' column titles and each line's figures."""
    lb = lobby()
    director = create(lb, format=fmt, rounds=2, bots=True, max_players=4)
    for player in (ALICE, BOB):
        lb.handle(player, JoinTournament(tournament_id=director.id), 1)
    info = director.info(1)
    assert (info.format_title, info.columns, info.length) == (title, columns, length)
    assert all(len(row.cells) == len(columns) for row in info.standings)
    (listed,) = lb.handle(ALICE, ListTournaments(), 2)
    line = listed.message.tournaments[0]  # type: ignore[attr-defined]
    assert line.format_title == title and line.length
    lb.handle(ALICE, ManageTournament(tournament_id=director.id, action="start"), 3)
    run_to_end(lb, director, now=10)
    over = director.info(10**9)
    assert over.standings[0].cells and all(c for c in over.standings[0].cells)
    if fmt == "knockout":
        assert over.standings[0].cells[1] == "champion" and over.length.startswith("1 round")
