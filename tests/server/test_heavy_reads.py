"""Big answers are built in a thread of their own, once, and kept once final
(server.heavy_reads); over HTTP they are paid for by their size."""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from server.heavy_reads import Built, HeavyReads, json_bytes
from server.limits import Quota
from server.storage.sql import Reader
from tests.server.live import Client, running_server

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(
    "value",
    [
        {"a": [1, 2, {"b": [3, {"c": [4, [5, 6]]}]}], "é": 'caf\u00e9 "q" \\ \n', "n": None},
        [],
        {},
        [[], {}, [[[]]], "x", 1.5, True],
        {"rounds": [{"tables": [{"players": ["a\u2028b"], "points": {}}]}] * 3},
    ],
)
def test_json_bytes_is_compact_json(value: Any) -> None:
    assert json_bytes(value) == json.dumps(value, separators=(",", ":")).encode()
    assert json.loads(json_bytes(value)) == value


async def test_one_build_for_many_askers_and_final_answers_kept(tmp_path: Path) -> None:
    reads = HeavyReads(str(tmp_path / "r.db"), max_bytes=10)
    await reads.start()
    try:
        builds: list[str] = []
        release = asyncio.Event()
        loop = asyncio.get_running_loop()

        def builder(body: bytes, final: bool) -> Any:
            async def build(reader: Reader) -> Built:
                # in the reads' own thread, never the server's
                builds.append(threading.current_thread().name)
                await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(release.wait(), loop))
                return Built(body, "application/json", final)

            return build

        asking = [asyncio.create_task(reads.answer("k", builder(b"[1]", True))) for _ in range(5)]
        await asyncio.sleep(0.1)
        release.set()
        answers = await asyncio.gather(*asking)
        assert builds == ["heavy-reads"] and all(a == answers[0] for a in answers)
        assert (await reads.answer("k", builder(b"[2]", True))).body == b"[1]"  # kept
        # Not final: built again each time; too big for what is kept: never kept.
        assert (await reads.answer("live", builder(b"[3]", False))).body == b"[3]"
        assert (await reads.answer("live", builder(b"[4]", False))).body == b"[4]"
        assert (await reads.answer("big", builder(b"[" + b"0," * 9 + b"0]", True))).final
        assert (await reads.answer("big", builder(b"[5]", True))).body == b"[5]"
        # What is kept is bounded: [5] (3 bytes) and [1] (3) fit in 10, a third 5 pushes [1] out.
        await reads.answer("more", builder(b"[6,7]", True))
        assert (await reads.answer("k", builder(b"[8]", True))).body == b"[8]"
        assert len(builds) == 7
    finally:
        await reads.close()


def fetch(url: str) -> tuple[int, bytes, dict[str, str]]:
    try:
        with urllib.request.urlopen(url, timeout=10) as reply:
            return reply.status, reply.read(), dict(reply.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), dict(exc.headers)


@pytest.mark.slow
async def test_a_finished_tournament_is_answered_whole_and_paid_for_by_size(
    tmp_path: Path,
) -> None:
    budget = Quota(20_000, 60)  # bytes a minute
    async with running_server(tmp_path / "t.db", between_rounds_ms=0,
                              read_bytes_per_address=budget) as live:  # fmt: skip
        host = await Client.connect(live)
        await host.hello("hana")
        await host.send(type="create_tournament", name="cup", format="swiss", rounds=1, ref="c")
        tid = (await host.until("tournament"))["tournament"]["id"]
        await host.send(type="add_tournament_bot", tournament_id=tid, strategy="random", count=4)
        await host.send(type="manage_tournament", tournament_id=tid, action="start")
        status = ""
        for _ in range(200):
            status = (await host.until("tournament", timeout=20))["tournament"]["status"]
            if status == "finished":
                break
        assert status == "finished", f"the tournament did not finish ({status})"
        await host.close()
        url = f"{live.http}/api/tournaments/{tid}"
        code, body, headers = await asyncio.to_thread(fetch, url)
        assert code == 200 and headers["Content-Type"].startswith("application/json")
        assert json.loads(body)["status"] == "finished"
        assert headers["X-Content-Type-Options"] == "nosniff"
        paid = len(body)
        answers = 1
        while True:  # the same bytes, kept, until the address's budget is spent
            code, again, headers = await asyncio.to_thread(fetch, url)
            if code != 200:
                break
            assert again == body
            answers += 1
            assert answers * paid < 2 * budget.count + paid, "the budget was never spent"
        assert code == 429 and int(headers["Retry-After"]) >= 1
        assert "too many bytes read from your address" in json.loads(again)["error"]["reason"]
        whole = -(-budget.count // paid)  # whole answers while not overspent, then none
        assert whole <= answers <= whole + 1, (answers, paid)  # (+1: it refills meanwhile)
        code, _, _ = await asyncio.to_thread(fetch, url + "/export?format=csv")
        assert code == 429  # every API answer is paid for from the same budget
