"""Names people read: player names, and the names of rooms and tournaments.

Three functions, pure (no I/O), shared by the protocol's types and the server:

* :func:`check_name`: is this text a player name one may register, and what
  is its stored form? Each space-separated part goes through the PRECIS
  ``UsernameCasePreserved`` profile (RFC 8265, the ``precis-i18n`` package),
  which refuses control and invisible characters, Hangul fillers and
  compatibility forms, maps fullwidth letters to their ordinary forms and
  normalizes to NFC. On top of that: letters or digits are required, the only
  ASCII punctuation is ``. - _``, one script per name (Han may go with kana or
  Hangul), a Latin, Greek or Cyrillic letter takes no combining mark that NFC
  cannot compose into it, and spaces are single and inside the name.
* :func:`name_key`: the one key names are compared on. Total (any text has
  one): NFKC, case folding, invisible characters dropped, then the confusable
  skeleton of Unicode TR39 (UTS #39, section 4, on the confusables table that
  ``confusable-homoglyphs`` ships), then every separator dropped (spaces and
  punctuation, ``. - _`` among them, wherever they stand), so that ``Ada``,
  ``ada``, ``ＡＤＡ``, ``Аda`` (Cyrillic А) and ``AdA`` share a key, and so do
  ``bob1``, ``bobl`` and ``BobI`` (case does not count, and a capital I looks
  like a small l: the key reads i and l as one letter), and ``John Smith``,
  ``John-Smith``, ``John_Smith``, ``John.Smith``, ``JohnSmith`` and
  ``John Smith.``.
* :func:`reserved`: the names the server gives its own players, and every
  name that reads as one of them: a guest's (``guest`` and a few hex digits,
  ``Guest 1a2b``) and a server bot's name or id (the word ``bot`` followed by a
  number, ``level-3-bot-1``, ``Ada bot 2``; ``bot`` first, then a level or
  strategy, ``bot-level-3-1``). :func:`bot_like`: a name that reads as a
  computer player's (``bot`` with a level, a strategy or a level's title:
  ``expert bot``, ``GreedyBot``), for bot programs only. Words are split at
  separators, between letters and digits and where a small letter meets a
  capital, and compared on their keys.
* :func:`check_title`: room and tournament names, printable text: the PRECIS
  ``NicknameCasePreserved`` profile (RFC 8266) refuses control characters (C0,
  C1, DEL, so every escape sequence), bidi controls and every other invisible
  formatting character, and trims and collapses spaces; runs of more than
  :data:`MAX_MARKS` combining marks are refused too.

Each refusal is a :class:`BadName` (a ``ValueError``) whose text says what is
wrong in words and names the character by its code point, never printing it.
docs/protocol.md, *Identity*, is the prose version. This module must never
import from ``server/`` or do I/O.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Any

import confusable_homoglyphs
import precis_i18n
from confusable_homoglyphs import categories, confusables
from precis_i18n.unicode import UnicodeData

MAX_NAME = 24
MAX_TITLE = 40
MAX_MARKS = 3  # combining marks in a row on one character of a title

NAME_PUNCTUATION = ".-_"  # the ASCII punctuation a player name may hold
GUEST_PREFIX = "guest"  # "guest" and "guest-1a2b" (hex digits) are the server's for guests
GUEST_HEX = 8  # hex digits after "guest" that read as a guest's name

# What the keys depend on: a stored key made under another is made again (server.identity).
# 2: separators no longer count.
KEY_VERSION = (
    f"2; unicode {unicodedata.unidata_version}; precis-i18n {precis_i18n.__version__};"
    f" confusable-homoglyphs {confusable_homoglyphs.__version__}"
)

_USERNAME = precis_i18n.get_profile("UsernameCasePreserved")
_NICKNAME = precis_i18n.get_profile("NicknameCasePreserved")
_UCD = UnicodeData()

# Scripts that write one language together (UTS #39, 5.1, "augmented script sets").
_JOINED_SCRIPTS = (
    frozenset({"HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"HAN", "HANGUL"}),
    frozenset({"HAN", "BOPOMOFO"}),
)
# Scripts whose accented letters NFC writes as one character.
_PRECOMPOSED_SCRIPTS = frozenset({"LATIN", "GREEK", "CYRILLIC", "COMMON"})

# Why PRECIS refused a character (precis-i18n's reasons), in words.
_WHY = {
    "controls": "a control character",
    "precis_ignorable_properties": "an invisible character",
    "zero_width_joiner": "an invisible character",
    "zero_width_nonjoiner": "an invisible character",
    "old_hangul_jamo": "a Hangul filler",
    "has_compat": "a compatibility form",
    "spaces": "a space character other than the plain space",
    "symbols": "a symbol",
    "punctuation": "punctuation",
    "unassigned": "a character Unicode has not assigned",
    "other": "a character names may not hold",
    "bidi_rule": "right-to-left text mixed in a way that displays ambiguously",
}


class BadName(ValueError):
    """A name or title that is refused; the text says why, for people.

    ``at``: where in the text the refused character is, when one is.
    """

    def __init__(self, reason: str, at: int | None = None) -> None:
        super().__init__(reason)
        self.at = at


def _code(char: str) -> str:
    return f"U+{ord(char):04X}"


def _precis(profile: Any, text: str, what: str) -> str:
    try:
        return str(profile.enforce(text))
    except UnicodeEncodeError as exc:
        kind = exc.reason.split("/")[-1]
        why = _WHY.get(kind, "a character that is not allowed")
        if kind == "bidi_rule" or exc.start >= len(text):
            raise BadName(f"{what} holds {why}") from None
        raise BadName(f"{what} may not hold {_code(text[exc.start])} ({why})", exc.start) from None


# ----------------------------------------------------------------------
# Player names


def check_name(text: str) -> str:
    """``text`` as a player name is stored (its PRECIS form); :class:`BadName` if refused."""
    if not text:
        raise BadName("a name cannot be empty")
    if len(text) > MAX_NAME:
        raise BadName(f"a name has at most {MAX_NAME} characters")
    if text[0] == " " or text[-1] == " ":
        raise BadName("a name may not begin or end with a space")
    if "  " in text:
        raise BadName("a name may not hold two spaces in a row")
    # RFC 8265 section 3.5: a name of several words is enforced word by word.
    name = " ".join(_precis(_USERNAME, part, "a name") for part in text.split(" "))
    _no_invisible(name, "a name")
    if len(name) > MAX_NAME:
        raise BadName(f"a name has at most {MAX_NAME} characters")
    for char in name:
        if char.isascii() and not char.isalnum() and char not in " " + NAME_PUNCTUATION:
            raise BadName(
                f"a name may not hold {char!r}: letters, digits, spaces and"
                f" {', '.join(NAME_PUNCTUATION)} only"
            )
    if not any(unicodedata.category(c)[0] in "LN" for c in name):
        raise BadName("a name needs a letter or a digit")
    _one_script(name)
    _composed_accents(name)
    return name


def _no_invisible(text: str, what: str) -> None:
    # PRECIS lets a joiner follow a virama; a name or title shows none.
    for at, char in enumerate(text):
        if _UCD.default_ignorable(ord(char)):
            raise BadName(f"{what} may not hold {_code(char)} (an invisible character)", at)


def _is_mark(char: str) -> bool:
    return unicodedata.category(char)[0] == "M"


def _one_script(name: str) -> None:
    scripts = {categories.alias(c) for c in name} - {"COMMON", "INHERITED"}
    if len(scripts) > 1 and not any(scripts <= joined for joined in _JOINED_SCRIPTS):
        names = ", ".join(s.title() for s in sorted(scripts))
        raise BadName(f"a name is written in one script, not several ({names})")


def _composed_accents(name: str) -> None:
    base = ""
    for char in name:
        if not _is_mark(char):
            base = char
            continue
        if not base or categories.alias(base) in _PRECOMPOSED_SCRIPTS:
            raise BadName(
                f"a name may not hold the combining mark {_code(char)} there:"
                " write the accented letter as one character"
            )


def reserved(name: str) -> bool:
    """Names the server gives its own players, and those that read as one of them: a
    guest's ``guest-1a2b`` (``guest`` and up to 8 hex digits, whatever separates
    them), a server bot's name ``… bot N`` (``level-3 bot 1``, and so
    ``level-3-bot-1``) and its id ``bot-STRATEGY-N`` (``bot-level-3-1``). Only guests
    may have such a name (the server makes theirs up)."""
    key, guest = name_key(name), name_key(GUEST_PREFIX)
    if key.startswith(guest) and _is_guest_suffix(key[len(guest) :]):
        return True
    bot, tokens = name_key("bot"), _token_keys(name)
    for words in ([name_key(w) for w in name_words(name)], tokens):
        if bot not in words:
            continue
        at = words.index(bot)
        after = words[at + 1] if at + 1 < len(words) else ""
        if after and set(after) <= _digit_keys():  # "… bot N", a server bot's name
            return True
        if at == 0 and _bot_words() & set(words[1:]):  # "bot-STRATEGY-N", its id
            return True
    for token in tokens:  # the same run together: "expertbot1", "botexpert1"
        _, found, after = token.rpartition(bot)
        if found and after and set(after) <= _digit_keys():
            return True
        rest = token.removeprefix(bot)
        if rest != token and any(rest.startswith(w) for w in _long_bot_words()):
            return True
    return False


def bot_like(name: str) -> bool:
    """A name that reads as a computer player's: the word ``bot`` with a level, a
    strategy or a level's title (``expert bot``, ``GreedyBot``, ``master bot``), the
    words read on keys whatever disguises them (``greedyb0t``, ``EXPERTBOT``,
    ``masterbot``). Kept for bots: a bot program may hold one (it shows as a bot), a
    person may not."""
    bot, tokens = name_key("bot"), _token_keys(name)
    for words in ({name_key(w) for w in name_words(name)}, set(tokens)):
        if bot in words and _bot_words() & words:
            return True
    return any(
        f"{w}{bot}" in token or f"{bot}{w}" in token for token in tokens for w in _long_bot_words()
    )


def _token_keys(name: str) -> list[str]:
    """The keys of a name's parts between separators, not split at digits or capitals:
    compared on keys, ``b0t`` reads as ``bot`` (a 0 as an o), ``GreedyB0T1`` as one
    run of words."""
    parts, part = [], ""
    for char in unicodedata.normalize("NFKC", name):
        if unicodedata.category(char)[0] in "LMN":
            part += char
        elif part:
            parts.append(part)
            part = ""
    if part:
        parts.append(part)
    return [k for k in (name_key(p) for p in parts) if k]


@functools.cache
def _long_bot_words() -> frozenset[str]:
    """The bot words that can be told inside a run of letters (not a lone digit's key)."""
    return frozenset(w for w in _bot_words() if len(w) >= 3 and not set(w) <= _digit_keys())


def name_words(name: str) -> list[str]:
    """The words of a name: split at every separator (anything but a letter, a mark or a
    digit), between letters and digits, and where a small letter meets a capital
    (``GreedyBot1``: ``Greedy``, ``Bot``, ``1``)."""
    words: list[str] = []
    word = ""
    for char in unicodedata.normalize("NFKC", name):
        kind = unicodedata.category(char)[0]
        if kind not in "LMN":  # a separator ends the word
            if word:
                words.append(word)
            word = ""
            continue
        digit, was_digit = kind == "N", unicodedata.category(word[-1:] or " ")[0] == "N"
        if word and (digit != was_digit or (char.isupper() and word[-1].islower())):
            words.append(word)
            word = ""
        word += char
    if word:
        words.append(word)
    return words


@functools.cache
def _bot_words() -> frozenset[str]:
    """The keys of every word that names a server bot's level: ``level``, each strategy,
    alias and level title of the engine's ladder, and ``fallback``."""
    from engine.bots.levels import ALIASES, LEVELS

    words = {"level", "lvl", "fallback", *ALIASES}
    for level in LEVELS:
        words |= set(name_words(level.name)) | {level.title}
    return frozenset(name_key(w) for w in words)


def _is_guest_suffix(rest: str) -> bool:
    """Does the rest of a key after ``guest`` read as the server's guest names' own,
    a few hex digits (``guest-1a2b``; none: ``guest`` itself)?"""
    return len(rest) <= GUEST_HEX and set(rest) <= _hex_keys()


@functools.cache
def _hex_keys() -> frozenset[str]:
    return frozenset("".join(name_key(d) for d in "0123456789abcdef"))


@functools.cache
def _digit_keys() -> frozenset[str]:
    """What the digits become in keys (a 1 reads as an l, a 0 as an o)."""
    return frozenset("".join(name_key(d) for d in "0123456789"))


@functools.lru_cache(maxsize=65_536)
def name_key(text: str) -> str:
    """The key names are compared on: equal keys, the same name to a reader."""
    key = _visible(unicodedata.normalize("NFKC", text))
    # Case does not count, and a capital I looks like a small l: so i and l are one
    # letter here (else "BiII" would stand beside "Bill"). Folding case can make a
    # character the skeleton maps: again until nothing changes.
    for _ in range(4):
        again = _visible(_skeleton(key.casefold()).casefold()).replace("i", "l")
        if again == key:
            break
        key = again
    # Separators do not count either: "John Smith", "John-Smith" and "JohnSmith." are one.
    return "".join(c for c in key if unicodedata.category(c)[0] not in "PZ" and not c.isspace())


def _visible(text: str) -> str:
    kept = "".join(
        " " if c.isspace() else c
        for c in text
        if not (_UCD.default_ignorable(ord(c)) or unicodedata.category(c) in ("Cc", "Cf", "Cs"))
        and not _UCD.old_hangul_jamo(ord(c))
    )
    return " ".join(kept.split())


def _skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, each character to its confusable prototype, NFD."""
    table = _prototypes()
    mapped = "".join(table.get(c, c) for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype, from the Unicode confusables table.

    ``confusable-homoglyphs`` keeps that table both ways: a character that
    Unicode maps to a prototype lists only it, and a prototype lists every
    character mapped to it. A class of two is listed alike both ways; its
    smaller member serves as its prototype, which gives the same equality.
    """
    table = {
        _bare(char): [_bare(entry["c"]) for entry in alikes]
        for char, alikes in confusables.confusables_data.items()
    }
    found: dict[str, str] = {}
    for char, alikes in table.items():
        if len(char) != 1 or len(alikes) != 1:
            continue
        (target,) = alikes
        back = table.get(target, [])
        if char not in back:
            continue
        if len(back) == 1 and len(target) == 1:
            found[char] = min(char, target)
        else:
            found[char] = target
    return found


def _bare(text: str) -> str:
    # The table wraps right-to-left characters in LEFT-TO-RIGHT MARKs for display.
    return text.replace("\u200e", "").replace("\u200f", "")


# ----------------------------------------------------------------------
# Room and tournament names


def check_title(text: str) -> str:
    """``text`` as a room or tournament name is stored; :class:`BadName` if refused."""
    title = _precis(_NICKNAME, text, "a name") if text.strip() else ""
    if not title:
        raise BadName("a name needs a visible character")
    _no_invisible(title, "a name")
    if len(title) > MAX_TITLE:
        raise BadName(f"a name has at most {MAX_TITLE} characters")
    run = 0
    for at, char in enumerate(title):
        run = run + 1 if _is_mark(char) else 0
        if run > MAX_MARKS:
            raise BadName(f"a name may not stack more than {MAX_MARKS} combining marks", at)
    return title


def printable(text: str, limit: int = MAX_TITLE) -> str:
    """``text`` as a title, without whatever a title may not hold, at most ``limit`` long.

    For the titles the server makes itself from other names (a challenge's
    room, a tournament's tables), whose parts may come from before these rules.
    """
    kept = unicodedata.normalize("NFKC", text)
    for _ in range(len(kept) + 1):
        kept = " ".join(kept.split())[:limit].rstrip()
        if not kept:
            break
        try:
            return check_title(kept)
        except BadName as exc:
            if exc.at is None:
                break
            kept = kept[: exc.at] + kept[exc.at + 1 :]
    return "?"
