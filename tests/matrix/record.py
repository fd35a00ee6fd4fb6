"""Deals of every origin, played on a real server, as each viewer received them.

The verification matrix (issue "Results players can trust, second pass") replays
these transcripts into every client's own message handling, honest and altered in
transit. One server plays, over real sockets: a room of two with a spectator who
played before; deals 1 to 3 of a best-of-five series, watched; a rematch; quick play
against a server bot; a challenge; a table of each tournament format, one watched;
the daily deal after earlier games; two bot programs in the arena. Each viewer's
transcript holds, in order, every message it received and every command it sent
(``{"type": "sent", "message": ...}``), so a client replaying it knows which
contribution it sent, and when. The stored record of each deal
(``GET /api/matches/{id}``, once its deal is over for everyone) comes along for the
replays from history.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.server.live import Client, Live, running_server, signed_in

# Deals follow each other at once, and a recorder places its cards as fast as they come
# (no person does: the frame rate limit is not what is recorded here).
FAST = {"between_deals_ms": 100, "rate_per_second": 10_000.0, "rate_burst": 10_000}
WAIT_S = 30.0  # no single step of a recording waits longer than this


class Recorder(Client):
    """A client whose log also holds what it sent, where it sent it."""

    async def send(self, **message: Any) -> None:
        self.log.append({"type": "sent", "message": message})
        await super().send(**message)


@dataclass
class Viewer:
    """One person's (or bot program's) view of one origin's deals."""

    origin: str  # "room", "series", "rematch", "quickplay", ...
    role: str  # "player", "spectator", "spectator who played before"
    player_id: str
    log: list[dict[str, Any]]  # everything from its welcome on, earlier games included
    matches: list[str]  # the deals of this origin it saw end, in order
    contributed: bool  # it sent a contribution of its own for this origin's room

    @property
    def name(self) -> str:
        return f"{self.origin}, {self.role}"


@dataclass
class Recording:
    viewers: list[Viewer] = field(default_factory=list)
    stored: dict[str, dict[str, Any]] = field(default_factory=dict)  # match id -> record


async def signed(live: Live, name: str, **extra: Any) -> Client:
    return await signed_in(live, name, kind=Recorder, **extra)


def result_in(m: dict[str, Any]) -> dict[str, Any] | None:
    """The deal result ``m`` shows: a ``match_result``, or a ``room_state`` holding one
    (how a tournament table's watcher is shown it once the round is over)."""
    if m["type"] == "match_result":
        return m
    if m["type"] == "room_state" and m.get("result"):
        shown: dict[str, Any] = m["result"]
        return shown
    return None


async def play(client: Client, deals: int, pick: int = 0) -> list[str]:
    """Place every card dealt to ``client`` until it has seen ``deals`` results; their
    match ids. A spectator (dealt nothing) just reads to the results."""
    ids: list[str] = []
    deadline = time.monotonic() + WAIT_S * deals
    while len(ids) < deals:
        try:
            m = await client.recv(timeout=max(0.01, deadline - time.monotonic()))
        except TimeoutError:
            heard = [m["type"] for m in client.log[-8:]]
            raise AssertionError(
                f"{client.id} waited for {deals} results, saw {len(ids)}; last heard: {heard}"
            ) from None
        if m["type"] == "card":
            cell = m["legal"][min(pick, len(m["legal"]) - 1)]
            await client.send(type="place", room_id=m["room_id"], turn=m["turn"], cell=cell)
        elif (shown := result_in(m)) is not None and shown["match_id"] not in ids:
            ids.append(shown["match_id"])
    return ids


async def reply(client: Client, kind: str, check: Callable[[dict[str, Any]], bool]) -> Any:
    """The first ``kind`` message meeting ``check`` (bounded: says what came instead)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        left = deadline - time.monotonic()
        try:
            m = await client.recv(timeout=max(0.01, left))
        except TimeoutError:
            heard = [(m["type"], m.get("code") or m.get("state")) for m in client.log[-14:]]
            raise AssertionError(f"waited {WAIT_S:g} s for {kind}; last heard: {heard}") from None
        if m["type"] == kind and check(m):
            return m


async def leave(client: Client, room_id: str) -> None:
    """Leave ``room_id`` and wait until the server says so, as the clients do before
    they go anywhere else."""
    await client.send(type="leave_room", room_id=room_id)
    await reply(client, "left", lambda m: m["room_id"] == room_id)


def viewer(origin: str, role: str, client: Client, ids: list[str], contributed: bool) -> Viewer:
    assert client.id is not None
    return Viewer(origin, role, client.id, list(client.log), ids, contributed)


async def duel(alice: Client, bob: Client, watcher: Client | None, **room: Any) -> str:
    await alice.send(type="create_room", name="matrix", seats=2, contribution="alice-1", **room)
    room_id: str = (await alice.until("room_state"))["room"]["id"]
    if watcher is not None:
        await watcher.send(type="join_room", room_id=room_id, spectate=True)
        await watcher.until("room_state")
    await bob.send(type="join_room", room_id=room_id, contribution="bob-1")
    await bob.until("room_state")
    for c in (alice, bob):
        await c.send(type="ready", room_id=room_id)
    return room_id


async def watched_deals(
    rec: Recording, origin: str, players: tuple[Client, Client], watcher: tuple[Client, str],
    deals: int,
) -> None:  # fmt: skip
    """The two ``players`` (who sent contributions) play ``deals`` deals, the first on
    each card's first legal cell, the other on its fourth; ``watcher`` (with its role)
    watches: a viewer each."""
    (a, b), (w, role) = players, watcher
    ids = (await asyncio.gather(play(a, deals), play(b, deals, 3), play(w, deals)))[0]
    rec.viewers += [
        viewer(origin, "player", a, ids, True),
        viewer(origin, "player", b, ids, True),
        viewer(origin, role, w, ids, False),
    ]


async def record_rooms(live: Live, rec: Recording) -> None:
    alice, bob = await signed(live, "alice"), await signed(live, "bob")
    carol = await signed(live, "carol")
    # carol plays a solo room first: a contribution of hers that no later deal took.
    await carol.send(type="create_room", name="solo", seats=1, contribution="carol-solo")
    solo = (await carol.until("room_state"))["room"]["id"]
    await carol.send(type="ready", room_id=solo)
    solo_ids = await play(carol, 1)
    rec.viewers.append(viewer("solo room", "player", carol, solo_ids, True))
    await leave(carol, solo)

    # A room of two, watched by carol.
    room_id = await duel(alice, bob, carol)
    seen = "spectator who played before"
    await watched_deals(rec, "room", (alice, bob), (carol, seen), 1)
    # A rematch in the same room: new contributions, a new series' secret.
    await alice.send(type="rematch", room_id=room_id, want=True, contribution="alice-2")
    await bob.send(type="rematch", room_id=room_id, want=True, contribution="bob-2")
    await watched_deals(rec, "rematch", (alice, bob), (carol, seen), 1)
    for c in (alice, bob, carol):
        await leave(c, room_id)

    # Deals 1 to 3 of a best-of-five series, watched by dave (who never played).
    dave = await signed(live, "dave")
    room_id = await duel(alice, bob, dave, deals=5)
    await watched_deals(rec, "series", (alice, bob), (dave, "spectator"), 3)
    for c in (alice, bob, dave):
        await leave(c, room_id)

    # Quick play, a server bot standing in at once.
    await alice.send(type="quickplay", bot_after_ms=0, bot_level="level-1", contribution="alice-q")
    await reply(alice, "queue", lambda m: m["state"] == "matched")
    ids = await play(alice, 1)
    rec.viewers.append(viewer("quick play", "player", alice, ids, True))
    await leave(alice, alice.log[-1]["room_id"])

    # A challenge, casual.
    await alice.send(type="challenge", opponent="bob", rated=False, contribution="alice-c")
    offered = await reply(bob, "challenge_state", lambda m: m["state"] == "offered")
    await bob.send(type="answer_challenge", challenge_id=offered["challenge"]["id"], accept=True,
                   contribution="bob-c")  # fmt: skip
    ids = (await asyncio.gather(play(alice, 1), play(bob, 1, 3)))[0]
    rec.viewers += [
        viewer("challenge", "player", alice, ids, True),
        viewer("challenge", "player", bob, ids, True),
    ]
    for c in (alice, bob):
        await leave(c, c.log[-1]["room_id"])

    # The daily deal, after all the games above.
    await alice.send(type="play_daily", pace="lockstep", card_clock_ms=60_000)
    ids = await play(alice, 1)
    rec.viewers.append(viewer("daily deal after earlier games", "player", alice, ids, False))
    for c in (alice, bob, carol, dave):
        await c.close()


async def record_tournament(live: Live, rec: Recording, fmt: str) -> None:
    """hank hosts a one-table-round tournament of ``fmt``; erin (who played a room
    before) and three bots enter; frank watches erin's table."""
    hank = await signed(live, f"hank-{fmt}")
    erin = await signed(live, f"erin-{fmt}")
    frank = await signed(live, f"frank-{fmt}")
    await erin.send(type="create_room", name="warm-up", seats=1, contribution="erin-solo")
    warm = (await erin.until("room_state"))["room"]["id"]
    await erin.send(type="ready", room_id=warm)
    await play(erin, 1)
    await leave(erin, warm)
    await hank.send(type="create_tournament", name=f"matrix {fmt}", format=fmt, rounds=1,
                    card_clock_ms=60_000, ref="made")  # fmt: skip
    info = (await reply(hank, "tournament", lambda m: m.get("ref") == "made"))["tournament"]
    await erin.send(type="join_tournament", tournament_id=info["id"], contribution=f"erin-{fmt}",
                    ref="in")  # fmt: skip
    await reply(erin, "tournament", lambda m: m.get("ref") == "in")
    await hank.send(type="add_tournament_bot", tournament_id=info["id"], count=3, ref="bots")
    await reply(hank, "tournament", lambda m: m.get("ref") == "bots")
    await hank.send(type="manage_tournament", tournament_id=info["id"], action="start")
    table = (await erin.until("room_state"))["room"]["id"]
    await frank.send(type="join_room", room_id=table, spectate=True)
    await frank.until("room_state")
    ids = (await asyncio.gather(play(erin, 1), play(frank, 1)))[0]
    origin = f"{fmt} tournament table"
    rec.viewers += [
        viewer(origin, "player", erin, ids, False),
        viewer(origin, "spectator", frank, ids, False),
    ]
    for c in (hank, erin, frank):
        await c.close()


async def record_arena(live: Live, rec: Recording) -> None:
    """Two bot programs in the arena (rated, bots only)."""
    tick = await signed(live, "tick", bot=True)
    tock = await signed(live, "tock", bot=True)
    for c, share in ((tick, "tick-a"), (tock, "tock-a")):
        await c.send(type="quickplay", arena=True, contribution=share)
    ids = (await asyncio.gather(play(tick, 1), play(tock, 1, 3)))[0]
    rec.viewers += [
        viewer("bot arena", "bot program", tick, ids, True),
        viewer("bot arena", "bot program", tock, ids, True),
    ]
    for c in (tick, tock):
        await c.close()


def stored_match(live: Live, match_id: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{live.http}/api/matches/{match_id}", timeout=10) as answer:
        record: dict[str, Any] = json.loads(answer.read())
    return record


async def record(live: Live) -> Recording:
    """Every origin played on ``live``; the stored record of every deal."""
    rec = Recording()
    await record_rooms(live, rec)
    for fmt in ("duplicate", "swiss", "knockout"):
        await record_tournament(live, rec, fmt)
    await record_arena(live, rec)
    for match_id in {m for v in rec.viewers for m in v.matches}:
        rec.stored[match_id] = await asyncio.to_thread(stored_match, live, match_id)
    return rec


async def recorded(db: Path) -> Recording:
    """A recording on a server of its own (``db``: its SQLite file)."""
    async with running_server(db, **FAST) as live:
        return await record(live)
