"""The browser's own deal (js/deal.js) reproduces every test vector of
tests/engine/data/deal_vectors.json, with WebCrypto and with the page's
JavaScript SHA-256 alike, and derives room seeds, tournament round
contributions and secret chains as the server does."""

from __future__ import annotations

import json
from pathlib import Path

from engine.deal import commitment
from server.series import secret_chain
from server.tournaments.director import round_contribution
from tests.server.live import running_server
from tests.web.conftest import open_page

VECTORS = json.loads(
    (Path(__file__).parents[1] / "engine" / "data" / "deal_vectors.json").read_text("utf-8")
)

RUN = """
async ({ vectors, rounds, chain }) => {
  const base = document.querySelector('script[type="module"]').src.replace(/js\\/app\\.js$/, "");
  const deal = await import(base + "js/deal.js");
  const crypto = await import(base + "js/crypto.js");
  const out = { provider: crypto.provider(), deals: [], rooms: [], rounds: [], chains: [] };
  for (const force of ["webcrypto", "javascript"]) {
    for (const v of vectors.deals) {
      out.deals.push({ force, seed: v.seed, commitment: await deal.commitment(v.seed, force),
        deck: await deal.shuffledDeck(v.seed, force), cards: await deal.dealCards(v.seed, force) });
    }
    for (const v of vectors.room_seeds) {
      const seed = await deal.roomSeed(v.server_secret, v.contributions, force);
      out.rooms.push({ force, seed, cards: await deal.dealCards(seed, force) });
    }
    for (const r of rounds) {
      const value = await deal.roundContribution(r.id, r.round, r.contributions, force);
      out.rounds.push({ force, value });
    }
    out.chains.push({ force, value: await deal.chainBack(chain.last, chain.steps, force) });
  }
  let refused = null;
  try { await deal.dealCards(""); } catch (e) { refused = e.message; }
  out.refused = refused;
  return out;
}
"""

ROUNDS = [
    {"id": "Tq9x2LmA", "round": 1, "contributions": ["c81f0a", ""]},
    {"id": "Tq9x2LmA", "round": 12, "contributions": ["é", "p-3f9a1c2e7b10", "🂡" * 20]},
    {"id": "x", "round": 3, "contributions": []},
]


async def test_the_browser_deals_every_vector(browser, tmp_path: Path) -> None:
    chain = secret_chain("a-root-secret", 4)  # s1 .. s4: each secret is the hash of the next
    async with running_server(tmp_path / "db.sqlite") as live:
        page = await open_page(browser, live.http + "/")
        out = await page.evaluate(
            RUN,
            {"vectors": VECTORS, "rounds": ROUNDS, "chain": {"last": chain[-1], "steps": 3}},
        )
    assert out["provider"] == "webcrypto"  # 127.0.0.1 is a secure context
    deals = VECTORS["deals"]
    assert len(out["deals"]) == 2 * len(deals)
    for i, got in enumerate(out["deals"]):
        want = deals[i % len(deals)]
        assert got["seed"] == want["seed"]
        assert got["commitment"] == want["commitment"], (got["force"], want["note"])
        assert got["deck"] == want["deck"], (got["force"], want["note"])
        assert got["cards"] == want["cards"], (got["force"], want["note"])
    rooms = VECTORS["room_seeds"]
    for i, got in enumerate(out["rooms"]):
        want = rooms[i % len(rooms)]
        assert got["seed"] == want["seed"], (got["force"], want["note"])
        assert got["cards"] == want["cards"], (got["force"], want["note"])
    for i, got in enumerate(out["rounds"]):
        r = ROUNDS[i % len(ROUNDS)]
        assert got["value"] == round_contribution(r["id"], r["round"], r["contributions"])
    for got in out["chains"]:
        assert got["value"] == chain[0] == commitment(commitment(commitment(chain[-1])))
    assert out["refused"] is not None and "1 to 256" in out["refused"]
