"""Text from elsewhere, made safe to show: control characters and escape sequences
never reach the terminal raw.

Names, room and tournament names, reasons, anything another player or the
server chose may hold characters a terminal obeys instead of showing: ESC starts
an escape sequence (``\\x1b]0;pwned\\x07`` retitles the window, ``\\x1b[2J``
clears it), BEL rings, bidirectional overrides (U+202E) turn text around. The
client shows each such character escaped, visibly (``\\x1b``, ``\\u202e``),
whatever the server lets through:

* :func:`visible` is the escaping;
* :func:`clean` applies it to every string of a server message where it
  arrives (the session), except the values the deal checks need verbatim
  (:data:`VERBATIM`), which every front end escapes where it shows them;
* ``--plain`` and the one-shot commands pass every line they print through
  :func:`visible`; the full-screen client puts text from the network in Rich
  ``Text`` objects and its notices are sent without markup, so ``[bold]`` in a
  name shows as typed.
"""

from __future__ import annotations

import unicodedata
from typing import Any

# Categories escaped: controls (C0, DEL, C1), format characters (bidirectional
# overrides, zero-width joiners, the byte-order mark), lone surrogates, and the
# line and paragraph separators.
ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}

# Values the client checks against their commitments, so they stay as sent.
VERBATIM = frozenset(
    {
        "contribution",
        "contributions",
        "seed",
        "server_secret",
        "seed_commitment",
        "server_commitment",
        "commitment",
        "token",
    }
)


def _escape(ch: str) -> str:
    if ch in SHORT:
        return SHORT[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control or format character shown as an escape."""
    if text.isprintable():  # the common case: nothing to do
        return text
    return "".join(
        _escape(ch) if unicodedata.category(ch) in ESCAPED_CATEGORIES else ch for ch in text
    )


def visible_lines(text: str) -> str:
    """:func:`visible` on each line of ``text``, its line breaks kept."""
    return "\n".join(visible(line) for line in text.split("\n"))


def clean(data: Any) -> Any:
    """A decoded JSON value with :func:`visible` applied to every string in it,
    keys and values, except the values under a :data:`VERBATIM` key."""
    if isinstance(data, str):
        return visible(data)
    if isinstance(data, list):
        return [clean(item) for item in data]
    if isinstance(data, dict):
        return {
            visible(str(key)): value if key in VERBATIM else clean(value)
            for key, value in data.items()
        }
    return data
