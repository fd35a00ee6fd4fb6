"""The values docs/protocol.md's examples carry, computed from a few roots.

Every commitment, secret and seed the page shows follows from the secrets here
by the engine's own functions, so that each example passes the checks the page
teaches: a room's series of three (deal 2 committed to by deal 1's secret), its
first deal's result with Alice's board, a tournament's first two rounds, and the
daily deals of 2026-03-13 to 2026-03-15. tests/protocol/test_doc_values.py checks
the page against them by value; ``python -m tests.protocol.doc_story`` prints
them, and the match_result block, for whoever edits the page.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from engine.deal import commitment, deal, room_seed
from engine.grid import cell_name
from engine.scoring import score_board
from server.daily.days import parse_day
from server.daily.days import seed as daily_seed
from server.series import secret_chain
from server.tournaments.model import round_contribution


def _secret(label: str) -> str:
    """A fixed 64-hex secret for the examples (a server draws its own at random)."""
    return hashlib.sha256(f"cribsquares docs/protocol.md: {label}".encode()).hexdigest()


ROOM_ID = "Xk3r9TqZ"
CONTRIBUTIONS = ("a7f3e9", "91bc04")  # alice's and bob's, as create_room and join_room send
ROOM_SECRETS = secret_chain(_secret("room Xk3r9TqZ, the series' root"), 3)  # deal 1 first
ROOM_COMMITMENT = commitment(ROOM_SECRETS[0])
SEEDS = [room_seed(s, CONTRIBUTIONS) for s in ROOM_SECRETS]

TOURNAMENT_ID = "Tq9x2LmA"
TOURNAMENT_SECRETS = secret_chain(_secret("tournament Tq9x2LmA, the rounds' root"), 5)
TOURNAMENT_COMMITMENT = commitment(TOURNAMENT_SECRETS[0])
# The entrants' contributions of each round (join_tournament's), in registration order.
ROUND_ENTRANTS = {1: ["c81f0a", "5e27d1"], 2: ["c81f0a", "5e27d1", "bot-greedy-Tq9x2LmA-1"]}
ROUND_CONTRIBUTIONS = {
    n: round_contribution(TOURNAMENT_ID, n, entrants) for n, entrants in ROUND_ENTRANTS.items()
}

DAYS = ("2026-03-13", "2026-03-14", "2026-03-15")
DAILY_SECRETS = {day: _secret(f"the daily deal of {day}") for day in DAYS}
DAILY_COMMITMENTS = {day: commitment(s) for day, s in DAILY_SECRETS.items()}
DAILY_SEEDS = {day: daily_seed(s, parse_day(day)) for day, s in DAILY_SECRETS.items()}


def daily_cards(day: str) -> tuple[list[str], str]:
    dealt = deal(DAILY_SEEDS[day])
    return [str(c) for c in dealt.cards], str(dealt.starter)


def first_deal() -> tuple[list[str], str, dict[str, Any]]:
    """Deal 1's 16 cards, its starter and Alice's board placed row by row, scored."""
    dealt = deal(SEEDS[0])
    cards = [str(c) for c in dealt.cards]
    return cards, str(dealt.starter), score_board(list(dealt.cards), dealt.starter).to_dict()


def _line(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def match_result_block() -> str:
    """The page's match_result example, deal 1 with Alice's board only, as the page
    lays it out (one line a placement and a hand)."""
    cards, starter, score = first_deal()
    placements = [
        _line({"turn": i + 1, "cell": cell_name(i), "card": card, "auto": False,
               "elapsed_ms": 900})
        for i, card in enumerate(cards)
    ]  # fmt: skip
    alice = {"id": "p-3f9a1c2e7b10", "name": "alice", "bot": False, "guest": False}
    head = {k: score[k] for k in ("starter", "heels", "total", "win")}
    lines = [
        "{",
        '  "type": "match_result",',
        f'  "room_id": "{ROOM_ID}",',
        '  "match_id": "VdC0cX5n0dJv",',
        f'  "starter": "{starter}",',
        f'  "seed": "{SEEDS[0]}",',
        f'  "server_secret": "{ROOM_SECRETS[0]}",',
        f'  "seed_commitment": "{commitment(SEEDS[0])}",',
        '  "boards": [',
        "    {",
        f'      "player": {_line(alice)}, "seat": 0, "rank": 1,',
        f'      "cells": {_line(cards)},',
        '      "placements": [',
        ",\n".join("          " + p for p in placements),
        "      ],",
        '      "score": {',
        f"        {_line(head)[1:-1]},",
        '        "rows": [',
        ",\n".join("        " + _line(h) for h in score["rows"]),
        "        ],",
        '        "columns": [',
        ",\n".join("        " + _line(h) for h in score["columns"]),
        "        ]",
        "      },",
        '      "time_used_ms": 14400',
        "    }",
        "  ]",
        "}",
    ]
    return "\n".join(lines)


def values() -> dict[str, Any]:
    """Every value the page's examples carry, by what it is."""
    return {
        "room server_commitment": ROOM_COMMITMENT,
        "room secrets (deal 1 first)": ROOM_SECRETS,
        "seeds": SEEDS,
        "seed commitments": [commitment(s) for s in SEEDS],
        "deal server_commitments": [commitment(s) for s in ROOM_SECRETS],
        "tournament commitment": TOURNAMENT_COMMITMENT,
        "tournament round secrets": TOURNAMENT_SECRETS[:2],
        "tournament round commitments": [commitment(s) for s in TOURNAMENT_SECRETS[:2]],
        "tournament round contributions": ROUND_CONTRIBUTIONS,
        "daily secrets": DAILY_SECRETS,
        "daily commitments": DAILY_COMMITMENTS,
        "daily seeds": DAILY_SEEDS,
        "daily cards": {day: daily_cards(day) for day in DAYS},
    }


if __name__ == "__main__":
    print(json.dumps(values(), indent=2))
    print(match_result_block())
