"""docs/protocol.md's examples pass the checks the page teaches, by value: every
commitment is the SHA-256 of its secret or seed, every seed is the one its
secret and contributions make and deals the cards shown, and every value is the
one tests/protocol/doc_story.py computes from its roots."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.deal import commitment, deal, room_seed
from protocol.wire import frame_messages
from server.daily.days import parse_day
from server.daily.days import seed as daily_seed
from tests.protocol import doc_story as story

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text("utf-8")
BLOCKS = [b for _, b in re.findall(r"^( *)```json\n(.*?)\n\1```", DOC, flags=re.S | re.M)]
MESSAGES = [m for b in BLOCKS for m in frame_messages(json.loads(b))]


def of_type(kind: str) -> list[dict[str, Any]]:
    return [m for m in MESSAGES if m["type"] == kind]


def objects(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object in ``value``, nested ones too."""
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from objects(v)
    elif isinstance(value, list):
        for v in value:
            yield from objects(v)


def test_every_secret_and_seed_hashes_to_its_commitment() -> None:
    pairs = [("secret", "commitment"), ("server_secret", "server_commitment"),
             ("seed", "seed_commitment")]  # fmt: skip
    checked = 0
    for obj in objects(MESSAGES):
        for secret, published in pairs:
            if obj.get(secret) and obj.get(published):
                assert commitment(obj[secret]) == obj[published], obj
                checked += 1
    assert checked >= 2  # the daily schedule's revealed day, a tournament's first round


def test_the_match_result_block_is_the_one_the_story_makes() -> None:
    assert story.match_result_block() in DOC, story.match_result_block()


def test_the_room_and_its_series_follow_from_the_story() -> None:
    for message in of_type("room") + of_type("room_state"):
        assert message["room"]["server_commitment"] == story.ROOM_COMMITMENT
    started = {m["match_id"]: m for m in of_type("match_started")}
    assert len(started) == 2
    for m in started.values():
        k = m.get("deal", 1) - 1
        assert m["contributions"] == list(story.CONTRIBUTIONS)
        assert m["server_commitment"] == commitment(story.ROOM_SECRETS[k])
        assert m["seed_commitment"] == commitment(story.SEEDS[k])
    # The chain: deal 2 is committed to by deal 1's secret.
    assert commitment(story.ROOM_SECRETS[1]) == story.ROOM_SECRETS[0]
    (result,) = of_type("match_result")
    before = started[result["match_id"]]
    assert commitment(result["server_secret"]) == before["server_commitment"]
    assert room_seed(result["server_secret"], before["contributions"]) == result["seed"]
    dealt = deal(result["seed"])
    assert result["starter"] == str(dealt.starter)
    for board in result["boards"]:
        for p in board["placements"]:
            assert p["card"] == str(dealt.cards[p["turn"] - 1])


def test_the_room_s_cards_are_its_first_deal_s() -> None:
    """Every card the examples show in the room's first deal (dealt, placed, everyone's
    in ``progress.dealt``, a snapshot's board) is that deal's card of its turn."""
    cards = [str(c) for c in deal(story.SEEDS[0]).cards]
    shown = []
    for m in MESSAGES:
        if m.get("room_id") != story.ROOM_ID and m["type"] != "room_state":
            continue
        if m["type"] in ("card", "placed"):
            shown.append((m["turn"], m["card"]))
        if m["type"] == "progress" and m.get("dealt"):
            shown.append((m["dealt"]["turn"], m["dealt"]["card"]))
        you = m.get("you") if m["type"] == "room_state" else None
        if you and m["room"]["id"] == story.ROOM_ID and m.get("match_id") != "Pq7s1BzY2wXc":
            shown += [(p["turn"], p["card"]) for p in you.get("placements", [])]
            if you.get("card"):
                shown.append((you["turn"], you["card"]))
    assert len(shown) >= 5
    assert [(t, c) for t, c in shown if cards[t - 1] != c] == []


def test_the_tournament_chains_its_round_secrets() -> None:
    (update,) = of_type("tournament")
    t = update["tournament"]
    rounds = t["history"]
    assert t["commitment"] == story.TOURNAMENT_COMMITMENT == rounds[0]["server_commitment"]
    for earlier, later in itertools.pairwise(rounds):
        if earlier["server_secret"] is not None:
            assert later["server_commitment"] == earlier["server_secret"]
    for r in rounds:
        assert r["contribution"] == story.ROUND_CONTRIBUTIONS[r["number"]]
        if r["server_secret"] is not None:
            assert r["server_secret"] == story.TOURNAMENT_SECRETS[r["number"] - 1]


def test_the_daily_deals_follow_from_their_secrets() -> None:
    days = of_type("daily")
    assert len(days) == 2
    for view in days:
        assert view["commitment"] == story.DAILY_COMMITMENTS[view["day"]]
        for entry in view["schedule"]:
            assert entry["commitment"] == story.DAILY_COMMITMENTS[entry["day"]]
        if view["you"]["cells"]:  # one's own board of the day: that day's cards
            cards, _ = story.daily_cards(view["day"])
            assert sorted(view["you"]["cells"]) == sorted(cards)
    (over,) = [v for v in days if v["deal"] is not None]
    shown = over["deal"]
    assert shown["contribution"] == over["day"]
    assert shown["seed"] == daily_seed(shown["secret"], parse_day(over["day"]))
    dealt = deal(shown["seed"])
    assert shown["cards"] == [str(c) for c in dealt.cards]
    assert shown["starter"] == str(dealt.starter)


def test_the_shortened_values_of_the_walkthrough_are_the_examples() -> None:
    """The walkthrough writes a digest as its first 8 and last 4 digits."""
    for short in re.findall(r"\b([0-9a-f]{8})…([0-9a-f]{4})\b", DOC):
        assert any(re.search(rf"\b{short[0]}[0-9a-f]{{52}}{short[1]}\b", b) for b in BLOCKS), short
