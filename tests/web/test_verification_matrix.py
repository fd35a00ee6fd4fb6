"""The verification matrix for the web client: every origin, every viewer, honest and
altered in transit.

The deals of tests/matrix/record.py are played on a real server; then, in a page of
that server in Chromium, each viewer's transcript is replayed into a fresh ``Store``
of the web client (its own message handling, ``store.apply``, and its checks, run
with the browser's Web Crypto), with the contributions the page would have kept
where it sent them. Honest, every deal verifies, with the "my contribution" check
exactly where one was sent; with one value altered on the way, it does not, and a
failing check names what was altered. The page shows what the store decided
(tests/web/test_play.py and test_daily.py read the panel itself).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.matrix.alter import ALTERATIONS, WORD, altered, altered_record
from tests.matrix.record import FAST, record
from tests.server.live import running_server
from tests.web.conftest import player, shot

pytestmark = pytest.mark.timeout(280)

MINE = "my contribution was used, at my seat"

# Replay one viewer's transcript into a new Store once per job (a job: a deal, and the
# messages an alteration changed, by index); each deal's verification, once settled.
REPLAY = """
async ({ log, jobs }) => {
  const Store = window.cribsquares.store.constructor; // the page's own Store class
  // The commands after which the page keeps the contribution it sent (views/*.js).
  const keeps = new Set(["create_room", "join_room", "quickplay", "challenge",
    "answer_challenge", "rematch"]);
  const verdicts = [];
  for (const { matchId, patches } of jobs) {
    const changed = new Map(patches);
    const store = new Store();
    let view = null;
    for (let i = 0; i < log.length; i++) {
      const m = changed.has(i) ? changed.get(i) : log[i];
      if (m.type === "sent") {
        const sent = m.message;
        const kept = keeps.has(sent.type) && sent.contribution && !sent.spectate;
        if (kept) store.contribution = sent.contribution;
        continue;
      }
      store.apply(m);
      const shown = m.type === "match_result" ? m : m.type === "room_state" ? m.result : null;
      const current = store.match && store.match.match_id === matchId;
      if (shown && shown.match_id === matchId && !view && current) view = store.match;
    }
    if (!view) {
      verdicts.push({ missing: true });
      continue;
    }
    for (let i = 0; i < 1000 && (!view.verification || view.verification.pending); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const v = view.verification;
    verdicts.push({ pending: !v || v.pending, ok: Boolean(v && v.ok), checks: v ? v.checks : [] });
  }
  return verdicts;
}
"""


def patches(log: list[dict[str, Any]], how: str, match_id: str) -> list[list[Any]]:
    """The messages ``how`` alters for deal ``match_id``, as [index, message] pairs."""
    changed, count = altered(log, how, match_id)
    assert count, f"nothing to alter for {how} in deal {match_id}"
    return [[i, m] for i, (m, was) in enumerate(zip(changed, log, strict=True)) if m != was]


async def verdicts(page: Any, viewer: Any, jobs: list[tuple[str, str | None]]) -> list[Any]:
    """Each job's (deal, alteration or None) verification in the web client, in order."""
    sent = [
        {"matchId": m, "patches": [] if how is None else patches(viewer.log, how, m)}
        for m, how in jobs
    ]
    found = await page.evaluate(REPLAY, {"log": viewer.log, "jobs": sent})
    for (m, how), v in zip(jobs, found, strict=True):
        what = f"{viewer.name}, deal {m}" + (f", {how} altered" if how else "")
        assert not v.get("missing"), f"{what}: the store kept no result of it"
        assert not v["pending"], f"{what}: the checks did not settle within 10 s"
    return list(found)


async def test_the_web_client_verifies_every_origin_and_catches_every_alteration(
    browser, tmp_path: Path, page_errors
) -> None:
    async with running_server(tmp_path / "matrix.db", **FAST) as live:
        recording = await record(live)
        page = await player(browser, live.http, "vera", page_errors)
        deals = 0
        for viewer in recording.viewers:
            jobs = [(m, how) for m in viewer.matches for how in (None, *ALTERATIONS)]
            for (match_id, how), v in zip(jobs, await verdicts(page, viewer, jobs), strict=True):
                labels = [c["label"] for c in v["checks"]]
                failed = [c["label"] for c in v["checks"] if not c["ok"]]
                if how is None:
                    deals += 1
                    assert v["ok"], f"{viewer.name}, {match_id}: {failed}"
                    assert (MINE in labels) == viewer.contributed, f"{viewer.name}: {labels}"
                else:
                    assert not v["ok"], f"{viewer.name}, {match_id}, {how} altered: verified"
                    assert any(WORD[how] in label for label in failed), f"{viewer.name}: {failed}"
        assert deals >= 20
        await replays_from_history(page, live.http, recording)
    assert page_errors.errors == []


def answering(text: str) -> Any:
    """A route handler that answers every request with ``text`` (JSON)."""

    async def serve(route: Any) -> None:
        await route.fulfill(status=200, content_type="application/json", body=text)

    return serve


async def replays_from_history(page: Any, http: str, recording: Any) -> None:
    """The replay page (``#/match/ID``) checks a stored deal: honest, "deal verified";
    its record altered on the way (the seed, the secret or a contribution, changed by a
    route between the page and the server), "DEAL NOT VERIFIED" naming the failing check.
    One deal of each kind: a room's, a series' third, a tournament table's."""
    wanted = ("room", "series", "swiss tournament table")
    chosen = [next(v for v in recording.viewers if v.origin == o).matches[-1] for o in wanted]
    for match_id in chosen:
        record = recording.stored[match_id]
        for how in (None, "seed", "server secret", "contribution"):
            body = record if how is None else altered_record(record, how)
            assert body is not None

            path = f"**/api/matches/{match_id}"
            await page.route(path, answering(json.dumps(body)))
            await page.goto(f"{http}/#/match/{match_id}")
            await page.reload()  # a fresh fetch through the route
            verdict = page.locator("section.verify:not(.pending)")
            await verdict.wait_for()
            shown = await verdict.inner_text()
            await shot(page, f"desktop-replay-{match_id}-{how or 'honest'}".replace(" ", "-"))
            await page.unroute(path)
            if how is None:
                assert "deal verified" in shown, (match_id, shown)
            else:
                assert "DEAL NOT VERIFIED" in shown and "Failed: " in shown, (match_id, shown)
                failed = shown.split("Failed: ", 1)[1].split(": the deal shown", 1)[0]
                assert WORD[how] in failed, (match_id, how, failed)
