"""Playing cards: the 52-card deck, its canonical text form and its index order.

A card's *index* (0..51) is part of the fairness specification
(docs/fairness.md): suits in the order clubs, diamonds, hearts, spades, and
within a suit ranks ace to king, so ``index = 13 * suit + (rank - 1)``.
Changing that order changes every deal ever dealt: never do it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from engine.errors import CardError, DuplicateCardError

RANK_CHARS: Final = "A23456789TJQK"
SUIT_CHARS: Final = "CDHS"
SUIT_SYMBOLS: Final = {
    "♣": "C", "♦": "D", "♥": "H", "♠": "S",
    "♧": "C", "♢": "D", "♡": "H", "♤": "S",
}  # fmt: skip
JACK: Final = 11


class Card:
    """One playing card; immutable, hashable, ordered by index.

    >>> Card.parse("10d")
    Card.parse('TD')
    >>> Card.parse("5♥").value
    5
    """

    __slots__ = ("index", "rank", "suit")

    index: int
    rank: int
    suit: int

    def __init__(self, rank: int, suit: int) -> None:
        if not 1 <= rank <= 13 or not 0 <= suit <= 3:
            raise CardError(f"no such card: rank {rank}, suit {suit}")
        object.__setattr__(self, "rank", rank)
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "index", 13 * suit + rank - 1)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    @classmethod
    def from_index(cls, index: int) -> Card:
        if not 0 <= index < 52:
            raise CardError(f"card index out of range: {index}")
        return DECK[index]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``5H``, ``TD``, ``10d``, ``qs``, ``5♥``; raise :class:`CardError`."""
        if not isinstance(text, str):
            raise CardError(f"a card must be text like '5H', not {type(text).__name__}")
        raw = text.strip()
        if len(raw) < 2:
            raise CardError(f"unknown card {text!r}: expected rank then suit, like '5H' or 'TD'")
        rank_part, suit_part = raw[:-1].upper(), raw[-1]
        suit_char = SUIT_SYMBOLS.get(suit_part, suit_part.upper())
        if rank_part == "10":
            rank_part = "T"
        if len(rank_part) != 1 or rank_part not in RANK_CHARS or suit_char not in SUIT_CHARS:
            raise CardError(f"unknown card {text!r}: ranks are A 2-9 T(10) J Q K, suits C D H S")
        return DECK[13 * SUIT_CHARS.index(suit_char) + RANK_CHARS.index(rank_part)]

    @property
    def value(self) -> int:
        """Counting value for fifteens: ace 1, faces 10."""
        return min(self.rank, 10)

    @property
    def suit_char(self) -> str:
        return SUIT_CHARS[self.suit]

    def __str__(self) -> str:
        return RANK_CHARS[self.rank - 1] + SUIT_CHARS[self.suit]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Card) and other.index == self.index

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __hash__(self) -> int:
        return self.index

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (Card.from_index, (self.index,))


DECK: Final[tuple[Card, ...]] = tuple(Card(r, s) for s in range(4) for r in range(1, 14))


def parse_cards(texts: Iterable[str], *, count: int | None = None) -> list[Card]:
    """Parse several cards, refusing duplicates (and a wrong count if given)."""
    from engine.errors import HandSizeError

    cards = [Card.parse(t) for t in texts]
    if count is not None and len(cards) != count:
        raise HandSizeError(f"expected {count} cards, got {len(cards)}")
    ensure_distinct(cards)
    return cards


def ensure_distinct(cards: Sequence[Card]) -> None:
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            raise DuplicateCardError(f"card {c} appears more than once")
        seen.add(c)
