"""Tournaments over real WebSockets: each format from registration to its final table,
with people on sockets and server bots, short clocks; the standings are then
recomputed here, independently, from the stored history the HTTP API serves."""

from __future__ import annotations

import asyncio
import csv
import hashlib
import io
import json
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from client_cli.commands.tournament import show_lines
from engine.deal import room_seed, table_deal_secret, table_root
from protocol.fields import PROTOCOL_VERSION
from server.tournaments.formats import FORMATS
from tests.server.live import Client, Live, running_server, signed_in

FAST = {"between_deals_ms": 100, "between_rounds_ms": 200, "tick_ms": 20}


def _get(live: Live, path: str) -> tuple[str, str]:
    with urllib.request.urlopen(live.http + path, timeout=10) as reply:
        return reply.headers.get("Content-Type", ""), reply.read().decode()


async def get(live: Live, path: str) -> Any:
    return json.loads((await asyncio.to_thread(_get, live, path))[1])


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


async def play_until(
    client: Client, pick: int, done: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """Place every card dealt, in whatever table (the legal cell at index ``pick``),
    until a ``tournament`` update satisfies ``done``; return that tournament."""
    while True:
        message = await client.recv(timeout=30)
        if message["type"] == "card":
            legal = message["legal"]
            await client.send(type="place", room_id=message["room_id"], turn=message["turn"],
                              cell=legal[min(pick, len(legal) - 1)])  # fmt: skip
        elif message["type"] == "tournament" and done(message["tournament"]):
            return message["tournament"]


async def play_tournament(client: Client, pick: int = 0, stop_at_round: int = 0) -> dict[str, Any]:
    """Play until the tournament is over and return its last state. ``stop_at_round``:
    close the socket when that round starts."""

    def done(t: dict[str, Any]) -> bool:
        return t["status"] in ("finished", "cancelled") or 0 < stop_at_round <= t["round"]

    t = await play_until(client, pick, done)
    if t["status"] not in ("finished", "cancelled"):
        await client.close()
    return t


async def host_with_bots(
    live: Live, fmt: str, players: list[str], bots: int, **settings: Any
) -> tuple[list[Client], str]:
    """alice hosts and plays; the others register; the host adds bots."""
    clients = [await signed_in(live, name) for name in players]
    host = clients[0]
    await host.send(type="create_tournament", name=f"{fmt} cup", format=fmt, ref="c", **settings)
    created = await host.until("tournament")
    assert created["ref"] == "c" and created["tournament"]["status"] == "registering"
    tid = created["tournament"]["id"]
    for i, c in enumerate(clients):
        await c.send(type="join_tournament", tournament_id=tid, contribution=f"share-{i}", ref="j")
        joined = await c.until("tournament")
        while joined["ref"] != "j":
            joined = await c.until("tournament")
    if bots:
        await host.send(type="add_tournament_bot", tournament_id=tid, strategy="greedy",
                        count=bots)  # fmt: skip
    await host.send(type="manage_tournament", tournament_id=tid, action="start", ref="go")
    return clients, tid


def check_round_secrets(stored: dict[str, Any]) -> None:
    """Each round's secret is committed to by the one before, the first by the tournament."""
    previous = stored["commitment"]
    for r in stored["rounds"]:
        secret = r["server_secret"]
        assert sha(secret) == r["server_commitment"] == previous
        previous = secret
        contribs = [c for _, c in r["contributors"]]
        h = hashlib.sha256(b"cribsquares/tournament-round/v1")
        for part in (stored["id"], str(r["round"]), *contribs):
            data = part.encode()
            h.update(len(data).to_bytes(4, "big") + data)
        assert h.hexdigest() == r["contribution"]


async def same_deal_on_every_table(live: Live, stored: dict[str, Any]) -> None:
    """Every table of a round dealt the same deals, each from the round's revealed
    secret as docs/fairness.md says (table root, then one secret per deal)."""
    for r in stored["rounds"]:
        seeds = set()
        root = table_root(r["server_secret"], stored["id"], r["round"])
        for t in r["tables"]:
            for d in t["deals"]:
                match = await get(live, f"/api/matches/{d['match_id']}")
                assert match["contributions"] == [r["contribution"]] * len(t["players"])
                assert match["server_secret"] == table_deal_secret(root, d["deal"])
                assert match["seed"] == room_seed(match["server_secret"], match["contributions"])
                seeds.add((d["deal"], match["seed"]))
        deals = {deal for deal, _ in seeds}
        assert len(seeds) == len(deals), f"round {r['round']}: tables were dealt differently"


@pytest.mark.slow
async def test_duplicate_field_people_and_bots_with_a_spectator(tmp_path: Path) -> None:
    async with running_server(tmp_path / "dup.db", **FAST) as live:
        clients, tid = await host_with_bots(
            live, "duplicate", ["alice", "bob"], 3, rounds=3, pace="race", deal_clock_ms=30_000
        )
        dave = await signed_in(live, "dave")
        await dave.send(type="join_tournament", tournament_id=tid, spectate=True)
        finals = await asyncio.gather(
            play_tournament(clients[0], 0), play_tournament(clients[1], 3)
        )
        assert finals[0]["status"] == "finished" and len(finals[0]["history"]) == 3
        pushed = [m for m in dave.log if m["type"] == "tournament"]
        while not pushed or pushed[-1]["tournament"]["status"] != "finished":
            pushed.append(await dave.until("tournament"))
        assert len({len(p["tournament"]["history"]) for p in pushed}) >= 3  # after each deal

        stored = await get(live, f"/api/tournaments/{tid}")
        assert stored["status"] == "finished" and len(stored["entries"]) == 5
        check_round_secrets(stored)
        await same_deal_on_every_table(live, stored)
        # Matchpoints recomputed from every stored board: 2 a board beaten, 1 a tie.
        mp = {e["player"]["id"]: 0 for e in stored["entries"]}
        points = dict.fromkeys(mp, 0)
        for r in stored["rounds"]:
            deal = {pid: d["results"][pid]["score"] for t in r["tables"] for d in t["deals"]
                    for pid in d["results"]}  # fmt: skip
            assert len(deal) == 5
            for p, s in deal.items():
                points[p] += s
                mp[p] += sum(2 if s > o else 1 if s == o else 0 for q, o in deal.items() if q != p)
        expected = sorted(mp, key=lambda p: (-mp[p], -points[p]))
        table = stored["standings"]
        assert [s["player"]["id"] for s in table] == expected or [
            (s["matchpoints"], s["points"]) for s in table
        ] == [(mp[p], points[p]) for p in expected]
        for s in table:
            pid = s["player"]["id"]
            assert s["matchpoints"] == mp[pid] and s["points"] == points[pid]
            assert abs(s["percentage"] - 100 * mp[pid] / (3 * 8)) < 1e-3  # to 4 places
        # Exports.
        kind, text = await asyncio.to_thread(
            _get, live, f"/api/tournaments/{tid}/export?format=csv"
        )
        assert kind.startswith("text/csv")
        rows = list(csv.DictReader(io.StringIO(text)))
        assert [r["player_id"] for r in rows] == [s["player"]["id"] for s in table]
        _, boards = await asyncio.to_thread(
            _get, live, f"/api/tournaments/{tid}/export?format=csv&what=boards"
        )
        assert len(list(csv.DictReader(io.StringIO(boards)))) == 3 * 5
        exported = await get(live, f"/api/tournaments/{tid}/export?format=json")
        assert exported["tournament"]["id"] == tid and len(exported["boards"]) == 15
        listed = await get(live, "/api/tournaments")
        assert [t["id"] for t in listed["tournaments"]] == [tid]
        # The host is a player, as in every other view of it.
        assert listed["tournaments"][0]["host"] == exported["tournament"]["host"]
        assert set(listed["tournaments"][0]["host"]) == {"id", "name", "guest", "bot"}
        for c in (*clients, dave):
            await c.close()


@pytest.mark.slow
async def test_swiss_pairs_without_repeats_and_plays_for_a_dropped_player(tmp_path: Path) -> None:
    async with running_server(tmp_path / "swiss.db", grace_ms=200, **FAST) as live:
        clients, tid = await host_with_bots(
            live, "swiss", ["alice", "bob", "carol"], 2, rounds=3, pace="lockstep",
            card_clock_ms=5_000,
        )  # fmt: skip
        finals = await asyncio.gather(
            play_tournament(clients[0], 0),
            play_tournament(clients[1], 2),
            play_tournament(clients[2], 1, stop_at_round=2),  # carol drops in round 2
        )
        assert finals[0]["status"] == "finished"
        stored = await get(live, f"/api/tournaments/{tid}")
        check_round_secrets(stored)
        await same_deal_on_every_table(live, stored)
        pairs = [frozenset(t["players"]) for r in stored["rounds"] for t in r["tables"]
                 if t["status"] != "bye"]  # fmt: skip
        assert len(pairs) == len(set(pairs)) == 3 * 2
        byes = [t["players"][0] for r in stored["rounds"] for t in r["tables"]
                if t["status"] == "bye"]  # fmt: skip
        assert len(byes) == len(set(byes)) == 3
        # Scores, Buchholz and Sonneborn-Berger recomputed from the stored winners.
        games = []
        for r in stored["rounds"]:
            for t in r["tables"]:
                if t["status"] == "bye":
                    games.append((t["players"][0], None, 1.0))
                    continue
                (deal,) = t["deals"]
                a, b = t["players"]
                ranks = {p: deal["results"][p]["rank"] for p in (a, b)}
                won = 0.5 if ranks[a] == ranks[b] else 1.0 if ranks[a] < ranks[b] else 0.0
                assert t["winner_id"] == {1.0: a, 0.0: b, 0.5: None}[won]
                games.append((a, b, won))
        score: dict[str, float] = {}
        for a, b, s in games:
            score[a] = score.get(a, 0) + s
            if b is not None:
                score[b] = score.get(b, 0) + 1 - s
        bh = dict.fromkeys(score, 0.0)
        sb = dict.fromkeys(score, 0.0)
        for a, b, s in games:
            if b is not None:
                bh[a] += score[b]
                bh[b] += score[a]
                sb[a] += s * score[b]
                sb[b] += (1 - s) * score[a]
        for row in stored["standings"]:
            pid = row["player"]["id"]
            assert (row["score"], row["buchholz"], row["sonneborn_berger"]) == (
                score[pid],
                bh[pid],
                sb[pid],
            )
        keys = [(-r["score"], -r["buchholz"], -r["sonneborn_berger"]) for r in stored["standings"]]
        assert keys == sorted(keys)
        # Carol's round-2 and round-3 boards were played by the server.
        carol = next(e["player"]["id"] for e in stored["entries"] if e["player"]["name"] == "carol")
        later = [t for r in stored["rounds"][1:] for t in r["tables"] if carol in t["players"]
                 and t["status"] != "bye"]  # fmt: skip
        for t in later:
            match = await get(live, f"/api/matches/{t['deals'][0]['match_id']}")
            board = next(b for b in match["boards"] if b["player"]["id"] == carol)
            assert sum(p["auto"] for p in board["placements"]) >= 10
        for c in clients:
            await c.close()


@pytest.mark.slow
async def test_knockout_bracket_best_of_three(tmp_path: Path) -> None:
    async with running_server(tmp_path / "ko.db", **FAST) as live:
        clients, tid = await host_with_bots(
            live, "knockout", ["alice", "bob"], 3, best_of=3, pace="race", deal_clock_ms=30_000
        )
        finals = await asyncio.gather(
            play_tournament(clients[0], 0), play_tournament(clients[1], 4)
        )
        final = finals[0]
        assert final["status"] == "finished" and final["bracket"][0].count(None) == 3
        stored = await get(live, f"/api/tournaments/{tid}")
        check_round_secrets(stored)
        await same_deal_on_every_table(live, stored)
        seeds = {e["player"]["id"]: e["seed"] for e in stored["entries"]}
        assert sorted(seeds.values()) == [1, 2, 3, 4, 5]  # all rated 1500: registration order
        # Every match's winner, recomputed from its deals: deals won, then points, then
        # (a race) time used, then seed.
        boards = (await get(live, f"/api/tournaments/{tid}/export?format=json"))["boards"]
        used = {(b["match_id"], b["player"]["id"]): b["time_used_ms"] for b in boards}
        out: dict[str, int] = {}
        for r in stored["rounds"]:
            for t in r["tables"]:
                if t["status"] == "bye":
                    continue
                a, b = t["players"]
                won = {p: sum(d["results"][p]["rank"] == 1 for d in t["deals"]) for p in (a, b)}
                pts = {p: sum(d["results"][p]["score"] for d in t["deals"]) for p in (a, b)}
                time_ = {p: sum(used[d["match_id"], p] for d in t["deals"]) for p in (a, b)}
                key = {p: (won[p], pts[p], -time_[p], -seeds[p]) for p in (a, b)}
                winner = max((a, b), key=lambda p: key[p])
                assert t["winner_id"] == winner and 2 <= len(t["deals"]) <= 3
                out[a if winner == b else b] = r["round"]
        assert len(stored["rounds"]) == 3 and len(out) == 4
        table = stored["standings"]
        assert table[0]["out_in_round"] is None and table[0]["rank"] == 1
        assert [s["out_in_round"] for s in table[1:]] == sorted(out.values(), reverse=True)
        # The HTTP API words it as the WebSocket does, and the command line shows that.
        assert (stored["format_title"], stored["length"]) == ("knockout", "3 rounds, best of 3")
        assert stored["columns"] == ["Seed", "Standing", "Points", "Deals"]
        assert table[0]["cells"][1] == "champion" and table[1]["cells"][1] == "out in round 3"
        (row,) = [t for t in (await get(live, "/api/tournaments"))["tournaments"] if t["id"] == tid]
        assert (row["format_title"], row["length"]) == ("knockout", "3 rounds, best of 3")
        shown = "\n".join(show_lines(stored))
        assert "knockout, race, finished" in shown and "3 rounds, best of 3" in shown
        assert "Standing" in shown and "champion" in shown and "out in round 3" in shown
        for c in clients:
            await c.close()


async def test_the_welcome_offers_every_format_as_its_module_says(tmp_path: Path) -> None:
    """A form to host a tournament is built from the welcome: each format's offer,
    named as its module and the wire name it is hosted by."""
    async with running_server(tmp_path / "w.db", **FAST) as live:
        client = await Client.connect(live, PROTOCOL_VERSION)
        welcome = await client.hello("ada")
        offers = welcome["formats"]
        assert [o["format"] for o in offers] == [f.value for f in FORMATS]
        assert offers == [FORMATS[f].offer.model_dump(mode="json") for f in FORMATS]
        assert {o["title"] for o in offers} == {f.title for f in FORMATS.values()}
        await client.close()


async def test_refusals_over_the_socket(tmp_path: Path) -> None:
    async with running_server(tmp_path / "no.db", **FAST) as live:
        alice = await signed_in(live, "alice")
        bob = await signed_in(live, "bob")
        # A format is asked only for what the welcome says it offers.
        await alice.send(type="create_tournament", name="long", format="swiss", best_of=3)
        refused = await alice.error("tournament_settings")
        assert "one deal" in refused["reason"]
        await alice.send(type="create_tournament", name="private", visibility="private",
                         bots=False, max_players=2)  # fmt: skip
        t = (await alice.until("tournament"))["tournament"]
        await bob.send(type="get_tournament", tournament_id=t["id"])
        await bob.error("tournament_not_found")
        await bob.send(type="join_tournament", invite_code=t["invite_code"])
        assert (await bob.until("tournament"))["tournament"]["entrants"][0]["player"][
            "name"
        ] == "bob"
        await bob.send(type="manage_tournament", tournament_id=t["id"], action="start")
        await bob.error("not_host")
        await alice.send(type="add_tournament_bot", tournament_id=t["id"])
        await alice.error("bots_not_allowed")
        await alice.send(type="manage_tournament", tournament_id=t["id"], action="resume")
        await alice.error("tournament_state")
        await alice.send(type="list_tournaments", ref="l")
        assert (await alice.until("tournaments"))["tournaments"] == []  # private: not listed
        assert (await get(live, "/api/tournaments"))["tournaments"] == []
        await alice.send(type="manage_tournament", tournament_id=t["id"], action="cancel")
        cancelled = await bob.until("tournament")
        assert cancelled["tournament"]["status"] == "cancelled"
        # A private tournament over HTTP (which knows no player) is not found, as on
        # the WebSocket for whoever is not in it; nor are its exports.
        for path in (f"/api/tournaments/{t['id']}", f"/api/tournaments/{t['id']}/export"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                await get(live, path)
            assert refused.value.code == 404
            assert json.loads(refused.value.read())["error"]["code"] == "tournament_not_found"
        await alice.still_alive()
        await alice.close()
        await bob.close()


async def test_a_table_offers_no_rematch(tmp_path: Path) -> None:
    """A table's series is the director's: once it is over, rematch is refused and
    nothing is dealt from it; the tournament goes on to its next round."""
    async with running_server(tmp_path / "re.db", **FAST) as live:
        (alice,), _ = await host_with_bots(live, "duplicate", ["alice"], 1, rounds=2)
        result = None
        while result is None:
            message = await alice.recv(timeout=30)
            if message["type"] == "card":
                await alice.send(type="place", room_id=message["room_id"],
                                 turn=message["turn"], cell=message["legal"][0])  # fmt: skip
            elif message["type"] == "match_result":
                result = message
        await alice.send(type="rematch", room_id=result["room_id"], want=True, ref="again")
        refused = await alice.error("tournament_state")
        assert refused["ref"] == "again" and "no rematch" in refused["reason"]
        final = await play_tournament(alice)
        assert final["status"] == "finished" and final["round"] == 2
        await alice.close()


async def test_finished_tournaments_are_listed_by_status_with_their_winners(
    tmp_path: Path,
) -> None:
    """``list_tournaments`` with a ``status`` reads every public tournament in it from
    the store (a finished one names its winners), as ``/api/tournaments?status=`` does,
    also after a restart, when nothing of it is held in memory."""
    db = tmp_path / "listed.db"
    async with running_server(db, **FAST) as live:
        (alice,), tid = await host_with_bots(live, "duplicate", ["alice"], 1, rounds=1)
        final = await play_tournament(alice)
        first = [s["player"] for s in final["standings"] if s["rank"] == 1]
        await alice.close()
    async with running_server(db, **FAST) as live:
        bob = await signed_in(live, "bob")
        await bob.send(type="list_tournaments", ref="live")
        assert (await bob.until("tournaments"))["tournaments"] == []  # none held live
        await bob.send(type="list_tournaments", status="finished", ref="over")
        listed = await bob.until("tournaments")
        assert listed["ref"] == "over"
        (row,) = listed["tournaments"]
        assert row["id"] == tid and row["status"] == "finished" and row["winners"] == first
        assert row["round"] == 1 and row["entrants"] == 2
        await bob.send(type="list_tournaments", status="registering")
        assert (await bob.until("tournaments"))["tournaments"] == []
        await bob.send(type="list_tournaments", status="over")
        assert (await bob.error("bad_message"))["reason"]
        await bob.send(type="list_tournaments", status="finished", after="nonsense")
        await bob.error("bad_message")
        page = await get(live, "/api/tournaments?status=finished")
        assert [(t["id"], t["winners"]) for t in page["tournaments"]] == [(tid, first)]
        assert (await get(live, "/api/tournaments?status=playing"))["tournaments"] == []
        with pytest.raises(urllib.error.HTTPError) as refused:
            await asyncio.to_thread(_get, live, "/api/tournaments?status=over")
        assert refused.value.code == 400
        await bob.close()


async def test_the_stored_listing_pages_only_with_cursors_it_gave(tmp_path: Path) -> None:
    """Issue "Hostile load, round 4", point 6: the stored listings (with a ``status``)
    took a cursor built by the client (``created_ms.id``). Their cursors are now marked
    with a key the store keeps (every node of a cluster reads it): one the server gave
    pages, also after a restart; a made-up one, even naming a real tournament, is 400
    over HTTP and bad_message over the socket."""
    db = tmp_path / "paged.db"
    async with running_server(db, **FAST) as live:
        hosts = [await signed_in(live, f"host{n}") for n in range(3)]
        for n, host in enumerate(hosts):
            await host.send(type="create_tournament", name=f"cup {n}", ref="t")
            await host.until("tournament")
        first = await get(live, "/api/tournaments?status=registering&limit=1")
        cursor = first["next"]
        assert cursor and len(cursor) <= 32  # within the protocol's cursor length
        second = await get(live, f"/api/tournaments?status=registering&limit=1&after={cursor}")
        assert second["tournaments"][0]["id"] != first["tournaments"][0]["id"]
        row = first["tournaments"][0]
        other_digit = "1" if cursor.endswith("0") else "0"  # a mark one digit off, never the same
        for forged in (f"{row['created_ms']}.{row['id']}", cursor[:-1] + other_digit, cursor + "0"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                await asyncio.to_thread(
                    _get, live, f"/api/tournaments?status=registering&limit=1&after={forged}"
                )
            assert refused.value.code == 400, forged
        await hosts[0].send(type="list_tournaments", status="registering", limit=1,
                            after=f"{row['created_ms']}.{row['id']}")  # fmt: skip
        await hosts[0].error("bad_message")
        await hosts[0].send(type="list_tournaments", status="registering", limit=1, after=cursor)
        paged = await hosts[0].until("tournaments")
        assert paged["tournaments"][0]["id"] == second["tournaments"][0]["id"]
        for host in hosts:
            await host.close()
    async with running_server(db, **FAST) as live:  # the store's key outlives the process
        again = await get(live, f"/api/tournaments?status=registering&limit=1&after={cursor}")
        assert again["tournaments"] == second["tournaments"]
