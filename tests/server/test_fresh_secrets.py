"""Every secret is fresh, and a deal is shown to nobody but its players until every
table playing it has finished: property-tested over whole tournaments of every
format and best-of, and over rooms with series and rematches, restarts included.

The real lobby, rooms, tournament directors, storage and restart path run with no
sockets (tests/server/fairworld.py); hypothesis chooses the tournament, who plays,
the order in which bots and people move (so fast tables finish while slow ones
still play), spectators, resyncs, a cancel and a restart. Then, for every deal
that began: nothing anyone but its players had read before it began (every
message to anyone else, every HTTP answer) is its seed or its server secret,
or gives either by the constructions the code uses: one or several SHA-256,
the tournament HMACs, the room seed over the contributions in use, the round
contribution over the published ones. And until the deal may be shown (its end;
for a tournament deal, the end of its round), no message to anyone not seated at
its table and no HTTP answer carries its seed, secret, starter or a board's cards.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.deal import commitment, room_seed, table_deal_secret, table_root
from protocol.deals import Place
from protocol.fields import PlayerInfo
from protocol.rooms import CreateRoom, JoinRoom, LeaveRoom, Ready, Rematch, Resync, StartMatch
from protocol.tournaments import (
    AddTournamentBot,
    CreateTournament,
    JoinTournament,
    ManageTournament,
)
from server.room import Phase
from server.series import secret_chain
from server.storage import StoredPlayer
from tests.server.fairworld import World, card_leaks, derived, round_contributions, strings

HOST = PlayerInfo(id="p-host", name="host")
PEOPLE = [PlayerInfo(id=f"p-person{i}", name=f"person{i}") for i in range(3)]
WATCHER = PlayerInfo(id="p-watcher", name="watcher")  # spectates everything it can
OUTSIDER = PlayerInfo(id="p-outsider", name="outsider")  # signed in, in nothing
EVERYONE = [HOST, *PEOPLE, WATCHER, OUTSIDER]

OPS = ("tick", "tick", "bot", "bot", "bot", "place", "place", "watch", "resync", "restart")
MAX_DRAWN = 120  # steps hypothesis chooses; then everything is played out in order
MAX_STEPS = 4_000


def check(world: World, tids: list[str], rounds: int, deals: int) -> None:
    """The two rules, over everything the world recorded."""
    assert world.begun, "no deal began"
    lists = sorted(world.contribution_lists)
    extra = round_contributions(world)
    cache: dict[str, set[str]] = {}

    def made_of(value: str) -> set[str]:
        if value not in cache:
            cache[value] = derived(value, tids, rounds, deals, lists)
        return cache[value]

    for b in world.begun:
        for value in {*world.published_before(b), *extra}:
            made = made_of(value)
            assert b.seed not in made, f"deal {b.key} ({b.match_id}): seed from {value!r}"
            assert b.secret not in made, f"deal {b.key} ({b.match_id}): secret from {value!r}"
    # The embargo: nothing of a deal to anyone not seated at its table before it may be shown.
    for (step, pid, message), (_, _, texts) in zip(world.messages, world.seen, strict=True):

        def hidden(mid: str, step: int = step, pid: str = pid) -> bool:
            return step < world.shown_from(mid) and pid not in world.seated.get(mid, ())

        assert not list(card_leaks(message, hidden)), (pid, message)
        for b in world.begun:
            if hidden(b.match_id) and pid not in world.players_of.get(b.key, {}):
                assert b.seed not in texts and b.secret not in texts, (pid, message)
    for step, answers in world.http_after.items():

        def unshown(mid: str, step: int = step) -> bool:
            return step < world.shown_from(mid)

        assert not list(card_leaks(answers, unshown)), step
        shown = set(strings(answers))
        for b in world.begun:
            if unshown(b.match_id):
                assert b.seed not in shown and b.secret not in shown, (step, b.match_id)


async def sign_in(world: World) -> None:
    assert world.storage is not None
    for p in EVERYONE:  # registered first, as hello does: the rooms they open refer to them
        await world.storage.create_player(StoredPlayer(p.id, p.name, False, False), f"t-{p.id}", 0)
        await world.apply(lambda p=p: world.lobby.connect(p, world.now))


async def person_plays(world: World, who: int, pick: int) -> bool:
    """A person with a card waiting places it on one of its legal cells."""
    person = PEOPLE[who % len(PEOPLE)]
    for room in world.lobby.rooms_of(person.id):
        you = room.view_for(person.id, world.now).you
        if you is not None and you.turn is not None and you.legal:
            cell = you.legal[pick % len(you.legal)]
            return await world.apply(
                lambda r=room, t=you.turn, c=cell: world.lobby.handle(
                    person, Place(room_id=r.id, turn=t, cell=c), world.now
                )
            )
    return False


async def watch(world: World, pick: int) -> None:
    """The watcher spectates a room being played, by its invite code if it is private
    (as if a player had passed it on), or resyncs one it watches."""
    rooms = sorted(world.lobby.rooms.values(), key=lambda r: r.id)
    live = [r for r in rooms if r.phase != Phase.FINISHED]
    if not live:
        return
    room = live[pick % len(live)]
    join = JoinRoom(room_id=room.id, invite_code=room.invite_code, spectate=True)
    await world.apply(lambda: world.lobby.handle(WATCHER, join, world.now))


async def resync(world: World, pick: int) -> None:
    rooms = world.lobby.rooms_of(WATCHER.id)
    if rooms:
        room = rooms[pick % len(rooms)]
        await world.apply(lambda: world.lobby.handle(WATCHER, Resync(room_id=room.id), world.now))


async def step(world: World, op: str, pick: int) -> None:
    if op == "tick":
        await world.tick((50, 400, 2_500, 9_000)[pick % 4])
    elif op == "bot":
        await world.bot(pick)
    elif op == "place":
        await person_plays(world, pick, pick // 3)
    elif op == "watch":
        await watch(world, pick)
    elif op == "resync":
        await resync(world, pick)
    elif op == "restart":
        await world.restart(EVERYONE)


async def play_out(world: World, over: Any) -> None:
    """Everything still to be played, in order: bots answer, people place, time passes."""
    for _ in range(MAX_STEPS):
        if over():
            return
        if world.turns:
            await world.bot(0)
        elif not any([await person_plays(world, i, 0) for i in range(len(PEOPLE))]):
            await world.tick(1_000)
    raise AssertionError("still playing after many steps")


@st.composite
def tournaments(draw: st.DrawFn) -> dict[str, Any]:
    fmt = draw(st.sampled_from(["duplicate", "swiss", "knockout"]))
    people = draw(st.integers(1, 3))
    return {
        "format": fmt,
        "best_of": draw(st.sampled_from([1, 3, 5])) if fmt == "knockout" else 1,
        "rounds": draw(st.integers(1, 3)),
        "pace": draw(st.sampled_from(["lockstep", "race"])),
        "people": people,
        "bots": draw(st.integers(2 - min(people, 2), 4)),
        "seed": draw(st.integers(0, 2**32)),
        # now and then the host cancels it after that many steps
        "cancel_at": draw(st.one_of(st.none(), st.none(), st.none(), st.integers(5, 100))),
    }


async def run_tournament(path: Path, spec: dict[str, Any], data: st.DataObject) -> None:
    world = World(path, spec["seed"])
    await world.open()
    try:
        await sign_in(world)
        create = CreateTournament(
            name="cup", format=spec["format"], rounds=spec["rounds"], best_of=spec["best_of"],
            pace=spec["pace"], card_clock_ms=3_000, deal_clock_ms=20_000, max_players=8,
        )  # fmt: skip
        await world.apply(lambda: world.lobby.handle(HOST, create, world.now))
        (tid,) = world.lobby.tournaments.directors
        for i in range(spec["people"]):
            join = JoinTournament(tournament_id=tid, contribution=f"share-{i}-{spec['seed']}")
            await world.apply(lambda j=join, i=i: world.lobby.handle(PEOPLE[i], j, world.now))
        if spec["bots"]:
            bots = AddTournamentBot(tournament_id=tid, strategy="greedy", count=spec["bots"])
            await world.apply(lambda: world.lobby.handle(HOST, bots, world.now))
        watch_it = JoinTournament(tournament_id=tid, spectate=True)
        await world.apply(lambda: world.lobby.handle(WATCHER, watch_it, world.now))
        start = ManageTournament(tournament_id=tid, action="start")
        await world.apply(lambda: world.lobby.handle(HOST, start, world.now))
        restarts = 0

        def director_over() -> bool:
            d = world.lobby.tournaments.directors.get(tid)
            return d is None or d.over

        for n in range(MAX_DRAWN):
            if director_over():
                break
            if n == spec["cancel_at"]:
                cancel = ManageTournament(tournament_id=tid, action="cancel")
                await world.apply(lambda c=cancel: world.lobby.handle(HOST, c, world.now))
                continue
            op = data.draw(st.sampled_from(OPS), label="op")
            pick = data.draw(st.integers(0, 11), label="pick")
            if op == "restart":
                if restarts >= 1:
                    continue
                restarts += 1
            await step(world, op, pick)
        await play_out(world, director_over)
        deals = spec["best_of"]
        check(world, [tid], max(spec["rounds"], 3), deals)
    finally:
        await world.close()


@pytest.mark.slow
@given(spec=tournaments(), data=st.data())
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_no_tournament_deal_is_foreseeable_or_shown_before_its_round_is_over(
    spec: dict[str, Any], data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run_tournament(Path(tmp) / "t.db", spec, data))


@st.composite
def rooms(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "deals": draw(st.sampled_from([1, 3, 5])),
        "pace": draw(st.sampled_from(["lockstep", "race"])),
        "bot": draw(st.booleans()),
        "private": draw(st.booleans()),
        "rematches": draw(st.integers(0, 2)),
        "seed": draw(st.integers(0, 2**32)),
    }


async def run_rooms(path: Path, spec: dict[str, Any], data: st.DataObject) -> None:
    """A room's series, its rematches, a spectator and a restart: every deal fresh."""
    world = World(path, spec["seed"])
    await world.open()
    try:
        await sign_in(world)
        a, b = PEOPLE[0], PEOPLE[1]
        create = CreateRoom(
            name="duel", seats=2, pace=spec["pace"], deals=spec["deals"], card_clock_ms=3_000,
            deal_clock_ms=20_000, contribution=f"a-{spec['seed']}",
            visibility="private" if spec["private"] else "public",
        )  # fmt: skip
        await world.apply(lambda: world.lobby.handle(a, create, world.now))
        (room,) = world.lobby.rooms_of(a.id)
        rid = room.id
        if spec["bot"]:
            from protocol.rooms import AddBot

            await world.apply(
                lambda: world.lobby.handle(a, AddBot(room_id=rid, strategy="greedy"), world.now)
            )
            await world.apply(lambda: world.lobby.handle(a, StartMatch(room_id=rid), world.now))
        else:
            join = JoinRoom(room_id=rid, invite_code=room.invite_code, contribution="b-share")
            await world.apply(lambda: world.lobby.handle(b, join, world.now))
            for p in (a, b):
                await world.apply(lambda p=p: world.lobby.handle(p, Ready(room_id=rid), world.now))
        series_left = 1 + spec["rematches"]
        restarted = False
        for _ in range(MAX_DRAWN):
            r = world.lobby.rooms.get(rid)
            if r is None:
                break
            if r.phase == Phase.FINISHED:
                series_left -= 1
                if series_left <= 0:
                    break
                for p in (a,) if spec["bot"] else (a, b):
                    want = Rematch(room_id=rid, want=True, contribution=f"again-{series_left}")
                    await world.apply(lambda p=p, w=want: world.lobby.handle(p, w, world.now))
                continue
            op = data.draw(st.sampled_from(OPS), label="op")
            pick = data.draw(st.integers(0, 11), label="pick")
            if op == "restart":
                if restarted:
                    continue
                restarted = True
            await step(world, op, pick)

        def done() -> bool:
            r = world.lobby.rooms.get(rid)
            return r is None or r.phase == Phase.FINISHED

        await play_out(world, done)
        await world.apply(lambda: world.lobby.handle(a, LeaveRoom(room_id=rid), world.now))
        check(world, [], 0, spec["deals"])
    finally:
        await world.close()


@pytest.mark.slow
@given(spec=rooms(), data=st.data())
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_no_room_deal_is_foreseeable_or_shown_before_it_is_over(
    spec: dict[str, Any], data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run_rooms(Path(tmp) / "r.db", spec, data))


def test_the_check_catches_a_table_chained_from_the_round_secret() -> None:
    """The rule the property tests prove would have failed before tables got fresh
    secrets: a best-of-3 table chained from round 1's secret R deals its second
    deal from the tournament's published commitment, its first from its hash."""
    r1 = "ab" * 32
    published = commitment(r1)  # the tournament's commitment, public from its creation
    contributions = ["d" * 64, "d" * 64]
    chain = secret_chain(r1, 3)
    made = derived(published, ["t1"], 1, 3, [tuple(contributions)])
    assert chain[1] in made and chain[0] in made
    assert room_seed(chain[0], contributions) in made
    # Fresh: the tables' secrets and seeds come from nothing published.
    root = table_root(r1, "t1", 1)
    fresh = [table_deal_secret(root, j) for j in (1, 2, 3)]
    assert not {*fresh, *(room_seed(s, contributions) for s in fresh)} & made
