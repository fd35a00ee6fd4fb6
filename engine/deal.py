"""Deals as a pure function of a seed, and the commit-reveal scheme around them.

The exact construction is specified in docs/fairness.md, version 1; this module
is its reference implementation and must change only together with a new
version number there. In short:

* a seed is text; its bytes are its UTF-8 encoding;
* a byte stream is the concatenation of HMAC-SHA256(key=seed bytes,
  msg=b"cribsquares/deal/v1" || uint32_be(i)) for i = 0, 1, 2, ...;
* uniform integers below n come from the stream as big-endian uint32 values,
  rejecting values >= n * floor(2**32 / n) (no modulo bias);
* the deck 0..51 (see engine.cards for the index order) is shuffled by
  Fisher-Yates from the top: for i = 51 down to 1, swap deck[i] with deck[j],
  j uniform in 0..i; the deal is deck[0..16], deck[16] being the starter;
* a multiplayer seed comes from :func:`room_seed` (server secret committed
  first, then every participant's contribution);
* a tournament table's deal secrets come from the round's secret through
  :func:`table_root` and :func:`table_deal_secret` (HMAC-SHA256, keyed by a
  secret nobody else holds until the round is over).

Never use Python's ``random`` here.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from engine.cards import DECK, Card
from engine.errors import SeedError

DEAL_VERSION: Final = 1
DEAL_CARDS: Final = 17
STREAM_LABEL: Final = b"cribsquares/deal/v1"
ROOM_SEED_LABEL: Final = b"cribsquares/room-seed/v1"
TABLE_ROOT_LABEL: Final = b"cribsquares/tournament-table/v1"
TABLE_DEAL_LABEL: Final = b"cribsquares/tournament-deal/v1"
MAX_SEED_BYTES: Final = 256


def seed_bytes(seed: str) -> bytes:
    """The UTF-8 bytes of ``seed`` (1..256 of them); raise :class:`SeedError`.

    No normalization of any kind: the seed is exactly the text given.
    """
    if not isinstance(seed, str):
        raise SeedError("a seed is text")
    data = _utf8(seed, "seed")
    if not data:
        raise SeedError("the seed is empty")
    if len(data) > MAX_SEED_BYTES:
        raise SeedError(f"the seed is longer than {MAX_SEED_BYTES} bytes")
    return data


def _utf8(text: str, what: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates (e.g. undecodable bytes in argv) have no UTF-8 form.
        raise SeedError(f"the {what} is not valid Unicode text") from None


def commitment(seed: str) -> str:
    """SHA-256 of the seed's bytes, lower-case hex: published before play."""
    return hashlib.sha256(seed_bytes(seed)).hexdigest()


def rejection_limit(n: int) -> int:
    """The largest multiple of ``n`` not above 2**32: uint32 values below it are kept.

    Each residue modulo ``n`` then has exactly ``limit // n`` preimages, so
    ``x % n`` of an accepted ``x`` is uniform (no modulo bias).
    """
    if not 1 <= n <= 1 << 32:
        raise ValueError(f"cannot draw uniformly below {n}")
    return (1 << 32) // n * n


class _Stream:
    """The HMAC-SHA256 counter-mode byte stream, read as big-endian uint32s."""

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._counter = 0
        self._buffer = b""

    def _next_block(self) -> bytes:
        msg = STREAM_LABEL + self._counter.to_bytes(4, "big")
        self._counter += 1
        return hmac.new(self._key, msg, hashlib.sha256).digest()

    def uint32(self) -> int:
        # A block is 32 bytes, a whole number of uint32s: none straddles two blocks.
        if len(self._buffer) < 4:
            self._buffer += self._next_block()
        value = int.from_bytes(self._buffer[:4], "big")
        self._buffer = self._buffer[4:]
        return value

    def below(self, n: int) -> int:
        """Uniform in ``0..n-1``: reject values at or above the limit, draw again."""
        limit = rejection_limit(n)
        while True:
            x = self.uint32()
            if x < limit:
                return x % n


def shuffled_indices(seed: str) -> list[int]:
    """The whole shuffled deck (52 card indices) for ``seed``."""
    stream = _Stream(seed_bytes(seed))
    deck = list(range(52))
    for i in range(51, 0, -1):
        j = stream.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@dataclass(frozen=True)
class Deal:
    """The 16 cards in dealing order and the starter, from one seed."""

    seed: str
    cards: tuple[Card, ...]
    starter: Card

    @property
    def commitment(self) -> str:
        return commitment(self.seed)

    @property
    def all_cards(self) -> tuple[Card, ...]:
        return (*self.cards, self.starter)


def deal(seed: str) -> Deal:
    """Deal 16 cards and the starter from ``seed`` (docs/fairness.md, v1)."""
    order = shuffled_indices(seed)[:DEAL_CARDS]
    cards = tuple(DECK[i] for i in order)
    return Deal(seed, cards[:16], cards[16])


def verify(seed: str, published_commitment: str, cards: Sequence[Card]) -> bool:
    """True when ``seed`` matches the commitment and deals ``cards``.

    ``cards`` are the cards seen, in dealing order: all 17 (starter last) or
    the first few of a game stopped early. The commitment is compared
    case-insensitively as hex; any other text simply does not match.
    """
    expected = commitment(seed).encode("ascii")
    # Compare bytes: compare_digest refuses str with non-ASCII characters.
    given = published_commitment.lower().encode("utf-8", "replace")
    if not hmac.compare_digest(expected, given):
        return False
    return tuple(cards) == deal(seed).all_cards[: len(cards)]


def _length_prefixed(part: bytes) -> bytes:
    return len(part).to_bytes(4, "big") + part


def room_seed(server_secret: str, contributions: Sequence[str]) -> str:
    """The seed of a multiplayer deal: nobody alone can choose or foresee it.

    The server commits to ``server_secret`` (SHA-256) before any contribution
    is known; each participant sends a contribution of its own choosing; the
    seed is the hex SHA-256 of the label, the secret and the contributions in
    seat order, each length-prefixed (4-byte big-endian length). The secret
    obeys the seed rules (1..256 UTF-8 bytes); a contribution may be any text,
    even empty. The guarantee needs at least one contribution from a party
    other than the server (docs/fairness.md).
    """
    h = hashlib.sha256(ROOM_SEED_LABEL)
    h.update(_length_prefixed(seed_bytes(server_secret)))
    for part in contributions:
        if not isinstance(part, str):
            raise SeedError("a contribution is text")
        h.update(_length_prefixed(_utf8(part, "contribution")))
    return h.hexdigest()


def _hmac_hex(key: str, label: bytes, parts: Sequence[str]) -> str:
    msg = label + b"".join(_length_prefixed(_utf8(p, "part")) for p in parts)
    return hmac.new(seed_bytes(key), msg, hashlib.sha256).hexdigest()


def table_root(round_secret: str, tournament_id: str, round_number: int) -> str:
    """The root of every table of a tournament round (docs/fairness.md, Tournaments).

    HMAC-SHA256 keyed by the round's secret (its UTF-8 bytes) over the label
    ``cribsquares/tournament-table/v1``, then the length-prefixed UTF-8 of the
    tournament id and of the round number in decimal; lower-case hex. Nobody
    can compute it without the round's secret, which is revealed only when the
    round is over, and the server was bound to that secret when it published
    the tournament's commitment, before anyone registered.
    """
    return _hmac_hex(round_secret, TABLE_ROOT_LABEL, (tournament_id, str(round_number)))


def table_deal_secret(root: str, deal_number: int) -> str:
    """The server secret of deal ``deal_number`` (1-based) at every table whose root is
    ``root``: HMAC-SHA256 keyed by the root over ``cribsquares/tournament-deal/v1``
    and the length-prefixed deal number in decimal; lower-case hex.

    The deals' secrets are independent of one another (no hash chain): the
    tables of a round are not in step, and a chain's next commitment would be
    the secret of a deal another table is still playing.
    """
    return _hmac_hex(root, TABLE_DEAL_LABEL, (str(deal_number),))
