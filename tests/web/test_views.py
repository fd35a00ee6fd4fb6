"""The web client's pieces that decide words and numbers, run in the browser on
data of our own: each line's points so far are the engine's (score_hand, with
and without the starter), the outcome in words with its margin, the rating
lines (one's own first), the small words ("1 game", "Swiss"), and a knockout
bracket that shows a winner the draw has not yet moved on."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from engine.cards import Card
from engine.scoring import score_hand
from tests.server.live import running_server
from tests.web.conftest import open_page

RANKS, SUITS = "A23456789TJQK", "CDHS"


async def client_module(page: Any, name: str) -> str:
    """The URL of one of the client's modules, as the page loads it."""
    src = await page.get_attribute("script[type=module]", "src")
    assert src is not None
    return src.replace("js/app.js", f"js/{name}")


def some_hands(n: int) -> list[tuple[list[str], str]]:
    rng = random.Random(2028)
    deck = [r + s for r in RANKS for s in SUITS]
    hands = []
    for _ in range(n):
        cards = rng.sample(deck, 5)
        hands.append((cards[:4], cards[4]))
    return hands


async def test_the_points_so_far_are_the_engines(browser, tmp_path: Path, page_errors) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        page = await open_page(browser, live.http + "/", page_errors)
        url = await client_module(page, "scoring.js")
        hands = some_hands(400)
        # with flushes and runs made on purpose, the rarer combinations
        hands += [(["5H", "6H", "7H", "8H"], "9H"), (["5H", "6H", "7H", "8H"], "9C"),
                  (["5H", "5D", "6C", "7S"], "JH"), (["JD", "5S", "5C", "5H"], "5D")]  # fmt: skip
        got = await page.evaluate(
            "async ([url, hands]) => { const m = await import(url);"
            " return hands.map(([h, s]) => [m.linePoints(h, s), m.linePoints(h),"
            " m.linePoints(h.slice(0, 3)), m.linePoints(h.slice(0, 2))]); }",
            [url, hands],
        )
        for (hand, starter), (full, without, three, two) in zip(hands, got, strict=True):
            cards = [Card.parse(c) for c in hand]
            assert full == score_hand(cards, Card.parse(starter)).total, (hand, starter)
            # without the starter: what the four score among themselves, nobs aside
            expected = brute(hand)
            assert (without, three, two) == (expected, brute(hand[:3]), brute(hand[:2])), hand
    assert page_errors.errors == []


def brute(cards: list[str]) -> int:
    """The points of 0 to 4 cards without a starter, counted the long way."""
    from itertools import combinations

    value = [min(RANKS.index(c[0]) + 1, 10) for c in cards]
    rank = [RANKS.index(c[0]) + 1 for c in cards]
    n = len(cards)
    points = 0
    for k in range(2, n + 1):
        for combo in combinations(range(n), k):
            if sum(value[i] for i in combo) == 15:
                points += 2
    points += 2 * sum(1 for i, j in combinations(range(n), 2) if rank[i] == rank[j])
    for k in range(n, 2, -1):  # the longest runs only
        runs = [c for c in combinations(range(n), k) if sorted(rank[i] for i in c) == list(
            range(min(rank[i] for i in c), min(rank[i] for i in c) + k))]  # fmt: skip
        if runs:
            points += k * len(runs)
            break
    if n == 4 and len({c[1] for c in cards}) == 1:
        points += 4
    return points


def board(name: str, rank: int, total: int, used: int = 10_000) -> dict[str, Any]:
    player = {"id": f"p-{name}", "name": name, "bot": False, "guest": False}
    return {"player": player, "rank": rank, "score": {"total": total, "win": False},
            "time_used_ms": used}  # fmt: skip


def duel(ada: int, bo: int, ada_rank: int, bo_rank: int, ada_used: int = 10_000) -> dict[str, Any]:
    boards = [board("ada", ada_rank, ada, ada_used), board("bo", bo_rank, bo)]
    return {"boards": sorted(boards, key=lambda b: b["rank"])}


def standing(name: str, won: int) -> dict[str, Any]:
    return {"player": {"id": f"p-{name}", "name": name}, "deals_won": won, "forfeited": False}


def change(name: str, before: int, after: int) -> dict[str, Any]:
    player = {"id": f"p-{name}", "name": name}
    return {"player": player, "before": before, "after": after, "provisional": True}


WORDS = """async ([url, ui, cases, series, ratings, me]) => {
  const m = await import(url);
  const u = await import(ui);
  return {
    deals: cases.map(([r, who, pace]) => m.dealOutcome(r, who, pace).headline),
    series: [m.seriesOutcome(series, me), m.seriesOutcome(series, null)],
    ratings: m.ratingLines(ratings, me).map((l) => l.text),
    words: [u.count(1, "game"), u.count(3, "game"),
      u.formatName({ format: "swiss", format_title: "Swiss" }),
      u.formatName({ format: "knockout", format_title: "knockout" })],
  };
}"""


async def test_outcomes_and_ratings_in_words(browser, tmp_path: Path, page_errors) -> None:
    me = {"id": "p-ada", "name": "ada"}
    three = {"boards": [board("cy", 1, 50), board("ada", 2, 40), board("bo", 3, 30)]}
    cases = [
        (duel(45, 25, 1, 2), me, "lockstep", "You won by 20 points"),
        (duel(25, 45, 2, 1), me, "lockstep", "You lost by 20 points"),
        (duel(30, 30, 1, 1), me, "lockstep", "Draw"),
        (duel(30, 30, 1, 2, ada_used=5_000), me, "race", "You won on time"),
        (duel(45, 25, 1, 2), None, "lockstep", "ada won by 20 points"),
        (duel(44, 43, 1, 2), me, "lockstep", "You won by 1 point"),
        ({"boards": [board("ada", 1, 38)]}, me, "lockstep", "You scored 38 points"),
        (three, me, "lockstep", "You placed 2nd of 3"),
    ]
    series = {"best_of": 3, "deal": 3, "finished": True, "aborted": False,
              "winner": {"id": "p-bo", "name": "bo"},
              "standings": [standing("bo", 2), standing("ada", 1)]}  # fmt: skip
    ratings = {"changes": [change("bo", 1500, 1512), change("ada", 1500, 1488)]}
    async with running_server(tmp_path / "db.sqlite") as live:
        page = await open_page(browser, live.http + "/", page_errors)
        url = await client_module(page, "views/outcome.js")
        ui = await client_module(page, "views/ui.js")
        got = await page.evaluate(WORDS, [url, ui, [c[:3] for c in cases], series, ratings, me])
    assert got["deals"] == [c[3] for c in cases]
    assert got["series"] == ["bo won the series 2–1.", "bo won the series 2–1."]
    assert got["ratings"] == [
        "Your rating 1500 → 1488 (−12), provisional",  # one's own first
        "bo's rating 1500 → 1512 (+12), provisional",
    ]
    assert got["words"] == ["1 game", "3 games", "Swiss", "Knockout"]
    assert page_errors.errors == []


BRACKET = """async ([url, info]) => {
  const m = await import(url);
  const names = new Map(info.entrants.map((e) => [e.player.id, e.player]));
  const el = m.bracket(info, names);
  document.body.append(el);
  return [...el.querySelectorAll(".round")].map((r) => [r.querySelector("h3").textContent,
    [...r.querySelectorAll(".slot")].map((s) => s.textContent)]);
}"""


async def test_a_bracket_shows_a_semi_finals_winner_the_draw_has_not_moved_on(
    browser, tmp_path: Path, page_errors
) -> None:
    """Round 1 of four is being played: one table is over, its winner is known, and
    the final's slot shows that winner, not a dash; the other slot waits."""
    who = ["p-a", "p-b", "p-c", "p-d"]
    entrants = [{"player": {"id": p, "name": p[2:]}, "seed": i + 1} for i, p in enumerate(who)]
    tables = [
        {"number": 1, "players": ["p-a", "p-b"], "winner": "p-b", "status": "finished"},
        {"number": 2, "players": ["p-c", "p-d"], "winner": None, "status": "playing"},
    ]
    info = {"bracket": [who], "entrants": entrants, "tables": tables}
    async with running_server(tmp_path / "db.sqlite") as live:
        page = await open_page(browser, live.http + "/", page_errors)
        url = await client_module(page, "views/tournaments.js")
        final = await page.evaluate(BRACKET, [url, info])
    assert final == [
        ["Semi-finals", ["1. a", "2. b✔", "3. c", "4. d"]],
        ["Final", ["2. b", "—"]],
    ]
    assert page_errors.errors == []
