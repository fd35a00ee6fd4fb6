"""A deal's published values altered in transit, as a man in the middle would.

Each alteration changes one value of one deal on its way to a client: the seed or
the server's secret its ``match_result`` (or a ``room_state`` holding it) reveals,
the commitment to the seed or to the server's secret shown before the result
(``match_started``, or a ``room_state`` of the deal), or a contribution listed
there. A client must then say "not verified", and name a failing check that speaks
of what was altered (``WORD``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from tests.matrix.record import result_in

Message = dict[str, Any]


def flipped(text: str) -> str:
    """``text`` with its last character changed (hex stays hex)."""
    last = text[-1:] or "0"
    return text[:-1] + ("0" if last != "0" else "1")


def _result(field: str) -> Callable[[Message, str], bool]:
    def alter(m: Message, match_id: str) -> bool:
        shown = result_in(m)
        if shown is not None and shown["match_id"] == match_id:
            shown[field] = flipped(shown[field])
            return True
        return False

    return alter


def _before(m: Message, match_id: str) -> Message | None:
    """Where ``m`` shows deal ``match_id`` before its result: its ``match_started``, or
    a ``room_state`` of it (how a late comer, or a tournament table's watcher, is told)."""
    if m["type"] in ("match_started", "room_state") and m.get("match_id") == match_id:
        return m
    return None


def _seed_commitment(m: Message, match_id: str) -> bool:
    shown = _before(m, match_id)
    if shown is not None and shown.get("seed_commitment"):
        shown["seed_commitment"] = flipped(shown["seed_commitment"])
        return True
    return False


def _server_commitment(m: Message, match_id: str) -> bool:
    shown = _before(m, match_id)
    if shown is None:
        return False
    holder = shown if shown["type"] == "match_started" else shown["room"]
    if holder.get("server_commitment"):
        holder["server_commitment"] = flipped(holder["server_commitment"])
        return True
    return False


def _contribution(m: Message, match_id: str) -> bool:
    shown = _before(m, match_id)
    if shown is not None and shown.get("contributions"):
        shown["contributions"] = [flipped(shown["contributions"][0]), *shown["contributions"][1:]]
        return True
    return False


ALTERATIONS: dict[str, Callable[[Message, str], bool]] = {
    "seed": _result("seed"),
    "server secret": _result("server_secret"),
    "seed commitment": _seed_commitment,
    "server commitment": _server_commitment,
    "contribution": _contribution,
}

# A failing check's label must speak of what was altered.
WORD = {
    "seed": "seed",
    "server secret": "secret",
    "seed commitment": "seed",
    "server commitment": "commitment",
    "contribution": "contribution",
}


def altered(log: list[Message], how: str, match_id: str) -> tuple[list[Message], int]:
    """A copy of ``log`` with ``how`` applied to deal ``match_id``; how many messages it
    changed."""
    alter = ALTERATIONS[how]
    out, changed = [], 0
    for m in log:
        m = copy.deepcopy(m)
        if m["type"] != "sent" and alter(m, match_id):
            changed += 1
        out.append(m)
    return out, changed


def altered_record(record: Message, how: str) -> Message | None:
    """The stored record of a deal (``GET /api/matches/{id}``) altered on its way; None
    where the record has no such value."""
    record = copy.deepcopy(record)
    if how == "seed" and record.get("seed"):
        record["seed"] = flipped(record["seed"])
    elif how == "server secret" and record.get("server_secret"):
        record["server_secret"] = flipped(record["server_secret"])
    elif how == "seed commitment" and record.get("seed_commitment"):
        record["seed_commitment"] = flipped(record["seed_commitment"])
    elif how == "server commitment" and record.get("server_commitment"):
        record["server_commitment"] = flipped(record["server_commitment"])
    elif how == "contribution" and record.get("contributions"):
        first, *rest = record["contributions"]
        record["contributions"] = [flipped(first), *rest]
    else:
        return None
    return record
