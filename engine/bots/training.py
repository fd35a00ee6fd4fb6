"""Learning the line-value table by self-play (pure: returns data, writes nothing).

The expected final score of a partial line depends on what the player will do
with the cards still to come, so it is measured, not derived: play many games
with a policy, and for every line after every placement record its key
(engine.bots.fast) against the score the line finally made. Averages become
the next table; the greedy policy on that table plays the next round of games
(a few rounds of this Monte Carlo policy iteration are enough). A share of
moves are random so that rarer lines are still seen.

Sparse entries are shrunk toward the same key's average over all stages, and
that toward the average line with as many cards. Complete lines (4 cards) are
not learned: their value is the exact expectation over the starter, drawn from
the other 48 cards.

``benchmarks/train_line_values.py`` runs this and writes ``line_values.json``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from engine.bots.fast import (
    CELLS,
    LINE_CELLS,
    FastBoard,
    LineValues,
    cells_of,
    greedy_cell,
    line_score,
)
from engine.bots.prng import SplitMix64
from engine.totals import RANK_TABLE, rank_multisets

PRIOR_WEIGHT: Final = 30.0
STAGES: Final = CELLS + 1
JACK: Final = 11

Stats = list[dict[int, list[float]]]
"""``stats[remaining][key] = [sum of final scores, count]``."""


def rank_weight(ranks: Iterable[int]) -> int:
    return sum(5 ** (r - 1) for r in ranks)


def complete_line_value(ranks: tuple[int, ...], flush: bool) -> float:
    """Expected score of a full line over a starter uniform among the other 48 cards.

    Suits beyond "all one suit or not" are averaged: a non-flush line's jack
    matches the starter's suit in about 12 of 48 cases (11 if another hand card
    shares the jack's suit; the difference is far below what the bots notice).
    """
    base = rank_weight(ranks)
    expected = 0.0
    for r in range(1, 14):
        left = 4 - ranks.count(r)
        if left:
            expected += left * RANK_TABLE[base + 5 ** (r - 1)]
    expected /= 48.0
    jacks = ranks.count(JACK)
    if flush:
        expected += 4.0 + 9.0 / 48.0 + jacks * 9.0 / 48.0
    else:
        expected += jacks * 11.5 / 48.0
    return expected


def all_keys(size: int) -> list[tuple[int, int]]:
    """Every (key, card count) a line of ``size`` cards can have."""
    out: list[tuple[int, int]] = []
    for ranks in rank_multisets(size) if size else [()]:
        w = rank_weight(ranks)
        out.append((2 * w, size))
        if size and len(set(ranks)) == size:
            out.append((2 * w + 1, size))
    return out


def new_stats() -> Stats:
    return [{} for _ in range(STAGES)]


def play_and_record(
    stats: Stats,
    rng: SplitMix64,
    values: LineValues | None,
    epsilon: float,
) -> int:
    """Play one random deal with ε-greedy on ``values`` (random if None); record; return score."""
    deck = list(range(52))
    rng.shuffle_prefix(deck, 17)
    board = FastBoard()
    history: list[list[int]] = []
    threshold = int(epsilon * (1 << 64))
    for t in range(16):
        card = deck[t]
        if values is None or rng.next64() < threshold:
            legal = cells_of(board.legal())
            cell = legal[rng.below(len(legal))]
        else:
            cell = greedy_cell(board, card, values)
        board.place(cell, card)
        history.append(board.keys())
    starter = deck[16]
    finals = [line_score([board.cells[i] for i in cells], starter) for cells in LINE_CELLS]
    for t, keys in enumerate(history):
        stage = stats[CELLS - 1 - t]
        for key, final in zip(keys, finals, strict=True):
            entry = stage.get(key)
            if entry is None:
                stage[key] = [float(final), 1.0]
            else:
                entry[0] += final
                entry[1] += 1.0
    return sum(finals)


def merge_stats(into: Stats, other: Stats) -> None:
    for mine, theirs in zip(into, other, strict=True):
        for key, (s, n) in theirs.items():
            entry = mine.get(key)
            if entry is None:
                mine[key] = [s, n]
            else:
                entry[0] += s
                entry[1] += n


def collect(games: int, seed: int | str, values: LineValues | None, epsilon: float = 0.1) -> Stats:
    rng = SplitMix64(seed)
    stats = new_stats()
    for _ in range(games):
        play_and_record(stats, rng, values, epsilon)
    return stats


def compact(stats: Stats, min_count: int = 1) -> dict[str, object]:
    """The learned part of a table in JSON form: shrunk means for partial lines."""
    pooled_sum: dict[int, list[float]] = {}
    for stage in stats:
        for key, (s, n) in stage.items():
            entry = pooled_sum.setdefault(key, [0.0, 0.0])
            entry[0] += s
            entry[1] += n
    size_of = {key: size for size in range(4) for key, size in all_keys(size)}
    by_size: dict[int, list[float]] = {}
    for key, (s, n) in pooled_sum.items():
        if key in size_of:
            entry = by_size.setdefault(size_of[key], [0.0, 0.0])
            entry[0] += s
            entry[1] += n
    size_mean = {size: s / n for size, (s, n) in by_size.items()}
    pooled = {
        key: (s + PRIOR_WEIGHT * size_mean[size_of[key]]) / (n + PRIOR_WEIGHT)
        for key, (s, n) in pooled_sum.items()
        if key in size_of
    }
    stages: list[dict[str, float]] = []
    for stage in stats:
        out: dict[str, float] = {}
        for key, (s, n) in stage.items():
            if key in pooled and n >= min_count:
                out[str(key)] = round((s + PRIOR_WEIGHT * pooled[key]) / (n + PRIOR_WEIGHT), 3)
        stages.append(out)
    return {
        "format": "cribsquares line values v1",
        "size_mean": {str(k): round(v, 3) for k, v in sorted(size_mean.items())},
        "pooled": {str(k): round(v, 3) for k, v in sorted(pooled.items())},
        "stages": stages,
    }


def expand(data: dict[str, object]) -> LineValues:
    """A full lookup table (every key at every stage) from :func:`compact`'s form."""
    size_mean = {int(k): float(v) for k, v in _mapping(data["size_mean"]).items()}
    pooled = {int(k): float(v) for k, v in _mapping(data["pooled"]).items()}
    stages_raw = data["stages"]
    assert isinstance(stages_raw, list)
    complete = {key: 0.0 for key, _ in all_keys(4)}
    for ranks in rank_multisets(4):
        w = rank_weight(ranks)
        complete[2 * w] = complete_line_value(ranks, False)
        if len(set(ranks)) == 4:
            complete[2 * w + 1] = complete_line_value(ranks, True)
    partial: dict[int, float] = {}
    for size in range(4):
        for key, _ in all_keys(size):
            partial[key] = pooled.get(key, size_mean.get(size, 0.0))
    values: LineValues = []
    for stage_raw in stages_raw:
        table = dict(partial)
        table.update({int(k): float(v) for k, v in _mapping(stage_raw).items()})
        table.update(complete)
        values.append(table)
    return values


def _mapping(raw: object) -> dict[str, float]:
    assert isinstance(raw, dict)
    return raw
