"""The browser's own deal (js/deal.js) reproduces every test vector of
tests/engine/data/deal_vectors.json, with WebCrypto and with the page's
JavaScript SHA-256 alike, and derives room seeds, tournament round
contributions and secret chains as the server does."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

from engine.deal import commitment
from server.series import secret_chain
from server.tournaments.model import round_contribution
from tests.server.live import running_server
from tests.web.conftest import open_page

VECTORS = json.loads(
    (Path(__file__).parents[1] / "engine" / "data" / "deal_vectors.json").read_text("utf-8")
)

RUN = """
async ({ vectors, rounds, chain, tables }) => {
  const base = document.querySelector('script[type="module"]').src.replace(/js\\/app\\.js$/, "");
  const deal = await import(base + "js/deal.js");
  const crypto = await import(base + "js/crypto.js");
  const out = { provider: crypto.provider(), deals: [], rooms: [], rounds: [], chains: [] };
  out.tables = [];
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
    for (const t of tables) {
      const root = await deal.tableRoot(t.secret, t.id, t.round, force);
      const secrets = [];
      for (let j = 1; j <= 3; j++) secrets.push(await deal.tableDealSecret(root, j, force));
      out.tables.push({ force, root, secrets });
    }
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


# A tournament table's secrets (docs/fairness.md, Tournaments): the worked
# example's round secret, table root and deal secrets, and other inputs
# computed here from the page's formulas with Python's hmac.
WORKED = {
    "id": "Tq3vX9aB",
    "round": 1,
    "secret": "d74b35de0b02beea720dc03f2d39ec089704864680bf0c2e5122ecf11da31ef3",
    "root": "fda83aa30a523c0ae0bac8f9ac4ba96e9b446663ad8a465cb4b3f4cce5e764b8",
    "secrets": [
        "8b54beec05711d1eba57d851df10dbc65f2d1a34da567e18bfbc6f087bc52b5a",
        "ac02058afc3e9410fc9923f55ff46a8249b9510519b5e33cbd38e61f454d0192",
        "895f46299ffd18acff4e40f2d33c790262c59ab5911184e13962f5150a1c2518",
    ],
}
TABLES = [
    WORKED,
    {"id": "é-Zr8", "round": 12, "secret": "x" * 64},
    {"id": "T", "round": 2, "secret": "a"},
]


def _lp(text: str) -> bytes:
    data = text.encode("utf-8")
    return len(data).to_bytes(4, "big") + data


def table_root(secret: str, tid: str, k: int) -> str:
    message = b"cribsquares/tournament-table/v1" + _lp(tid) + _lp(str(k))
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def table_deal_secret(root: str, j: int) -> str:
    message = b"cribsquares/tournament-deal/v1" + _lp(str(j))
    return hmac.new(root.encode(), message, hashlib.sha256).hexdigest()


async def test_the_browser_deals_every_vector(browser, tmp_path: Path) -> None:
    chain = secret_chain("a-root-secret", 4)  # s1 .. s4: each secret is the hash of the next
    async with running_server(tmp_path / "db.sqlite") as live:
        page = await open_page(browser, live.http + "/")
        out = await page.evaluate(
            RUN,
            {
                "vectors": VECTORS,
                "rounds": ROUNDS,
                "chain": {"last": chain[-1], "steps": 3},
                "tables": TABLES,
            },
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
    assert len(out["tables"]) == 2 * len(TABLES)
    for i, got in enumerate(out["tables"]):
        t = TABLES[i % len(TABLES)]
        root = table_root(t["secret"], t["id"], t["round"])
        assert got["root"] == root
        assert got["secrets"] == [table_deal_secret(root, j) for j in (1, 2, 3)]
        if "root" in t:
            assert got["root"] == t["root"] and got["secrets"] == t["secrets"]
    assert out["refused"] is not None and "1 to 256" in out["refused"]


CHECK_TABLE = """
async ({ w, tableCommitment, roundCommitment }) => {
  const base = document.querySelector('script[type="module"]').src.replace(/js\\/app\\.js$/, "");
  const deal = await import(base + "js/deal.js");
  const info = { id: w.id, commitment: roundCommitment,
    history: [{ number: 1, contribution: "d", server_commitment: roundCommitment,
                server_secret: w.secret }] };
  const deals = w.secrets.map((s, i) => ({ deal: i + 1, server_secret: s }));
  const good = await deal.tableRoundChecks(info, 1, deals, tableCommitment);
  const swapped = [{ deal: 2, server_secret: w.secrets[0] }];
  const forged = await deal.tableRoundChecks(info, 1, swapped, tableCommitment);
  const scheme = await deal.tableScheme(info, 1, tableCommitment, 3);
  const chained = await deal.tableScheme(info, 1, await deal.chainBack(roundCommitment, 2), 3);
  return { good, forged, scheme, chained };
}
"""


async def test_a_tables_secrets_checked_against_the_rounds(browser, tmp_path: Path) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        page = await open_page(browser, live.http + "/")
        out = await page.evaluate(
            CHECK_TABLE,
            {
                "w": WORKED,
                "tableCommitment": commitment(WORKED["secrets"][0]),
                "roundCommitment": commitment(WORKED["secret"]),
            },
        )
    assert [c["ok"] for c in out["good"]] == [True] * 5  # the round's secret, 3 deals, the table
    assert [c["ok"] for c in out["forged"]] == [True, False, True]
    assert out["scheme"] == "per-deal" and out["chained"] == "chain"


TOURNAMENT_VECTORS = json.loads(
    (Path(__file__).parents[1] / "engine" / "data" / "tournament_vectors.json").read_text("utf-8")
)

RUN_TABLES = """
async (tables) => {
  const base = document.querySelector('script[type="module"]').src.replace(/js\\/app\\.js$/, "");
  const deal = await import(base + "js/deal.js");
  const out = [];
  for (const force of ["webcrypto", "javascript"]) {
    for (const t of tables) {
      const d = await deal.roundContribution(
        t.tournament_id, t.round, t.entrant_contributions, force);
      const root = await deal.tableRoot(t.round_secret, t.tournament_id, t.round, force);
      const deals = [];
      for (const v of t.deals) {
        const secret = await deal.tableDealSecret(root, v.deal, force);
        const seed = await deal.roomSeed(secret, Array(t.seats).fill(d), force);
        deals.push({ secret, commitment: await deal.commitment(secret, force), seed,
          seed_commitment: await deal.commitment(seed, force),
          cards: await deal.dealCards(seed, force) });
      }
      out.push({ force, round_commitment: await deal.commitment(t.round_secret, force),
        round_contribution: d, root, deals });
    }
  }
  return out;
}
"""


async def test_the_browser_deals_every_tournament_vector(browser, tmp_path: Path) -> None:
    tables = TOURNAMENT_VECTORS["tables"]
    async with running_server(tmp_path / "db.sqlite") as live:
        page = await open_page(browser, live.http + "/")
        out = await page.evaluate(RUN_TABLES, tables)
    assert len(out) == 2 * len(tables)
    for i, got in enumerate(out):
        want = tables[i % len(tables)]
        assert got["round_commitment"] == want["round_commitment"], want["note"]
        assert got["round_contribution"] == want["round_contribution"], want["note"]
        assert got["root"] == want["table_root"], (got["force"], want["note"])
        assert got["deals"][0]["commitment"] == want["table_commitment"]
        for d, w in zip(got["deals"], want["deals"], strict=True):
            assert d["secret"] == w["server_secret"], (got["force"], want["note"], w["deal"])
            assert d["commitment"] == w["server_commitment"]
            assert d["seed"] == w["seed"] and d["seed_commitment"] == w["seed_commitment"]
            assert d["cards"] == w["cards"], (got["force"], want["note"], w["deal"])
