"""Deals from seeds: golden vectors, a second implementation from the spec, fairness.

``data/deal_vectors.json`` pins the deal of each seed forever (version 1).
The functions ``spec_deal`` and ``spec_room_seed`` below were written from
docs/fairness.md alone, with nothing from engine/: they agreeing with the
vectors shows the document is enough to reimplement the deal elsewhere.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.cards import DECK, Card
from engine.deal import (
    DEAL_VERSION,
    MAX_SEED_BYTES,
    _Stream,
    commitment,
    deal,
    rejection_limit,
    room_seed,
    seed_bytes,
    shuffled_indices,
    verify,
)
from engine.errors import SeedError

ROOT = Path(__file__).resolve().parents[2]
VECTORS = json.loads((Path(__file__).parent / "data" / "deal_vectors.json").read_text("utf-8"))
DEALS = VECTORS["deals"]
ROOMS = VECTORS["room_seeds"]


# --------------------------------------------------------------------------
# The specification, reimplemented from docs/fairness.md


def spec_uint32s(seed: str) -> Iterator[int]:
    """Section 3: HMAC-SHA256 blocks in counter mode, read as big-endian uint32s."""
    key = seed.encode("utf-8")
    counter = 0
    while True:
        message = b"cribsquares/deal/v1" + counter.to_bytes(4, "big")
        block = hmac.new(key, message, hashlib.sha256).digest()
        for k in range(0, 32, 4):
            yield int.from_bytes(block[k : k + 4], "big")
        counter += 1


def spec_deck(seed: str, *, reject: bool = True) -> list[int]:
    """Sections 4 and 5: rejection sampling, then Fisher-Yates from the top."""
    assert 1 <= len(seed.encode("utf-8")) <= 256
    values = spec_uint32s(seed)
    deck = list(range(52))
    for i in range(51, 0, -1):
        n = i + 1
        limit = (2**32 // n) * n
        x = next(values)
        while reject and x >= limit:
            x = next(values)
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def spec_names(indices: list[int]) -> list[str]:
    """Section 2: index = 13 * suit + rank - 1, suits C D H S, ranks A..K."""
    names = [rank + suit for suit in "CDHS" for rank in "A23456789TJQK"]
    return [names[i] for i in indices]


def spec_room_seed(secret: str, contributions: list[str]) -> str:
    """Multiplayer seeds: SHA-256 of the label and the length-prefixed parts, in hex."""

    def lp(text: str) -> bytes:
        data = text.encode("utf-8")
        return len(data).to_bytes(4, "big") + data

    message = b"cribsquares/room-seed/v1" + lp(secret) + b"".join(lp(c) for c in contributions)
    return hashlib.sha256(message).hexdigest()


# --------------------------------------------------------------------------
# Golden vectors


def test_vectors_cover_the_edges() -> None:
    assert VECTORS["version"] == DEAL_VERSION == 1
    seeds = [v["seed"] for v in DEALS]
    assert len(seeds) >= 8 and len(set(seeds)) == len(seeds)
    lengths = [len(s.encode("utf-8")) for s in seeds]
    assert min(lengths) == 1 and max(lengths) == MAX_SEED_BYTES
    assert any(n > 64 for n in lengths), "a key longer than the HMAC block"
    assert any(not s.isascii() for s in seeds)
    assert any(spec_deck(s, reject=False) != spec_deck(s) for s in seeds), (
        "a seed whose deal needs a rejected stream value"
    )


@pytest.mark.parametrize("vector", DEALS, ids=lambda v: v["note"][:40])
def test_engine_deals_the_vectors(vector: dict[str, object]) -> None:
    seed = str(vector["seed"])
    dealt = deal(seed)
    assert [str(c) for c in dealt.all_cards] == vector["cards"]
    assert len(dealt.cards) == 16 and dealt.starter == dealt.all_cards[16]
    assert shuffled_indices(seed) == vector["deck"]
    assert seed_bytes(seed).hex() == vector["seed_utf8_hex"]
    assert commitment(seed) == dealt.commitment == vector["commitment"]


@pytest.mark.parametrize("vector", DEALS, ids=lambda v: v["note"][:40])
def test_the_spec_alone_deals_the_vectors(vector: dict[str, object]) -> None:
    seed = str(vector["seed"])
    deck = spec_deck(seed)
    assert deck == vector["deck"]
    assert spec_names(deck[:17]) == vector["cards"]
    assert seed.encode("utf-8").hex() == vector["seed_utf8_hex"]
    assert hashlib.sha256(seed.encode("utf-8")).hexdigest() == vector["commitment"]


@pytest.mark.parametrize("room", ROOMS, ids=lambda r: r["note"][:40])
def test_room_seed_vectors(room: dict[str, object]) -> None:
    secret, parts = str(room["server_secret"]), list(room["contributions"])  # type: ignore[call-overload]
    assert room_seed(secret, parts) == spec_room_seed(secret, parts) == room["seed"]
    assert [str(c) for c in deal(str(room["seed"])).all_cards] == room["cards"]
    assert spec_names(spec_deck(str(room["seed"]))[:17]) == room["cards"]


def test_the_worked_examples_in_the_doc_match_the_vectors() -> None:
    doc = (ROOT / "docs" / "fairness.md").read_text("utf-8")
    example = next(v for v in DEALS if v["seed"] == "friday night")
    assert example["commitment"] in doc
    assert " ".join(example["cards"][:16]) in doc
    assert f"starter `{example['cards'][16]}`" in doc
    assert " ".join(str(i) for i in example["deck"][:17]) in doc
    room = ROOMS[0]
    assert room["seed"] in doc and commitment(room["server_secret"]) in doc
    assert " ".join(room["cards"][:16]) in doc


def test_the_python_in_the_doc_deals_the_vectors() -> None:
    doc = (ROOT / "docs" / "fairness.md").read_text("utf-8")
    code = doc.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, object] = {}
    exec(code, namespace)
    deal_v1 = namespace["deal_v1"]
    for vector in DEALS:
        assert deal_v1(vector["seed"]) == vector["cards"]  # type: ignore[operator]


# --------------------------------------------------------------------------
# Commitment, verification, seeds


def test_commitment_is_sha256_hex_of_the_utf8_bytes() -> None:
    assert commitment("abc") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"  # FIPS 180-2
    )
    assert commitment("é") == hashlib.sha256(b"\xc3\xa9").hexdigest()


def test_verify() -> None:
    seed = "friday night"
    dealt = deal(seed).all_cards
    published = commitment(seed)
    assert verify(seed, published, dealt)
    assert verify(seed, published.upper(), dealt)
    assert verify(seed, published, dealt[:5]), "the first cards of a game stopped early"
    assert not verify("friday night ", published, dealt), "another seed"
    assert not verify(seed, commitment("other"), dealt), "another commitment"
    assert not verify(seed, published, (dealt[1], dealt[0], *dealt[2:])), "another order"
    assert not verify(seed, published, (*dealt[:16], next(c for c in DECK if c not in dealt)))
    assert not verify(seed, published, (*dealt, dealt[0])), "more than 17 cards"
    assert not verify(seed, "é" * 64, dealt), "non-hex text is a mismatch, not a crash"
    assert not verify(seed, "", dealt)


@pytest.mark.parametrize(
    "seed",
    ["", "x" * 257, "é" * 129, "\ud800", "ok\udcff"],
    ids=["empty", "257 bytes", "258 bytes of é", "lone surrogate", "escaped byte"],
)
def test_unusable_seeds(seed: str) -> None:
    with pytest.raises(SeedError) as caught:
        deal(seed)
    assert caught.value.code == "bad_seed"
    with pytest.raises(SeedError):
        commitment(seed)


def test_seed_is_not_normalized() -> None:
    assert deal("é").all_cards != deal("e\u0301").all_cards
    assert deal("demo").all_cards != deal("Demo").all_cards != deal(" demo").all_cards
    assert deal("x" * MAX_SEED_BYTES).all_cards == deal("x" * MAX_SEED_BYTES).all_cards
    with pytest.raises(SeedError):
        deal(5)  # type: ignore[arg-type]


def test_room_seed_is_deterministic_and_binds_every_part() -> None:
    secret = "7d1f0c2a9be34e55"
    seed = room_seed(secret, ["alice", "bob"])
    assert seed == room_seed(secret, ["alice", "bob"])
    assert len(seed) == 64 and int(seed, 16) >= 0
    assert deal(seed).all_cards == deal(room_seed(secret, ("alice", "bob"))).all_cards
    others = {
        room_seed(secret, ["bob", "alice"]),  # seat order
        room_seed(secret, ["alic", "ebob"]),  # characters moved between contributions
        room_seed(secret + "a", ["lice", "bob"]),  # moved between secret and contribution
        room_seed(secret, ["alice", "bob", ""]),  # an extra empty contribution
        room_seed(secret, ["alice"]),
        room_seed("another secret", ["alice", "bob"]),
    }
    assert seed not in others and len(others) == 6
    with pytest.raises(SeedError):
        room_seed("", ["alice"])
    with pytest.raises(SeedError):
        room_seed(secret, ["\ud800"])
    with pytest.raises(SeedError):
        room_seed(secret, [5])  # type: ignore[list-item]


# --------------------------------------------------------------------------
# Uniformity


def test_rejection_limit_leaves_no_modulo_bias() -> None:
    for n in range(2, 53):
        limit = rejection_limit(n)
        assert limit % n == 0, "every residue has exactly limit // n preimages"
        assert 2**32 - n < limit <= 2**32, "the largest such multiple"
    assert rejection_limit(52) == 4_294_967_248
    assert rejection_limit(2) == 2**32
    with pytest.raises(ValueError):
        rejection_limit(0)


class _ScriptedStream(_Stream):
    """The engine's sampler fed with chosen uint32 values."""

    def __init__(self, values: list[int]) -> None:
        super().__init__(b"unused")
        self.values = values

    def uint32(self) -> int:
        return self.values.pop(0)


def test_below_rejects_exactly_the_values_at_or_above_the_limit() -> None:
    limit = rejection_limit(52)
    stream = _ScriptedStream([limit, 2**32 - 1, limit + 1, limit - 1, 7])
    assert stream.below(52) == (limit - 1) % 52 == 51
    assert stream.values == [7], "the three rejected values and the accepted one are used up"
    stream = _ScriptedStream([0, 2**32 - 1])
    assert stream.below(2) == 0
    assert _ScriptedStream([2**32 - 1]).below(2) == 1, "n = 2 divides 2**32: nothing rejected"
    assert _ScriptedStream([2**32 - 1, 5]).below(3) == 2, "2**32 - 1 is rejected for n = 3"


def test_stream_reads_uint32s_in_order_across_blocks() -> None:
    seed = "friday night"
    stream = _Stream(seed_bytes(seed))
    expected = spec_uint32s(seed)
    for _ in range(40):  # five blocks
        assert stream.uint32() == next(expected)


def test_every_card_is_about_equally_likely_in_each_dealt_position() -> None:
    """5,200 fixed seeds, so 100 expected per card: deterministic, never flaky."""
    first: Counter[Card] = Counter()
    starter: Counter[Card] = Counter()
    for k in range(5200):
        dealt = deal(f"uniformity-{k}")
        first[dealt.cards[0]] += 1
        starter[dealt.starter] += 1
    for counts in (first, starter):
        assert set(counts) == set(DECK)
        assert all(50 <= n <= 150 for n in counts.values()), counts.most_common(3)
        chi_square = sum((n - 100) ** 2 / 100 for n in counts.values())
        assert chi_square < 110, chi_square  # 51 degrees of freedom: mean 51, sd 10
