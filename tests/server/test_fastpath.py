"""The server's fast paths give exactly what the slow paths give.

The per-placement messages (``placed``, ``card``, ``progress``) are written as
JSON without building their pydantic models (:class:`protocol.messages.Prepared`):
the text must be byte for byte ``dump_server`` of the model, for any value,
and the model built on demand must equal the one built directly.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.messages import (
    CardDealt,
    Place,
    Placed,
    Prepared,
    Progress,
    card_message,
    dump_server,
    placed_message,
    progress_message,
)
from server.room import Outbound, Room
from tests.server.roomkit import ALICE, BOB, CAROL, Mailbox, make_room, seat_and_start

# Any text, with the characters JSON escapes (quote, backslash, controls), non-ASCII
# and lone surrogates well represented, as well as the plain ids the server makes.
texts = st.one_of(
    st.text(max_size=12),
    st.text(alphabet='"\\\x00\x1f\x7f\n\té€😀\u2028\ud800abc-_', max_size=8),
    st.from_regex(r"[A-Za-z0-9_\-]{1,16}", fullmatch=True),
)
ints = st.one_of(st.integers(min_value=-(2**40), max_value=2**40), st.booleans())


def same_as_model(prepared: Prepared | object, kind: type, fields: dict[str, object]) -> None:
    """``prepared`` serializes as the model does; or it is the model, when it declined."""
    try:
        model = kind(**fields)
        expected = dump_server(model)
    except Exception:  # the model refuses the values (or cannot write them): so must we
        failed = True
    else:
        failed = False
    if isinstance(prepared, Prepared):
        assert not failed, "a fast message the model would refuse"
        assert prepared.kind is kind
        assert prepared.text == expected
        assert prepared.model() == model
        assert dump_server(prepared.model()) == expected
    else:
        assert isinstance(prepared, kind)  # declined: the model itself, as before
        if not failed:
            assert dump_server(prepared) == expected


@settings(max_examples=300, deadline=None)
@given(texts, ints, texts, texts, st.booleans(), st.one_of(st.none(), texts))
def test_placed_is_the_models_json(
    room_id: str, turn: int, cell: str, card: str, auto: bool, ref: str | None
) -> None:
    fields = {"room_id": room_id, "turn": turn, "cell": cell, "card": card, "auto": auto}
    try:
        fast = placed_message(room_id, turn, cell, card, auto, ref)
    except Exception:
        # Declined and the model refused too (e.g. a lone surrogate): the same as before.
        try:
            dump_server(Placed(**fields, ref=ref))
        except Exception:
            return
        raise
    same_as_model(fast, Placed, {**fields, "ref": ref})


@settings(max_examples=300, deadline=None)
@given(texts, ints, texts, st.lists(texts, max_size=16), ints)
def test_card_is_the_models_json(
    room_id: str, turn: int, card: str, legal: list[str], deadline_ms: int
) -> None:
    fields = {
        "room_id": room_id,
        "turn": turn,
        "card": card,
        "legal": legal,
        "deadline_ms": deadline_ms,
    }
    try:
        fast = card_message(room_id, turn, card, legal, deadline_ms)
    except Exception:
        try:
            dump_server(CardDealt(**fields))
        except Exception:
            return
        raise
    same_as_model(fast, CardDealt, fields)


@settings(max_examples=300, deadline=None)
@given(
    texts,
    ints,
    st.dictionaries(texts, ints, max_size=6),
    st.dictionaries(texts, st.booleans(), max_size=6),
    st.one_of(st.none(), ints),
)
def test_progress_is_the_models_json(
    room_id: str,
    turn: int,
    placed: dict[str, int],
    connected: dict[str, bool],
    deadline_ms: int | None,
) -> None:
    fields = {
        "room_id": room_id,
        "turn": turn,
        "placed": placed,
        "connected": connected,
        "deadline_ms": deadline_ms,
    }
    try:
        fast = progress_message(room_id, turn, placed, connected, deadline_ms)
    except Exception:
        try:
            dump_server(Progress(**fields))
        except Exception:
            return
        raise
    same_as_model(fast, Progress, fields)


def test_plain_values_take_the_fast_path() -> None:
    """The values a room sends (its ids, cells, cards) are written without a model."""
    assert isinstance(placed_message("r-1_x", 3, "b3", "TD", False, None), Prepared)
    assert isinstance(placed_message("r-1_x", 3, "b3", "TD", True, "ref 7"), Prepared)
    assert isinstance(card_message("r-1_x", 3, "TD", ["a1", "b2"], 0), Prepared)
    assert isinstance(card_message("r-1_x", 1, "TD", [], 30_000), Prepared)
    assert isinstance(progress_message("r", 2, {"p-1": 1}, {"p-1": True}, None), Prepared)
    # A value that would need escaping goes through the model.
    assert isinstance(placed_message("r", 3, "b3", "TD", False, 'a"b'), Placed)
    assert isinstance(placed_message("r", 3, "b3", "TD", False, "é"), Placed)


def test_outbound_reads_as_the_model() -> None:
    fast = placed_message("r", 3, "b3", "TD", False, None)
    out = Outbound(("p",), fast)
    assert isinstance(out.message, Placed) and out.message.turn == 3
    assert out.text() == dump_server(out.message)
    slow = Outbound(("p",), Placed(room_id="r", turn=3, cell="b3", card="TD"))
    assert slow.text() == out.text()


def play_everything(room: Room, rng: random.Random) -> list[Outbound]:
    """Three players, lockstep, random legal cells: every outbound of the match."""
    box = Mailbox()
    outs: list[Outbound] = []

    def add(produced: list[Outbound]) -> None:
        outs.extend(produced)
        box.add(produced)

    join: list[Outbound] = []
    box_add = box.add
    box.add = lambda produced: (join.extend(produced), box_add(produced))[1]  # type: ignore[method-assign]
    seat_and_start(room, box, BOB, CAROL)
    box.add = box_add  # type: ignore[method-assign]
    outs.extend(join)
    now = 0
    for _turn in range(16):
        for who in (ALICE, BOB, CAROL):
            now += rng.randint(1, 300)
            card = box.last_card(who)
            cell = rng.choice(card.legal)
            add(room.handle(who, Place(room_id=room.id, turn=card.turn, cell=cell, ref=None), now))
        add(room.tick(now + 200))
    return outs


@settings(max_examples=10, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_a_whole_match_writes_what_the_models_write(seed: int) -> None:
    """Every message of a match, prepared or not, is dump_server of its model."""
    rng = random.Random(seed)
    room = make_room(3)
    outs = play_everything(room, rng)
    kinds = {type(out.message) for out in outs}
    assert {Placed, CardDealt, Progress} <= kinds
    for out in outs:
        assert out.text() == dump_server(out.message)
