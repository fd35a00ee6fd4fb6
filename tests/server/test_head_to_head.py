"""Head-to-head over real WebSockets: quick play, challenges, series, ratings, rematch."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from pathlib import Path
from typing import Any

from engine.deal import commitment, room_seed
from server.ratings import Rating, rate_match
from tests.server.live import Client, Live, running_server, signed_in
from tests.server.test_own_history import matches

# The clients here place each card the moment it arrives: three deals are 50 frames
# in well under a second, past the 40-frame burst a person never needs. Flood control
# has its own tests; these play at a machine's pace.
FAST = {"between_deals_ms": 200, "tick_ms": 20, "rate_per_second": 1_000.0, "rate_burst": 1_000}


def http_json(live: Live, path: str) -> Any:
    with urllib.request.urlopen(live.http + path, timeout=10) as reply:
        return json.loads(reply.read())


async def get(live: Live, path: str) -> Any:
    return await asyncio.to_thread(http_json, live, path)


async def play_series(client: Client, room_id: str, pick: int = 0) -> list[dict[str, Any]]:
    """Play every deal of the series; return each deal's (match_started, match_result)."""
    deals: list[dict[str, Any]] = []
    while True:
        started = await client.until("match_started", timeout=20)
        result = await client.play_to_end(room_id, pick)
        deals.append({"started": started, "result": result})
        if result["series"]["finished"]:
            return deals


async def quickplay_pair(live: Live, deals: int = 3) -> tuple[Client, Client, str]:
    alice = await signed_in(live, "alice")
    bob = await signed_in(live, "bob")
    await alice.send(type="quickplay", pace="lockstep", deals=deals, contribution="a", ref="q")
    waiting = await alice.until("queue")
    assert waiting["state"] == "waiting" and waiting["rating"] == 1500 and waiting["ref"] == "q"
    await bob.send(type="quickplay", pace="lockstep", deals=deals, contribution="b")
    assert (await bob.until("queue"))["state"] == "waiting"
    rooms = set()
    for c in (alice, bob):
        matched = await c.until("queue")
        assert matched["state"] == "matched"
        rooms.add(matched["room_id"])
        state = await c.until("room_state")
        assert state["room"]["rated"] and state["room"]["origin"] == "quickplay"
        assert state["room"]["deals"] == deals
    (room_id,) = rooms
    return alice, bob, room_id


async def test_quickplay_best_of_three_moves_ratings_and_the_leaderboard(tmp_path: Path) -> None:
    async with running_server(tmp_path / "h2h.db", **FAST) as live:
        alice, bob, room_id = await quickplay_pair(live)
        # Different picks make different boards, so the deals are decided.
        a_deals, b_deals = await asyncio.gather(
            play_series(alice, room_id, 0), play_series(bob, room_id, 5)
        )
        assert [d["result"]["match_id"] for d in a_deals] == [
            d["result"]["match_id"] for d in b_deals
        ]
        # Both saw the same deals; each deal's secret is committed to by the one before.
        room_commitment = alice.log[[m["type"] for m in alice.log].index("room_state")]["room"][
            "server_commitment"
        ]
        previous = room_commitment
        for number, d in enumerate(a_deals, start=1):
            started, result = d["started"], d["result"]
            assert started["deal"] == number == result["deal"] and started["best_of"] == 3
            assert started["server_commitment"] == previous
            assert commitment(result["server_secret"]) == started["server_commitment"]
            assert room_seed(result["server_secret"], started["contributions"]) == result["seed"]
            assert commitment(result["seed"]) == started["seed_commitment"]
            previous = result["server_secret"]
        assert started["contributions"] == ["a", "b"]
        series = a_deals[-1]["result"]["series"]
        assert series["finished"] and 2 <= len(a_deals) <= 3
        ranks = [{b["player"]["name"]: b["rank"] for b in d["result"]["boards"]} for d in a_deals]
        won = {n: sum(1 for r in ranks if r[n] == 1) for n in ("alice", "bob")}
        standings = {s["player"]["name"]: s for s in series["standings"]}
        assert {n: standings[n]["deals_won"] for n in won} == won
        winner = series["winner"]["name"] if series["winner"] else None
        # Published Glicko-2 figures for two new players' first game (1500/350/0.06):
        # the winner goes to 1662.31, the loser to 1337.69, both deviations to 290.32.
        ratings = await alice.until("ratings")
        assert ratings == await bob.until("ratings")
        changes = {c["player"]["name"]: c for c in ratings["changes"]}
        if winner is None:
            expected = {"alice": 1500, "bob": 1500}
        else:
            loser = "bob" if winner == "alice" else "alice"
            expected = {winner: 1662, loser: 1338}
            won_rating, _ = rate_match(Rating(), Rating(), 1.0)
            assert round(won_rating.rating) == 1662 and round(won_rating.deviation) == 290
        for name, after in expected.items():
            assert changes[name]["before"] == 1500 and changes[name]["after"] == after
            assert changes[name]["deviation_before"] == 350
            assert changes[name]["deviation_after"] == 290 and changes[name]["provisional"]
        # The leaderboard, over the protocol and over HTTP.
        await alice.send(type="get_leaderboard", pace="lockstep", top=10, ref="lb")
        board = await alice.until("leaderboard")
        # After one game both are provisional: listed by rating, not ranked.
        assert board["ref"] == "lb" and board["players"] == 0
        assert [e["rating"] for e in board["top"]] == sorted(expected.values(), reverse=True)
        assert [(e["rank"], e["provisional"]) for e in board["top"]] == [(0, True), (0, True)]
        assert any(e["player"]["name"] == "alice" for e in board["around"])
        over_http = await get(live, "/api/leaderboard/lockstep?top=10&around=bob")
        assert over_http["top"] == board["top"] and over_http["players"] == 0
        race = await get(live, "/api/leaderboard/race")
        assert race["players"] == 0 and race["top"] == []
        # History: the rating change, the series and every deal.
        mine = await get(live, "/api/players/alice/ratings")
        assert mine["ratings"]["lockstep"]["games"] == 1
        (entry,) = mine["history"]
        assert entry["before"] == 1500 and entry["after"] == expected["alice"]
        assert entry["opponent"] == "bob"
        assert mine["abandoned"] == {"left": 0, "timeout": 0, "idle": 0}
        stored = await get(live, f"/api/series/{a_deals[0]['result']['match_id']}")
        assert stored["status"] == "finished" and stored["rated"] and stored["best_of"] == 3
        assert [d["match_id"] for d in stored["deals"]] == [
            d["result"]["match_id"] for d in a_deals
        ]
        for d in a_deals:
            match = await get(live, f"/api/matches/{d['result']['match_id']}")
            assert match["status"] == "finished" and match["seed"] == d["result"]["seed"]
        await alice.close()
        await bob.close()


async def test_ratings_survive_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "keep.db"
    async with running_server(db, **FAST) as live:
        alice, bob, room_id = await quickplay_pair(live, deals=1)
        await asyncio.gather(play_series(alice, room_id, 0), play_series(bob, room_id, 7))
        before = (await alice.until("ratings"))["changes"]
        await alice.close()
        await bob.close()
    async with running_server(db, **FAST) as live:
        board = await get(live, "/api/leaderboard/lockstep")
        assert sorted(e["rating"] for e in board["top"]) == sorted(c["after"] for c in before)
        alice = await signed_in(live, "carol")
        await alice.send(type="quickplay", pace="lockstep")
        assert (await alice.until("queue"))["rating"] == 1500
        await alice.close()


async def test_quickplay_refusals_and_cancel(tmp_path: Path) -> None:
    async with running_server(tmp_path / "q.db", **FAST) as live:
        guest = await signed_in(live, None, guest=True)
        await guest.send(type="quickplay")
        await guest.error("not_rateable")
        alice = await signed_in(live, "alice")
        await alice.send(type="cancel_quickplay")
        await alice.error("not_queued")
        await alice.send(type="quickplay", pace="race", deals=5)
        assert (await alice.until("queue"))["state"] == "waiting"
        await alice.send(type="quickplay")
        await alice.error("already_queued")
        # A player waiting for another pace or length is not paired with alice.
        bob = await signed_in(live, "bob")
        await bob.send(type="quickplay", pace="race", deals=3)
        assert (await bob.until("queue"))["state"] == "waiting"
        await alice.send(type="cancel_quickplay", ref="c")
        cancelled = await alice.until("queue")
        assert cancelled["state"] == "cancelled" and cancelled["ref"] == "c"
        await bob.still_alive()
        assert not any(m["type"] == "room_state" for m in bob.log)
        for c in (guest, alice, bob):
            await c.close()


async def test_quickplay_offers_a_bot_after_the_chosen_wait(tmp_path: Path) -> None:
    async with running_server(tmp_path / "bot.db", **FAST) as live:
        erin = await signed_in(live, "erin")
        await erin.send(type="quickplay", pace="race", bot_after_ms=200)
        assert (await erin.until("queue"))["state"] == "waiting"
        matched = await erin.until("queue", timeout=5)
        assert matched["state"] == "matched"
        state = await erin.until("room_state")
        assert not state["room"]["rated"]
        deals = await play_series(erin, matched["room_id"])
        boards = deals[-1]["result"]["boards"]
        assert sorted(b["player"]["bot"] for b in boards) == [False, True]
        await erin.still_alive()
        assert not any(m["type"] == "ratings" for m in erin.log)  # bot games are casual
        await erin.close()


async def test_challenges_are_offered_declined_expired_and_accepted(tmp_path: Path) -> None:
    async with running_server(tmp_path / "c.db", challenge_ttl_ms=400, **FAST) as live:
        carol = await signed_in(live, "carol")
        dave = await signed_in(live, "dave")
        await carol.send(type="challenge", opponent="nobody")
        await carol.error("player_not_found")
        await carol.send(type="challenge", opponent="carol")
        await carol.error("bad_message")
        guest = await signed_in(live, None, guest=True)
        await guest.send(type="challenge", opponent="dave")
        await guest.error("not_rateable")

        await carol.send(type="challenge", opponent="DAVE", deals=1, ref="c1")
        offered = await carol.until("challenge_state")
        assert offered["state"] == "offered" and offered["ref"] == "c1"
        seen = await dave.until("challenge_state")
        assert seen["challenge"]["challenger"]["name"] == "carol"
        cid = seen["challenge"]["id"]
        await carol.send(type="answer_challenge", challenge_id=cid, accept=True)
        await carol.error("bad_message")  # only the challenged player accepts
        await dave.send(type="answer_challenge", challenge_id=cid, accept=False)
        for c in (carol, dave):
            assert (await c.until("challenge_state"))["state"] == "declined"
        await dave.send(type="answer_challenge", challenge_id=cid, accept=True)
        await dave.error("challenge_not_found")

        await carol.send(type="challenge", opponent="dave")
        for c in (carol, dave):
            assert (await c.until("challenge_state"))["state"] == "offered"
        for c in (carol, dave):  # nobody answers: it expires
            assert (await c.until("challenge_state", timeout=5))["state"] == "expired"

        await carol.send(type="challenge", opponent="dave", pace="race", rated=False)
        await carol.until("challenge_state")
        cid = (await dave.until("challenge_state"))["challenge"]["id"]
        await dave.send(type="answer_challenge", challenge_id=cid, accept=True, contribution="d")
        rooms = set()
        for c in (carol, dave):
            accepted = await c.until("challenge_state")
            assert accepted["state"] == "accepted"
            rooms.add(accepted["room_id"])
            state = await c.until("room_state")
            assert state["room"]["origin"] == "challenge" and state["room"]["pace"] == "race"
        (room_id,) = rooms
        await asyncio.gather(play_series(carol, room_id), play_series(dave, room_id, 3))
        await carol.still_alive()
        for c in (carol, dave, guest):
            await c.close()


async def test_leaving_a_series_forfeits_it_and_is_on_the_record(tmp_path: Path) -> None:
    async with running_server(tmp_path / "f.db", **FAST) as live:
        alice, bob, room_id = await quickplay_pair(live)
        for c in (alice, bob):  # both have played (else the rated series is aborted)
            card = await c.until("card")
            await c.send(type="place", room_id=room_id, turn=card["turn"], cell=card["legal"][0])
            await c.until("placed")
        await bob.send(type="leave_room", room_id=room_id)
        left = await bob.until("left")
        # bob is told what his leaving did: the series is over, alice's.
        assert left["series"]["finished"] and left["series"]["winner"]["name"] == "alice"
        # bob resigned: the deal ends for alice at once, bob ranked last in it.
        result = await alice.until("match_result")
        assert [b["player"]["name"] for b in result["boards"]] == ["alice", "bob"]
        series = result["series"]
        assert series["finished"] and series["winner"]["name"] == "alice"
        assert {s["player"]["name"]: s["forfeited"] for s in series["standings"]} == {
            "alice": False,
            "bob": True,
        }
        assert any(p["auto"] for b in result["boards"] for p in b["placements"])
        ratings = await alice.until("ratings")
        after = {c["player"]["name"]: c["after"] for c in ratings["changes"]}
        assert after == {"alice": 1662, "bob": 1338}
        record = await get(live, "/api/players/bob/matches")
        assert record["abandoned"] == {"left": 1, "timeout": 0, "idle": 0}
        assert (await get(live, "/api/players/bob/ratings"))["history"][0]["result"] == "loss"
        await alice.close()
        await bob.close()


async def test_leaving_between_deals_tells_the_leaver_the_series_it_lost(tmp_path: Path) -> None:
    """A forfeit between deals: the leaver's ``left`` holds the series as decided (the
    deals won at the resignation, its winner), as the stayer's room update does."""
    async with running_server(tmp_path / "b.db", between_deals_ms=60_000) as live:
        alice, bob, room_id = await quickplay_pair(live)
        await asyncio.gather(alice.play_to_end(room_id), bob.play_to_end(room_id, 2))
        await bob.send(type="leave_room", room_id=room_id, ref="bye")
        left = await bob.until("left")
        series = left["series"]
        assert left["ref"] == "bye" and series["finished"] and series["deal"] == 1
        assert series["winner"]["name"] == "alice"
        assert {s["player"]["name"]: s["forfeited"] for s in series["standings"]} == {
            "alice": False,
            "bob": True,
        }
        while not (update := await alice.until("room"))["room"]["series"]["finished"]:
            pass
        assert update["room"]["series"]["winner"] == series["winner"]
        await alice.send(type="leave_room", room_id=room_id)
        assert (await alice.until("left")).get("series") is None  # over: nothing forfeited
        # Both histories: deal 1's row carries how the series ended (its last deal).
        for c, won in ((alice, True), (bob, False)):
            status, listed = await matches(live, str(c.id), c.token)
            assert status == 200, listed
            (row,) = listed["matches"]
            assert row["series"]["deal"] == row["series"]["deals"] == 1
            assert row["series"]["status"] == "finished"
            assert (row["series"]["winner_id"] == c.id) is won
            gone = {st["player_id"]: st["forfeited"] for st in row["series"]["standings"]}
            assert gone == {alice.id: False, bob.id: True}
        await alice.close()
        await bob.close()


async def test_a_player_away_beyond_the_grace_period_is_played_for(tmp_path: Path) -> None:
    async with running_server(tmp_path / "t.db", grace_ms=300, **FAST) as live:
        carol = await signed_in(live, "carol")
        dave = await signed_in(live, "dave")
        await carol.send(type="challenge", opponent="dave", card_clock_ms=60_000, rated=False)
        cid = (await dave.until("challenge_state"))["challenge"]["id"]
        await dave.send(type="answer_challenge", challenge_id=cid, accept=True)
        room_id = (await carol.until("room_state"))["room"]["id"]
        await dave.close()  # gone; the card clock is a minute, the grace 0.3 s
        result = await carol.play_to_end(room_id)
        dave_board = next(b for b in result["boards"] if b["player"]["name"] == "dave")
        assert all(p["auto"] for p in dave_board["placements"])
        record = await get(live, "/api/players/dave/matches")
        assert record["abandoned"] == {"left": 0, "timeout": 1, "idle": 0}
        await carol.close()


async def test_rematch_starts_a_new_series_on_a_newly_committed_secret(tmp_path: Path) -> None:
    async with running_server(tmp_path / "r.db", **FAST) as live:
        alice, bob, room_id = await quickplay_pair(live, deals=1)
        first_a, _ = await asyncio.gather(play_series(alice, room_id), play_series(bob, room_id, 2))
        update = await alice.until("room")
        next_commitment = update["room"]["server_commitment"]
        assert next_commitment != first_a[0]["started"]["server_commitment"]
        await bob.send(type="rematch", room_id=room_id, contribution="b2")
        offer = await alice.until("room")
        assert offer["room"]["rematch"] == [bob.id]
        await alice.send(type="rematch", room_id=room_id, want=True, contribution="a2")
        second_a, _ = await asyncio.gather(
            play_series(alice, room_id), play_series(bob, room_id, 2)
        )
        started = second_a[0]["started"]
        assert started["server_commitment"] == next_commitment
        assert started["contributions"] == ["a2", "b2"]
        assert started["match_id"] != first_a[0]["started"]["match_id"]
        # Two rated series: two rating changes each.
        history = await get(live, "/api/players/alice/ratings")
        assert len(history["history"]) == 2
        await alice.close()
        await bob.close()


async def test_rematch_before_the_end_is_refused(tmp_path: Path) -> None:
    async with running_server(tmp_path / "early.db", **FAST) as live:
        alice, bob, room_id = await quickplay_pair(live, deals=1)
        await alice.send(type="rematch", room_id=room_id)
        await alice.error("series_not_over")
        await alice.still_alive()
        await alice.close()
        await bob.close()


async def test_bot_programs_wait_apart_and_stand_in_for_the_server_bot(tmp_path: Path) -> None:
    async with running_server(tmp_path / "programs.db", **FAST) as live:
        robo = await signed_in(live, "robo", bot=True)
        await robo.send(type="quickplay", pace="race", contribution="r")
        assert (await robo.until("queue"))["state"] == "waiting"
        # A person asking for a rated game is not paired with the program...
        alice = await signed_in(live, "alice")
        await alice.send(type="quickplay", pace="race")
        await alice.until("queue")
        await asyncio.sleep(0.3)
        await alice.send(type="cancel_quickplay")
        assert (await alice.until("queue"))["state"] == "cancelled"
        # ...but one whose wait for a person runs out is, before any server bot.
        await alice.send(type="quickplay", pace="race", bot_after_ms=100)
        await alice.until("queue")
        matched = [await c.until("queue", timeout=5) for c in (alice, robo)]
        assert {m["state"] for m in matched} == {"matched"}
        state = await robo.until("room_state")
        names = {s["player"]["name"]: s["player"]["bot"] for s in state["room"]["players"]}
        assert names == {"alice": False, "robo": True} and not state["room"]["rated"]
        # Two programs play each other.
        tick = await signed_in(live, "tick", bot=True)
        tock = await signed_in(live, "tock", bot=True)
        for c in (tick, tock):
            await c.send(type="quickplay", deals=3)
        for c in (tick, tock):
            assert (await c.until("queue"))["state"] == "waiting"
            assert (await c.until("queue"))["state"] == "matched"
        for c in (robo, alice, tick, tock):
            await c.close()
