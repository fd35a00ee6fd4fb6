"""The server's fast paths give exactly what the slow paths give.

The per-placement messages (``placed``, ``card``, ``progress``) and a deal's
``match_result`` are written as JSON without building their pydantic models
(:class:`protocol.prepared.Prepared`): the text must be byte for byte
``dump_server`` of the model, for any value, and the model built on demand must
equal the one built directly.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any, get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.deals import (
    CardDealt,
    MatchResult,
    Place,
    Placed,
    PlacedWhy,
    Progress,
    SeriesInfo,
    SeriesStanding,
)
from protocol.fields import PlayerInfo
from protocol.prepared import (
    Prepared,
    ResultBoard,
    card_message,
    legal_json,
    match_result_message,
    match_result_model,
    placed_message,
    progress_message,
)
from protocol.wire import (
    CLIENT_TYPES,
    ClientMessage,
    ProtocolError,
    _parse_client_slowly,
    dump_server,
    parse_client,
)
from server.room import Outbound, Room, RoomResult
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


# Every reason the server gives, and text that is none (which the model refuses).
whys = st.one_of(st.none(), st.sampled_from(get_args(PlacedWhy)), texts)


@settings(max_examples=300, deadline=None)
@given(texts, ints, texts, texts, st.booleans(), st.one_of(st.none(), texts), whys)
def test_placed_is_the_models_json(
    room_id: str, turn: int, cell: str, card: str, auto: bool, ref: str | None, why: Any
) -> None:
    fields = {"room_id": room_id, "turn": turn, "cell": cell, "card": card, "auto": auto}
    try:
        fast = placed_message(room_id, turn, cell, card, auto, ref, why)
    except Exception:
        # Declined and the model refused too (e.g. a lone surrogate): the same as before.
        try:
            dump_server(Placed(**fields, why=why, ref=ref))
        except Exception:
            return
        raise
    same_as_model(fast, Placed, {**fields, "why": why, "ref": ref})


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
    cached = legal_json(legal)  # what a room keeps per legal mask
    if cached is not None:
        again = card_message(room_id, turn, card, legal, deadline_ms, cached)
        assert type(again) is type(fast)
        if isinstance(again, Prepared) and isinstance(fast, Prepared):
            assert again.text == fast.text


@settings(max_examples=300, deadline=None)
@given(
    texts,
    ints,
    st.dictionaries(texts, ints, max_size=6),
    st.dictionaries(texts, st.booleans(), max_size=6),
    st.one_of(st.none(), ints),
    st.one_of(st.none(), st.tuples(ints, texts)),
)
def test_progress_is_the_models_json(
    room_id: str,
    turn: int,
    placed: dict[str, int],
    connected: dict[str, bool],
    deadline_ms: int | None,
    dealt: tuple[int, str] | None,
) -> None:
    fields = {
        "room_id": room_id,
        "turn": turn,
        "placed": placed,
        "connected": connected,
        "deadline_ms": deadline_ms,
        "dealt": None if dealt is None else {"turn": dealt[0], "card": dealt[1]},
    }
    try:
        fast = progress_message(room_id, turn, placed, connected, deadline_ms, dealt)
    except Exception:
        try:
            dump_server(Progress(**fields))
        except Exception:
            return
        raise
    same_as_model(fast, Progress, fields)


# A match_result's parts: what a room makes (plain card names, cells, integers),
# or (``odd``) any text, integers given as booleans, tuples for lists, keys
# missing or in another order.


def result_parts(odd: bool) -> dict[str, st.SearchStrategy[object]]:
    plain = st.sampled_from(["5H", "JD", "TC", "AS", "KH", "a1", "d4"])
    number = st.integers(min_value=-(2**40), max_value=2**40)
    card = st.one_of(plain, texts) if odd else plain
    whole = ints if odd else number
    names = (
        st.one_of(st.lists(card, max_size=4), st.tuples(card), texts)
        if odd
        else st.lists(card, max_size=4)
    )
    points = st.fixed_dictionaries(
        {k: whole for k in ("fifteens", "pairs", "runs", "flush", "nobs")}
    )
    if odd:
        points = st.one_of(points, st.dictionaries(texts, ints, max_size=3))

    @st.composite
    def hand(draw: st.DrawFn) -> object:
        score = {
            "hand": draw(names),
            "starter": draw(card),
            "fifteens": draw(st.lists(names, max_size=3)),
            "pairs": draw(st.lists(names, max_size=2)),
            "runs": draw(
                st.one_of(st.lists(names, max_size=2), names)
                if odd
                else st.lists(names, max_size=2)
            ),
            "flush": draw(names),
            "nobs": draw(st.one_of(st.none(), card)),
            "points": draw(points),
            "total": draw(whole),
        }
        if odd and draw(st.integers(0, 4)) == 0:
            keys = draw(st.permutations(list(score)))[: draw(st.integers(7, 9))]
            score = {k: score[k] for k in keys}
        return score

    @st.composite
    def board(draw: st.DrawFn) -> object:
        score = {
            "starter": draw(card),
            "rows": draw(st.lists(hand(), max_size=2)),
            "columns": draw(st.lists(hand(), max_size=2)),
            "heels": draw(whole),
            "total": draw(whole),
            "win": draw(st.one_of(st.booleans(), ints) if odd else st.booleans()),
        }
        if odd and draw(st.integers(0, 4)) == 0:
            score = dict(reversed(score.items()))
        return score

    player = st.builds(PlayerInfo, id=texts, name=texts, bot=st.booleans(), guest=st.booleans())
    boards = st.builds(
        ResultBoard,
        player,
        whole,
        whole,
        st.lists(st.one_of(st.none(), card), max_size=16),
        st.lists(
            st.tuples(
                whole, card, card, st.one_of(st.booleans(), ints) if odd else st.booleans(), whole
            ),
            max_size=4,
        ),
        board(),
        whole,
    )
    series = st.one_of(
        st.none(),
        st.builds(
            SeriesInfo,
            best_of=st.integers(1, 5),
            deal=st.integers(1, 5),
            standings=st.lists(
                st.builds(
                    SeriesStanding,
                    player=player,
                    deals_won=st.integers(0, 5),
                    points=st.integers(0, 200),
                    time_used_ms=st.integers(0, 10**6),
                    forfeited=st.booleans(),
                ),
                max_size=2,
            ),
            finished=st.booleans(),
            winner=st.one_of(st.none(), player),
            next_deal_ms=st.one_of(st.none(), st.integers(0, 10**5)),
        ),
    )
    ids = st.lists(
        st.one_of(plain, texts) if odd else st.from_regex(r"[A-Za-z0-9_\-]{1,16}", fullmatch=True),
        min_size=6,
        max_size=6,
    )
    return {"ids": ids, "boards": st.lists(boards, max_size=3), "deal": whole, "series": series}


@st.composite
def match_results(draw: st.DrawFn) -> tuple[bool, dict[str, object]]:
    odd = draw(st.booleans())
    return odd, {k: draw(v) for k, v in result_parts(odd).items()}


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(match_results())
def test_match_result_is_the_models_json(case: tuple[bool, dict[str, Any]]) -> None:
    odd, parts = case
    room_id, match_id, starter, seed, secret, seed_commitment = parts["ids"]
    boards: list[ResultBoard] = parts["boards"]
    deal, series = parts["deal"], parts["series"]

    def model() -> MatchResult:
        return match_result_model(
            room_id, match_id, starter, seed, secret, seed_commitment, boards, deal, series
        )

    args = (room_id, match_id, starter, seed, secret, seed_commitment, boards, deal, series)
    try:
        expected = dump_server(model())
    except Exception:  # the model refuses the values (or cannot write them): so must we
        try:
            fast = match_result_message(*args)
        except Exception:
            return
        raise AssertionError(f"a fast match_result the model would refuse: {fast.text}") from None
    if odd:
        fast = match_result_message(*args)
    else:  # plain values: written without a model
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(Prepared, "of", _no_model)
            fast = match_result_message(*args)
    assert fast.kind is MatchResult
    assert fast.text == expected
    assert fast.model() == MatchResult.model_validate_json(expected)


def _no_model(message: object) -> Prepared:
    raise AssertionError(f"a model built for a result of plain values: {message!r}")


def test_a_rooms_result_takes_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The values a room puts in a result are written without building its models."""
    monkeypatch.setattr(Prepared, "of", _no_model)
    room = make_room(3)
    outs = play_everything(room, random.Random(3))
    (result,) = [out for out in outs if isinstance(out.message, MatchResult)]
    assert result.text() == dump_server(result.message)
    monkeypatch.undo()
    # An odd value goes the model's way, and says the same.
    board = ResultBoard(
        PlayerInfo(id="p", name='a "quoted" é'), 0, 1, ["5H", None], [(1, "a1", "5H", False, 3)],
        {"starter": "JD", "rows": [], "columns": [], "heels": 2, "total": 2, "win": False},
        3,
    )  # fmt: skip
    text = match_result_message("r", "m", "JD", "s", "x", "c", [board], 1, None).text
    assert '"name":"a \\"quoted\\" é"' in text


def test_plain_values_take_the_fast_path() -> None:
    """The values a room sends (its ids, cells, cards) are written without a model."""
    assert isinstance(placed_message("r-1_x", 3, "b3", "TD", False, None), Prepared)
    assert isinstance(placed_message("r-1_x", 3, "b3", "TD", True, "ref 7"), Prepared)
    for why in get_args(PlacedWhy):
        assert isinstance(placed_message("r-1_x", 3, "b3", "TD", True, None, why), Prepared)
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

    def add(produced: RoomResult) -> None:
        outs.extend(box.add(produced))

    join: list[Outbound] = []
    box_add = box.add

    def joined(produced: RoomResult) -> list[Outbound]:
        messages = box_add(produced)
        join.extend(messages)
        return messages

    box.add = joined  # type: ignore[method-assign]
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
    assert {Placed, CardDealt, Progress, MatchResult} <= kinds
    for out in outs:
        assert out.text() == dump_server(out.message)


# ---------------------------------------------------------------------------
# parse_client: the one-call fast path gives what the slow path gives


def _client_fields() -> list[str]:
    import typing

    union = typing.get_args(ClientMessage)[0]
    names: set[str] = set()
    for model in typing.get_args(union):
        names.update(model.model_fields)
    return sorted(names)


FIELDS = _client_fields()
ascii_text = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=12)
json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.sampled_from([0, 1, 3, 5, 16, 17, 1_000, 30_000, 600_001]),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from([1.0, 3.0, 7.0, 7.5, 1e400, -0.0]),
        ascii_text,
        st.sampled_from(["b3", "a1", "race", "lockstep", "public", "private", "true", "7"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(ascii_text, inner, max_size=3)
    ),
    max_leaves=6,
)
frames = st.one_of(
    st.builds(
        lambda kind, fields, indent: json.dumps(
            {"type": kind, **fields}, ensure_ascii=False, separators=indent
        ),
        st.one_of(st.sampled_from(CLIENT_TYPES), ascii_text),
        st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6),
        st.sampled_from([(",", ":"), (", ", ": ")]),
    ),
    st.text(alphabet='{}[]":,0123456789.eE-+ truefalsnulNaIyfiypc_ab\\', max_size=40),
    # Mostly valid: the frames players send in play, with a field now and then odd.
    st.builds(
        lambda kind, room, turn, cell, ref, extra: json.dumps(
            {"type": kind, "room_id": room, "ref": ref, **extra}
            | ({"turn": turn, "cell": cell} if kind == "place" else {}),
            ensure_ascii=False,
        ),
        st.sampled_from(["place", "place", "place", "ready", "resync", "leave_room"]),
        st.one_of(st.from_regex(r"[A-Za-z0-9_\-]{1,12}", fullmatch=True), json_values),
        st.one_of(st.integers(min_value=0, max_value=17), json_values),
        st.one_of(st.sampled_from(["a1", "b3", "d4", "B2", "e5", "a"]), json_values),
        st.one_of(st.none(), ascii_text),
        st.one_of(st.just({}), st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=1)),
    ),
)


# Frames strict validation and the slow path's checks are about: values of the wrong
# JSON type for every field (strings of numbers, floats, booleans for ints, ints for
# booleans), lone surrogate escapes, NaN and Infinity, byte-order marks, repeats.
wrong_typed = st.builds(
    lambda kind, fields, prefix, repeat: (
        prefix + json.dumps({"type": kind, **fields}, separators=(",", ":"))[:-1] + repeat + "}"
    ),
    st.sampled_from(CLIENT_TYPES),
    st.dictionaries(
        st.sampled_from(FIELDS),
        st.one_of(
            st.sampled_from(["1", "2", "16", "yes", "true", "race", "a1", "A1", "\ud800"]),
            st.sampled_from([1, 2, 3, 5, 16, 1.0, 2.0, 3.0, 16.0, 0.5, True, False, None]),
            st.integers(min_value=-3, max_value=30_001),
        ),
        max_size=5,
    ),
    st.sampled_from(["", "", "", "\ufeff", " "]),
    st.sampled_from(
        ["", "", "", ',"ref":"\\ud800"', ',"ref":NaN', ',"turn":Infinity', ',"ref":"a","ref":"b"']
    ),
)


def outcome(parse: Callable[[str], object], frame: str) -> tuple[object, ...]:
    try:
        message = parse(frame)
    except ProtocolError as exc:
        return ("error", exc.code, exc.reason, exc.ref)
    return ("ok", type(message), message)


@pytest.mark.slow
@settings(max_examples=1_500, deadline=None)
@given(frames)
def test_parse_client_fast_path_is_the_slow_path(frame: str) -> None:
    assert outcome(parse_client, frame) == outcome(_parse_client_slowly, frame)


@pytest.mark.slow
@settings(max_examples=1_500, deadline=None)
@given(wrong_typed)
def test_the_two_paths_agree_on_frames_of_the_wrong_types(frame: str) -> None:
    assert outcome(parse_client, frame) == outcome(_parse_client_slowly, frame)
    # And what is accepted has exactly the schema's types: no value was coerced.
    result = outcome(parse_client, frame)
    if result[0] == "ok":
        sent = json.loads(frame.lstrip())
        for name, value in sent.items():
            got = getattr(result[2], name)
            assert type(value) is type(got) or (isinstance(value, str) and got == value), name


def test_the_frames_tried_include_accepted_ones() -> None:
    """The property above is not vacuous: it sees frames both paths accept."""
    accepted = 0

    @settings(max_examples=300, deadline=None)
    @given(frames)
    def count(frame: str) -> None:
        nonlocal accepted
        accepted += outcome(parse_client, frame)[0] == "ok"

    count()
    assert accepted >= 10


def test_parse_client_fast_path_edge_cases() -> None:
    for frame in [
        '{"type":"ping","type":"hello","protocol":1}',  # a repeated key: the last one counts
        '{"type":"hello","protocol":1,"protocol":2}',
        '{"type":"place","room_id":"a","turn":7.0,"cell":"b3"}',
        '{"type":"place","room_id":"a","turn":"7","cell":"b3"}',
        '{"type":"place","room_id":"a","turn":1e0,"cell":"b3"}',
        '{"type":"place","room_id":"a","turn":07,"cell":"b3"}',
        '{"type":"place","room_id":"a","turn":7,"cell":"b3",}',
        '{"type":"ping","ref":NaN}',
        '{"type":"ping","ref":Infinity}',
        '{"type":"ping"} x',
        '{"type":"ping"}   ',
        "   {}",
        "[]",
        '{"type":"create_room","name":"x","deals":3.0}',
        '{"type":"ready","room_id":"a","ready":"true"}',
        '{"type":"place","room_id":"a","turn":100000000000000000000000,"cell":"b3"}',
        '{"type":"place","room_id":"a","turn":true,"cell":"b3"}',
        '{"type":"hello","protocol":"1"}',
        '{"type":"hello","protocol":1.0}',
        '{"type":"ready","room_id":"a","ready":"yes"}',
        '{"type":"ready","room_id":"a","ready":1}',
        '{"type":"create_room","name":"x","deals":true}',
        '{"type":"create_room","name":"x","seats":"2"}',
        '{"type":"ping","ref":"\\ud800"}',
        '{"type":"ping","ref":-Infinity}',
        '\ufeff{"type":"ping"}',
    ]:
        assert outcome(parse_client, frame) == outcome(_parse_client_slowly, frame), frame


@given(st.text(max_size=12) | st.text(alphabet=st.characters(max_codepoint=0x80), max_size=12))
def test_plain_text_is_printable_ascii_without_quote_or_backslash(text: str) -> None:
    """What the prepared writers put between quotes as is: exactly printable ASCII
    (space to tilde) but the quote and the backslash, which JSON would escape."""
    from protocol.prepared import _plain

    expected = all(0x20 <= ord(c) <= 0x7E and c not in '"\\' for c in text)
    assert _plain(text) is expected
