"""Cards: the canonical text form, the forms accepted, the index order."""

from __future__ import annotations

import doctest
import importlib
import pickle

import pytest

from engine.cards import DECK, Card, parse_cards
from engine.errors import CardError, DuplicateCardError, EngineError, HandSizeError


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("5H", "5H"),
        ("AC", "AC"),
        ("TD", "TD"),
        ("10D", "TD"),
        ("10d", "TD"),
        ("qs", "QS"),
        ("kH", "KH"),
        ("a♠", "AS"),
        ("5♥", "5H"),
        ("J♦", "JD"),
        ("9♣", "9C"),
        ("7♡", "7H"),
        ("2♢", "2D"),
        ("3♧", "3C"),
        ("4♤", "4S"),
        (" 8c ", "8C"),
    ],
)
def test_parse_accepted_forms(text: str, canonical: str) -> None:
    card = Card.parse(text)
    assert str(card) == canonical
    assert Card.parse(canonical) is card


@pytest.mark.parametrize(
    "text",
    ["", "5", "H", "1H", "11H", "0S", "5X", "ZZ", "HH", "55", "5HH", "10", "T10", "♥5", "5 H"],
)
def test_parse_refuses_bad_text(text: str) -> None:
    with pytest.raises(CardError) as caught:
        Card.parse(text)
    assert caught.value.code == "bad_card"
    assert isinstance(caught.value, EngineError) and isinstance(caught.value, ValueError)


@pytest.mark.parametrize("value", [5, None, b"5H", ["5H"]])
def test_parse_refuses_what_is_not_text(value: object) -> None:
    with pytest.raises(CardError):
        Card.parse(value)  # type: ignore[arg-type]


def test_repr_round_trips() -> None:
    for card in DECK:
        assert repr(card) == f"Card.parse({str(card)!r})"
        assert eval(repr(card), {"Card": Card}) is card


def test_index_order_is_the_fairness_order() -> None:
    """index = 13 * suit + rank - 1, suits C D H S, ranks A..K (docs/fairness.md)."""
    names = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    assert [str(c) for c in DECK] == names
    for i, card in enumerate(DECK):
        assert card.index == i == 13 * card.suit + card.rank - 1
        assert Card.from_index(i) is card
    with pytest.raises(CardError):
        Card.from_index(52)


def test_values_ace_low_faces_ten() -> None:
    assert [Card.parse(f"{r}S").value for r in "A23456789TJQK"] == [
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10,
    ]  # fmt: skip


def test_cards_are_immutable_hashable_and_picklable() -> None:
    card = Card.parse("5H")
    with pytest.raises(AttributeError):
        card.rank = 6  # type: ignore[misc]
    assert {card, Card.parse("5h")} == {card}
    assert pickle.loads(pickle.dumps(card)) is card
    assert sorted([Card.parse("AS"), Card.parse("KC")]) == [Card.parse("KC"), Card.parse("AS")]


def test_parse_cards_counts_and_refuses_duplicates() -> None:
    assert parse_cards(["5h", "5H".lower().replace("h", "d")]) == [
        Card.parse("5H"),
        Card.parse("5D"),
    ]
    with pytest.raises(DuplicateCardError):
        parse_cards(["5H", "5h"])
    with pytest.raises(HandSizeError):
        parse_cards(["5H", "5D"], count=4)


def test_docstring_examples() -> None:
    for name in ("engine.cards", "engine.grid"):
        result = doctest.testmod(importlib.import_module(name))
        assert result.failed == 0 and result.attempted > 0, name
