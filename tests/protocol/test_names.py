"""Player names, their keys, and room and tournament names (protocol.names)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.names import (
    BadName,
    bot_like,
    check_name,
    check_title,
    name_key,
    name_words,
    printable,
    reserved,
)
from protocol.wire import ProtocolError, parse_client

# Each beside an existing "Ada" / "Ärger" / "pay" / "José" / "bob1": the same key.
LOOKALIKES = [
    ("Ärger", "äRGER"),  # case beyond ASCII
    ("Ada", "ADA"),
    ("Ada", "ａｄａ"),  # fullwidth
    ("Ada", "Аda"),  # a Cyrillic А (refused as a name too: two scripts)
    ("pay", "рау"),  # whole-script Cyrillic
    ("José", "Jose\u0301"),  # a combining accent
    ("bob1", "bobl"),
    ("Bill", "BiII"),  # capital I for small l
    ("b0b", "BOB"),
    ("Straße", "STRASSE"),
    # separators, spaces and trailing punctuation
    ("John Smith", "John-Smith"),
    ("John Smith", "John_Smith"),
    ("John Smith", "John.Smith"),
    ("John Smith", "JohnSmith"),
    ("John Smith", "John Smith."),
    ("Alice", "alice."),
    ("Alice", "Al ice"),
    ("Ada Lovelace", "ada-lovelace_"),
]


@pytest.mark.parametrize(("first", "second"), LOOKALIKES)
def test_names_that_read_alike_share_one_key(first: str, second: str) -> None:
    assert name_key(first) == name_key(second)


@pytest.mark.parametrize(("first", "second"), [("ada", "adam"), ("bob", "rob"), ("Zoë", "Zoe")])
def test_different_names_have_different_keys(first: str, second: str) -> None:
    assert name_key(first) != name_key(second)


# Every one of these was accepted beside an existing name, or as a whole name.
REFUSED = {
    " ada": "begin or end with a space",
    "ada ": "begin or end with a space",
    "ada  lovelace": "two spaces",
    "a\u200dda": "U+200D (an invisible character)",
    "a\u200cda": "U+200C (an invisible character)",
    "a\u034fda": "U+034F (an invisible character)",
    "ad\u200ba": "U+200B (an invisible character)",
    "क्\u200dष": "U+200D (an invisible character)",  # PRECIS lets a joiner follow a virama
    "Аda": "one script, not several (Cyrillic, Latin)",
    "ad\u0301a": "combining mark U+0301",
    "   ": "begin or end with a space",
    ".": "a letter or a digit",
    "-_.": "a letter or a digit",
    "\u3164": "U+3164",
    "\u115f": "U+115F (a Hangul filler)",
    "\u1160": "U+1160 (a Hangul filler)",
    "\uffa0": "Hangul filler",
    "x\x1b[2J": "U+001B (a control character)",
    "x\x85": "U+0085 (a control character)",
    "ab\u202ecd": "U+202E (an invisible character)",
    "a/b": "'/'",
    "<script>": "'<'",
    "ﬁsh": "U+FB01 (a compatibility form)",
    "x" * 25: "at most 24",
    "": "empty",
}


@pytest.mark.parametrize(("text", "why"), REFUSED.items())
def test_refused_names_say_why(text: str, why: str) -> None:
    with pytest.raises(BadName) as refused:
        check_name(text)
    assert why in str(refused.value)
    assert "\x1b" not in str(refused.value)  # a reason never prints the character


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("Ada", "Ada"),
        ("ada lovelace", "ada lovelace"),
        ("Ada_Bob-1.x", "Ada_Bob-1.x"),
        ("ＡＤＡ", "ADA"),  # fullwidth letters are stored as the letters they are
        ("ﾃｽﾄ", "テスト"),
        ("Jose\u0301", "José"),  # NFC
        ("日本語", "日本語"),
        ("ひらがな漢字", "ひらがな漢字"),  # Han goes with kana
        ("Ελλάδα", "Ελλάδα"),
        ("рау", "рау"),  # one script: a name of its own, its key is pay's
        ("हिन्दी", "हिन्दी"),  # a script that writes with combining marks
    ],
)
def test_accepted_names_are_stored_in_their_precis_form(text: str, stored: str) -> None:
    assert check_name(text) == stored


def test_the_server_keeps_guest_and_bot_names_for_itself() -> None:
    for name in ("guest-1a2b", "Guest", "guest 1a2b", "guest_1a2b", "GUEST.BEEF", "guestbeef",
                 "greedy bot 1", "expert bot l", "expert bot-2"):  # fmt: skip
        assert reserved(name), name
    # "guest" and a word of letters: not a guest's name (a guest's is hex digits)
    for name in ("guesthouse", "guest bot", "GUEST-x", "ada", "robot 1", "bot", "MyBot",
                 "Bot Ross", "Abbott 8", "botany 3", "Talbot level"):  # fmt: skip
        assert not reserved(name), name


# The finding: every one of these registered, and reads as a server bot: its name or
# its id (kept for the server), or "bot" with a level (kept for bot programs).
SERVER_BOT_LOOKALIKES = [
    "level-3-bot-1", "greedy_bot_1", "greedy.bot.1", "bot-level-3-1", "bot-greedy-2",
    "random bot 3", "Ada bot 2", "expert bot-2", "bot-random-T1-3",
]  # fmt: skip
# The fourth round's: digits for letters and words run together, which the words of the
# raw name did not show ("b0t" split into b, 0, t); read on the keys of the parts.
SERVER_BOT_LOOKALIKES += ["level-3-b0t-1", "b0t-level-3-1", "Level-8-B0T-1", "expertbot1",
                          "greedybot1", "botexpert1"]  # fmt: skip
BOT_LIKE_RUN_TOGETHER = ["EXPERTBOT", "greedyb0t", "masterbot", "GreedyB0T"]
BOT_LIKE = [
    "expert bot", "GreedyBot", "Level8Bot", "master bot", "fallback-bot", "lvl 8 bot",
    "ЕXPERT BOT", "ｇｒｅｅｄｙ ｂｏｔ", "expert-2 bot",
]  # fmt: skip


@pytest.mark.parametrize("name", SERVER_BOT_LOOKALIKES)
def test_names_that_read_as_a_server_bots_name_or_id_are_the_servers(name: str) -> None:
    assert reserved(name)


@pytest.mark.parametrize("name", BOT_LIKE)
def test_names_that_read_as_a_bots_are_for_bot_programs(name: str) -> None:
    assert bot_like(name) and not reserved(name)


@pytest.mark.parametrize("name", BOT_LIKE_RUN_TOGETHER)
def test_bot_words_run_together_or_disguised_read_as_a_bots(name: str) -> None:
    assert bot_like(name) and not reserved(name)


def test_a_person_may_have_a_name_with_bot_in_it() -> None:
    for name in ("bot", "robot 1", "MyBot", "Bot Ross", "Abbott 8", "Talbot level", "Abbott",
                 "Robotics", "Botanist 2", "botany 3"):  # fmt: skip
        assert not bot_like(name) and not reserved(name), name


def test_words_split_at_separators_digits_and_capitals() -> None:
    assert name_words("level-3-bot-1") == ["level", "3", "bot", "1"]
    assert name_words("GreedyBot1") == ["Greedy", "Bot", "1"]
    assert name_words("ＡＤＡ lovelace.") == ["ADA", "lovelace"]
    assert name_words("...") == []


def test_a_bad_name_is_a_bad_message_with_its_reason() -> None:
    for frame in (
        '{"type": "hello", "protocol": 1, "name": "a\\u200dda"}',
        '{"type": "challenge", "opponent": "   "}',
        '{"type": "get_leaderboard", "around": "\\u3164"}',
    ):
        with pytest.raises(ProtocolError) as refused:
            parse_client(frame)
        assert refused.value.code == "bad_message"
        assert "a name" in refused.value.reason


TITLES_REFUSED = {
    "\x1b]0;pwned\x07\x1b[2J": "U+001B (a control character)",
    "room\x9b2J": "U+009B (a control character)",  # C1: a one-byte escape
    "room\x7f": "U+007F (a control character)",
    "\u202eevil": "U+202E (an invisible character)",
    "ok\u2066x": "U+2066 (an invisible character)",
    "a\u200bb": "U+200B (an invisible character)",
    "\u3164": "U+3164",
    "   ": "a visible character",
    "tab\there": "U+0009 (a control character)",
    "line\nbreak": "U+000A (a control character)",
    "z\u0301\u0301\u0301\u0301\u0301": "more than 3 combining marks",
}


@pytest.mark.parametrize(("text", "why"), TITLES_REFUSED.items())
def test_room_and_tournament_names_hold_printable_text_only(text: str, why: str) -> None:
    with pytest.raises(BadName) as refused:
        check_title(text)
    assert why in str(refused.value)
    for kind in ("create_room", "create_tournament"):
        with pytest.raises(ProtocolError) as on_the_wire:
            parse_client(json.dumps({"type": kind, "name": text}))
        assert on_the_wire.value.code == "bad_message"


def test_titles_are_trimmed_and_keep_what_people_write() -> None:
    assert check_title("  Friday   night  ") == "Friday night"
    assert check_title("🃏 Ärger & co.") == "🃏 Ärger & co."
    assert check_title("ｆｕｌｌ") == "full"


@given(st.text(max_size=60))
def test_keys_are_total_and_printable_titles_are_titles(text: str) -> None:
    name_key(text)  # any text has a key
    made = printable(text)
    assert made == "?" or check_title(made) == made


@given(st.text(max_size=30))
def test_a_stored_name_is_accepted_as_it_is_and_keeps_its_key(text: str) -> None:
    try:
        stored = check_name(text)
    except BadName:
        return
    assert check_name(stored) == stored and name_key(stored) == name_key(text)
