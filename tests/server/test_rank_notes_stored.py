"""A deal's ranking notes are stored with its result, on either store: a replay from
history says what the live result said ("ada resigned: ranked last", "ada won on
time used: ... against bo's ..."), in the server's words, on ``GET /api/matches/{id}``,
``cribsquares history --match`` and ``cribsquares analyze``; a deal stored without
notes (before they were kept) still reads, with none."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.request
from typing import Any

import pytest

from tests.server.live import Live, server_process
from tests.server.ranked_deals import notes, pair, race_tie, resignation
from tests.server.stores import StoreUnderTest
from tests.server.test_history_stores import FAST, cli

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]
TIE = re.compile(r"ada won on time used: \d+\.\d{2,3} s against bo's \d+\.\d{2,3} s")


async def get(live: Live, path: str) -> Any:
    def read() -> Any:
        with urllib.request.urlopen(live.http + path, timeout=10) as reply:
            return json.loads(reply.read())

    return await asyncio.to_thread(read)


async def test_replays_say_why_as_the_live_result_did(store: StoreUnderTest) -> None:
    with server_process(store.target) as (_, live):
        ada, bo = await pair(live)
        tie, resigned = await race_tie(ada, bo), await resignation(ada, bo)
        for c in (ada, bo):
            await c.close()
        assert len(notes(tie)) == 1 and TIE.fullmatch(notes(tie)[0]), tie["ranking"]
        assert notes(resigned) == ["ada resigned: ranked last"]
        for live_result in (tie, resigned):
            match_id = live_result["match_id"]
            stored = await get(live, f"/api/matches/{match_id}")
            assert stored["ranking"] == live_result["ranking"]
            text = cli("history", "--match", match_id, "--server", live.url)
            assert text.returncode == 0, text.stderr
            assert text.stdout.splitlines()[-len(notes(live_result)) :] == notes(live_result)
            whole = cli("history", "--match", match_id, "--server", live.url, "--json")
            assert json.loads(whole.stdout)["ranking"] == live_result["ranking"]
            review = cli("analyze", match_id, "--player", "bo", "--server", live.url, *FAST)
            assert review.returncode == 0, review.stderr
            said = review.stdout.splitlines()
            assert said[0] == f"match {match_id}: 1 board(s) analysed"
            assert said[-len(notes(live_result)) :] == notes(live_result)
            figures = cli("analyze", match_id, "--player", "bo", "--server", live.url, "--json",
                          *FAST)  # fmt: skip
            assert json.loads(figures.stdout)["ranking"] == live_result["ranking"]
        # A deal stored before the notes were kept (its ranking NULL) reads as none.
        store.execute(
            "UPDATE matches SET ranking = NULL WHERE id = {id}", {"id": resigned["match_id"]}
        )
        stored = await get(live, f"/api/matches/{resigned['match_id']}")
        assert stored["ranking"] == [] and [b["rank"] for b in stored["boards"]] == [1, 2]
        text = cli("history", "--match", resigned["match_id"], "--server", live.url)
        assert text.returncode == 0 and "resigned" not in text.stdout, text.stderr
    # The notes were stored in the one column the migration added, as JSON.
    rows = store.rows("SELECT ranking FROM matches WHERE id = {id}", {"id": tie["match_id"]})
    assert [json.loads(r) for (r,) in rows] == [tie["ranking"]]
