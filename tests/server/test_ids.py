"""Fresh ids never begin with ``-``, which a command line would read as an option."""

from __future__ import annotations

import secrets

import pytest

from server.ids import IdSource, safe_token


def test_a_token_drawn_with_a_leading_dash_is_given_another_first_character(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: "-zhCnJuv")
    token = safe_token(6)
    assert not token.startswith("-") and token[1:] == "zhCnJuv"


def test_no_fresh_id_begins_with_a_dash() -> None:
    ids = IdSource()
    # Roughly 1 in 64 raw tokens begins with '-': 2000 draws of each kind miss it
    # with a probability far below 1e-13.
    for _ in range(2000):
        for made in (ids.room_id(), ids.match_id(), ids.invite_code()):
            assert made[0] != "-" and made.isascii()
