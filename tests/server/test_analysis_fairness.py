"""The analysis worker shared fairly (server.analysis): a player's own board first, others'
boards in turn by address, at most a few under way per address or account, and 503 only
when the server is really overloaded; then the attack of the hostile-load issue over real
sockets: one address keeping the worker busy no longer keeps a player from its own board."""

from __future__ import annotations

import asyncio
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

import aiohttp
import pytest

import server.analysis
from server.analysis import PER_ASKER, Analyst
from tests.server.live import Client, connect_over, running_server


class HeldExecutor(Executor):
    """Runs nothing by itself: the test says when each analysis is done."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, Future[Any]]] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        done: Future[Any] = Future()
        self.asked.append((args[0][0], done))  # named by the board's first card
        return done


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def board(first: str) -> tuple[list[str], str, list[str]]:
    return [first], "5H", ["a1"]


async def test_own_boards_first_then_others_by_address_in_turn() -> None:
    pool = HeldExecutor()
    analyst = Analyst(pool)
    try:
        for n, who in enumerate(["address:A", "address:A", "address:B"]):
            analyst.start(("m", f"p{n}"), *board(f"others{n}"), asker=who, own=False)
            await settle()  # the first is being computed from here on
        analyst.start(("m", "own"), *board("own"), asker="account:P", own=True)
        order = []
        for _ in range(4):
            await settle()
            name, done = pool.asked[-1]
            order.append(name)
            done.set_result({"board": name})
        await settle()
        # the first was under way before the player asked; then its own board; then B
        # before A's second (addresses take turns)
        assert order == ["others0", "own", "others2", "others1"]
        assert analyst.found(("m", "own")) == {"board": "own"}
        assert analyst.refusal("address:A", own=False) is None  # nothing under way any more
    finally:
        await analyst.close()


async def test_a_board_its_player_asks_for_moves_up_to_own() -> None:
    pool = HeldExecutor()
    analyst = Analyst(pool)
    try:
        for n in range(3):
            analyst.start(("m", f"p{n}"), *board(f"others{n}"), asker=f"address:{n}", own=False)
            await settle()
        analyst.promote(("m", "p2"))  # p2 asks with its token for its own board
        assert pool.asked[-1][0] == "others0"  # under way before
        pool.asked[-1][1].set_result({})
        await settle()
        assert pool.asked[-1][0] == "others2"  # before others1, asked earlier
    finally:
        await analyst.close()


async def test_limits_per_asker_and_503_only_when_everyone_together_overloads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(server.analysis, "WAITING", 2)
    analyst = Analyst(HeldExecutor())
    try:
        for n in range(PER_ASKER):
            assert analyst.refusal("address:A", own=False) is None
            analyst.start(("m", f"a{n}"), *board("a"), asker="address:A", own=False)
            await settle()
        assert analyst.refusal("address:A", own=False) == "limited"
        assert analyst.refusal("address:B", own=False) is None  # another address is not
        analyst.start(("m", "b"), *board("b"), asker="address:B", own=False)
        # the first is computed, two wait: only now is the server overloaded
        assert analyst.refusal("address:C", own=False) == "busy"
        assert analyst.refusal("account:P", own=True) is None  # own boards have places of their own
        assert analyst.found(("m", "a1")) == "computing"
    finally:
        await analyst.close()


async def finished_boards(client: Client, bots: int, strategy: str = "random") -> str:
    """A room of ``client`` and ``bots`` server bots, played to the end; its match id."""
    await client.send(type="create_room", name="many boards", seats=bots + 1)
    room_id = (await client.until("room_state"))["room"]["id"]
    for n in range(bots):
        await client.send(type="add_bot", room_id=room_id, strategy=strategy, ref=f"bot{n}")
        while (await client.recv()).get("ref") != f"bot{n}":
            pass
    await client.send(type="ready", room_id=room_id)
    result = await client.play_to_end(room_id)
    match_id: str = result["match_id"]
    return match_id


@pytest.mark.slow
async def test_one_address_cannot_keep_a_player_from_its_own_board(tmp_path: Path) -> None:
    async with running_server(tmp_path / "db.sqlite") as live, aiohttp.ClientSession() as http:
        attacker = await connect_over(live, source="127.0.0.3")
        assert (await attacker.hello("boardmaker"))["type"] == "welcome"
        person = await connect_over(live, source="127.0.0.2")
        assert (await person.hello("ada"))["type"] == "welcome"
        free = await finished_boards(attacker, bots=7)  # eight boards, made for free
        mine = await finished_boards(person, bots=1)

        def url(match_id: str, player: str) -> str:
            return f"{live.http}/api/matches/{match_id}/analysis?player={player}"

        boards = [f"random bot {n}" for n in range(1, 8)]
        answers = []
        for name in boards:  # the attack: every board at once, from one address
            async with http.get(url(free, name)) as reply:
                answers.append((reply.status, (await reply.json()).get("error", {}).get("code")))
        assert answers[:PER_ASKER] == [(202, None)] * PER_ASKER
        assert set(answers[PER_ASKER:]) == {(429, "rate_limited")}  # not 503: no overload
        own = {"Authorization": f"Bearer {person.token}"}
        # The HTTP requests all come from 127.0.0.1: the person asks from the very
        # address the attack holds the worker from, with its token.
        async with http.get(url(mine, "ada"), headers=own) as reply:
            assert reply.status == 202
        for _ in range(600):  # bounded: 60 s
            await asyncio.sleep(0.1)
            async with http.get(url(mine, "ada"), headers=own) as reply:
                if reply.status == 200:
                    break
                assert reply.status == 202
        else:
            raise AssertionError("the player's own board was not analysed in 60 s")
        # the attacker's second board was asked before it, and is not done yet
        async with http.get(url(free, boards[1])) as reply:
            assert reply.status == 202
        for c in (attacker, person):
            await c.close()


async def test_several_accounts_on_one_address_share_its_limit_with_their_own_boards() -> None:
    """Issue "Hostile load, round 4", point 5: 8 accounts x 2 own boards from one address
    made a victim's own board wait 8 s. Own boards now count against their address too:
    its accounts together have PER_ASKER under way; another address's own board is not
    held, and still goes before everyone else's."""
    executor = HeldExecutor()
    analyst = Analyst(executor)
    try:
        for n in range(PER_ASKER):
            who = f"account:sock{n}"
            assert analyst.refusal(who, own=True, address="address:A") is None
            analyst.start(("m", f"s{n}"), *board(f"s{n}"), asker=who, own=True,
                          address="address:A")  # fmt: skip
            await settle()
        # its accounts' second boards, and anyone's board from there: the address is full
        # an account's first own board is always taken
        assert analyst.refusal("account:sock9", own=True, address="address:A") is None
        analyst.start(("m", "t0"), *board("t0"), asker="account:sock9", own=True,
                      address="address:A")  # fmt: skip
        assert analyst.refusal("account:sock0", own=True, address="address:A") == "limited"
        assert analyst.refusal("address:A", own=False) == "limited"  # others' boards too
        # the victim, elsewhere, asks for its own board: queued, and next after the one
        # being computed (turns by address), not behind every board of address A
        assert analyst.refusal("account:victim", own=True, address="address:V") is None
        analyst.start(("m", "v"), *board("v"), asker="account:victim", own=True,
                      address="address:V")  # fmt: skip
        await settle()
        assert [name for name, _ in executor.asked] == ["s0"]  # one at a time
        executor.asked[0][1].set_result({})
        await settle()
        assert [name for name, _ in executor.asked] == ["s0", "v"]
    finally:
        await analyst.close()
