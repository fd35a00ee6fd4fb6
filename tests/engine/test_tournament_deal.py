"""Tournament table secrets: golden vectors, a second implementation from the spec.

``data/tournament_vectors.json`` pins how a tournament round's tables get their
deals (docs/fairness.md, *Tournaments*). The ``spec_*`` functions below were
written from that page alone, with nothing from engine/ or server/: they
agreeing with the vectors, and the engine and the director with them, shows the
page is enough for a client to check a tournament's deals by itself.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest

from engine.deal import commitment, deal, room_seed, table_deal_secret, table_root
from server.series import SecretScheme, deal_secrets, secret_chain
from server.tournaments.model import round_contribution

ROOT = Path(__file__).resolve().parents[2]
VECTORS = json.loads(
    (Path(__file__).parent / "data" / "tournament_vectors.json").read_text("utf-8")
)
TABLES: list[dict[str, Any]] = VECTORS["tables"]


def lp(text: str) -> bytes:
    data = text.encode("utf-8")
    return len(data).to_bytes(4, "big") + data


def spec_round_contribution(tid: str, number: int, contributions: list[str]) -> str:
    parts = [tid, str(number), *contributions]
    return hashlib.sha256(b"cribsquares/tournament-round/v1" + b"".join(map(lp, parts))).hexdigest()


def spec_table_root(round_secret: str, tid: str, number: int) -> str:
    msg = b"cribsquares/tournament-table/v1" + lp(tid) + lp(str(number))
    return hmac.new(round_secret.encode("utf-8"), msg, hashlib.sha256).hexdigest()


def spec_deal_secret(root: str, number: int) -> str:
    msg = b"cribsquares/tournament-deal/v1" + lp(str(number))
    return hmac.new(root.encode("utf-8"), msg, hashlib.sha256).hexdigest()


def spec_room_seed(secret: str, contributions: list[str]) -> str:
    msg = b"cribsquares/room-seed/v1" + lp(secret) + b"".join(map(lp, contributions))
    return hashlib.sha256(msg).hexdigest()


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t["note"][:40])
def test_the_spec_alone_and_the_code_give_the_vectors(table: dict[str, Any]) -> None:
    tid, k, secret = table["tournament_id"], table["round"], table["round_secret"]
    contribs = table["entrant_contributions"]
    d = spec_round_contribution(tid, k, contribs)
    assert d == round_contribution(tid, k, contribs) == table["round_contribution"]
    assert hashlib.sha256(secret.encode()).hexdigest() == table["round_commitment"]
    root = spec_table_root(secret, tid, k)
    assert root == table_root(secret, tid, k) == table["table_root"]
    secrets = deal_secrets(SecretScheme.TABLE, root, len(table["deals"]))
    for j, vector in enumerate(table["deals"], start=1):
        t = spec_deal_secret(root, j)
        assert t == table_deal_secret(root, j) == secrets[j - 1] == vector["server_secret"]
        assert commitment(t) == vector["server_commitment"]
        seats = [d] * table["seats"]
        seed = spec_room_seed(t, seats)
        assert seed == room_seed(t, seats) == vector["seed"]
        assert commitment(seed) == vector["seed_commitment"]
        assert [str(c) for c in deal(seed).all_cards] == vector["cards"]
    assert commitment(spec_deal_secret(root, 1)) == table["table_commitment"]


def test_the_round_secrets_are_the_tournaments_chain() -> None:
    first, second = TABLES[0], TABLES[1]
    assert first["round_commitment"] == VECTORS["tournament_commitment"]
    assert second["round_commitment"] == first["round_secret"]  # revealed by round 1
    assert secret_chain(second["round_secret"], 2) == [first["round_secret"],
                                                       second["round_secret"]]  # fmt: skip


def test_nothing_published_before_a_round_is_over_gives_its_deals() -> None:
    """The deals of round 1 against what is public while it is played: the
    tournament's commitment, the round's contribution, the table's commitment and,
    as each table's deals end, the commitments of the next deals."""
    table = TABLES[0]
    secrets = [v["server_secret"] for v in table["deals"]]
    published = [
        VECTORS["tournament_commitment"],
        table["round_contribution"],
        table["table_commitment"],
        *(v["server_commitment"] for v in table["deals"]),
    ]
    reachable = set()
    for value in published:
        x = value
        for _ in range(6):
            reachable.add(x)
            x = commitment(x)
    assert not reachable & {*secrets, *(v["seed"] for v in table["deals"])}
    # Under the old scheme (the table's hash chain rooted at the round secret) the
    # tournament's commitment was the second deal's secret.
    assert secret_chain(table["round_secret"], 3)[1] == VECTORS["tournament_commitment"]


def test_the_worked_example_in_the_doc_is_the_first_vector() -> None:
    doc = (ROOT / "docs" / "fairness.md").read_text("utf-8")
    table = TABLES[0]
    for key in ("round_secret", "round_contribution", "table_root", "table_commitment"):
        assert table[key] in doc, key
    for vector in table["deals"]:
        assert vector["server_secret"] in doc and vector["seed"] in doc
        assert " ".join(vector["cards"][:16]) in doc
    # The page's own Python gives the vectors.
    section = doc.split("In Python, with nothing from cribsquares:")[1]
    code = section.split("```python\n")[1].split("```")[0]
    names: dict[str, Any] = {}
    exec(code, names)  # the documentation's example, run as written
    root = names["table_root"](table["round_secret"], table["tournament_id"], table["round"])
    assert root == table["table_root"]
    assert names["deal_secret"](root, 2) == table["deals"][1]["server_secret"]
