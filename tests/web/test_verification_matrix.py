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

from pathlib import Path
from typing import Any

import pytest

from tests.matrix.alter import ALTERATIONS, WORD, altered
from tests.matrix.record import FAST, record
from tests.server.live import running_server
from tests.web.conftest import player

pytestmark = pytest.mark.timeout(280)

MINE = "my contribution was used, at my seat"

# Replay one transcript into a new Store; the verification of one deal, once settled.
REPLAY = """
async ({ log, matchId }) => {
  const Store = window.cribsquares.store.constructor; // the page's own Store class
  const store = new Store();
  // The commands after which the page keeps the contribution it sent (views/*.js).
  const keeps = new Set(["create_room", "join_room", "quickplay", "challenge",
    "answer_challenge", "rematch"]);
  let view = null;
  for (const m of log) {
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
  if (!view) return { missing: true };
  for (let i = 0; i < 1000 && (!view.verification || view.verification.pending); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const v = view.verification;
  return { pending: !v || v.pending, ok: Boolean(v && v.ok), checks: v ? v.checks : [] };
}
"""


async def web_verdict(page: Any, log: list[dict[str, Any]], match_id: str, what: str) -> Any:
    found = await page.evaluate(REPLAY, {"log": log, "matchId": match_id})
    assert not found.get("missing"), f"{what}: the store kept no result of {match_id}"
    assert not found["pending"], f"{what}: the checks did not settle within 10 s"
    return found


async def test_the_web_client_verifies_every_origin_and_catches_every_alteration(
    browser, tmp_path: Path, page_errors
) -> None:
    async with running_server(tmp_path / "matrix.db", **FAST) as live:
        recording = await record(live)
        page = await player(browser, live.http, "vera", page_errors)
        deals = 0
        for viewer in recording.viewers:
            for match_id in viewer.matches:
                deals += 1
                honest = await web_verdict(page, viewer.log, match_id, viewer.name)
                labels = [c["label"] for c in honest["checks"]]
                failed = [c["label"] for c in honest["checks"] if not c["ok"]]
                assert honest["ok"], f"{viewer.name}, {match_id}: {failed}"
                assert (MINE in labels) == viewer.contributed, f"{viewer.name}: {labels}"
                for how in ALTERATIONS:
                    log, changed = altered(viewer.log, how, match_id)
                    assert changed, f"{viewer.name}: nothing to alter for {how}"
                    v = await web_verdict(page, log, match_id, f"{viewer.name}, {how}")
                    failed = [c["label"] for c in v["checks"] if not c["ok"]]
                    assert not v["ok"], f"{viewer.name}, {how} altered: verified"
                    assert any(WORD[how] in label for label in failed), f"{viewer.name}: {failed}"
        assert deals >= 20
