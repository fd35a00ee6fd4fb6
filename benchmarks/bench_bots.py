"""How strong and how costly each bot level is, their ratings, and what a line-value table is worth.

Run from the repository root, at low priority (CPU-heavy)::

    nice -n 19 python -m benchmarks.bench_bots           # every level on 1,000 deals, rated
    nice -n 19 python -m benchmarks.bench_bots --deals 200 --levels level-1 level-5
    nice -n 19 python -m benchmarks.bench_bots --levels --tables OLD.json NEW.json
    nice -n 19 python -m benchmarks.bench_bots --levels --strategies expert --depth 8
    nice -n 19 python -m benchmarks.bench_bots --levels --hindsight

Deal ``i`` is ``engine.deal.deal(f"bench-{i}")``, the same for every bot.

**Levels** (``--levels``, default all): each level plays every deal through
the server's own code path (``server.bots.think``, one call per card, as the
server's bot workers do), a bot of its own on each deal (seed
``bench-{i}/{level}``). For each: mean score, standard deviation, share of
boards reaching 61, and the CPU the server spends per card for it (the
worker process's CPU time, so on one core). Then the levels' Glicko-2 ratings
from playing each other on the same deals (benchmarks.ladder), with
``--write-ratings`` saved to ``engine/bots/level_ratings.json``, which the
server sends in its ``bots`` message.

**Strategies** (``--strategies``, default none): the engine's base strategies
as before the ladder, deterministic (``--simulations``, ``--candidates`` and
``--depth`` change the expert's search, for experiments).

**Tables** (``--tables FILE FILE ...``): greedy, which is also the server's
rule for a player whose clock ran out, plays every deal with each table (the
same run, the same deals), with the paired difference of each against the
first; ``--table-strategies`` adds others (e.g. ``expert``, at
``--simulations``).

**Hindsight** (``--hindsight``): the mean best board knowing all 17 cards.
Deals are spread over ``--workers`` processes (2 by default), each of which
loads the shipped table before it is timed, as a server's bot worker does
once at its first move.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from multiprocessing import Pool
from pathlib import Path

from benchmarks.ladder import rate, win_share
from engine.analysis import hindsight_best
from engine.bots import (
    LEVELS,
    STRATEGIES,
    BotView,
    Budget,
    expert_values,
    get_level,
    line_values,
    make_bot,
)
from engine.bots.strategies import (
    EXPERT_CANDIDATES,
    ROLLOUT_DEPTH,
    ExpertStrategy,
    GreedyStrategy,
    RandomStrategy,
    Strategy,
    vectorized_available,
)
from engine.bots.training import expand
from engine.deal import deal
from engine.grid import Grid
from engine.scoring import WIN_SCORE
from engine.totals import board_total

RATINGS_OUT = Path(__file__).resolve().parent.parent / "engine" / "bots" / "level_ratings.json"

_TABLES: dict[str, object] = {}  # per worker: table file -> expanded table


def warm() -> None:
    """Worker initializer: load the shipped tables once, outside the timings (about 1 s)."""
    line_values()
    expert_values()


def play_level(job: tuple[str, int]) -> tuple[int, float, tuple[int, ...]]:
    """(score, CPU seconds, cells) of a bot of level ``name`` on deal ``bench-i``, as the
    server plays it."""
    from server.bots import think
    from server.room import BotTurn

    name, i = job
    d = deal(f"bench-{i}")
    seed = f"bench-{i}/{name}"
    placements: list[tuple[int, str]] = []
    grid = Grid()
    start = time.process_time()
    for turn, card in enumerate(d.cards, 1):
        asked = BotTurn("bench", f"bot-{name}-1", name, seed, turn, tuple(placements), str(card))
        cell = think(asked)
        placements.append((cell, str(card)))
        grid.place(cell, card)
    spent = time.process_time() - start
    return board_total(grid.cards(), d.starter), spent, tuple(c for c, _ in placements)


def play_level_pure(job: tuple[str, int]) -> tuple[int, float, tuple[int, ...]]:
    """The same bot on the same deal in pure Python (no numpy): the same cells, its CPU."""
    name, i = job
    d = deal(f"bench-{i}")
    bot = make_bot(name, f"bench-{i}/{name}", vectorized=False)
    grid = Grid()
    cells = []
    start = time.process_time()
    for card in d.cards:
        cell = bot.choose(BotView.from_grid(grid, card))
        grid.place(cell, card)
        cells.append(cell)
    spent = time.process_time() - start
    return board_total(grid.cards(), d.starter), spent, tuple(cells)


def play_strategy(job: tuple[str, int, int, int, int, str | None]) -> tuple[int, float]:
    """(score, CPU seconds) of a base strategy on deal ``bench-i`` (``table``: another table)."""
    name, i, simulations, candidates, depth, table = job
    values = None
    if table is not None:
        if table not in _TABLES:
            _TABLES[table] = expand(json.loads(Path(table).read_text("utf-8")))
        values = _TABLES[table]  # type: ignore[assignment]
    d = deal(f"bench-{i}")
    seed = f"bench/{name}"
    bot: Strategy
    if name == "expert":
        bot = ExpertStrategy(seed, candidates=candidates, depth=depth, values=values)  # type: ignore[arg-type]
    elif name == "greedy":
        bot = GreedyStrategy(seed, values=values)  # type: ignore[arg-type]
    else:
        bot = RandomStrategy(seed)
    budget = Budget(simulations=simulations)
    grid = Grid()
    start = time.process_time()
    for card in d.cards:
        grid.place(bot.choose(BotView.from_grid(grid, card), budget), card)
    spent = time.process_time() - start
    return board_total(grid.cards(), d.starter), spent


def hindsight_one(job: tuple[int, int]) -> tuple[int, bool, float]:
    i, budget = job
    d = deal(f"bench-{i}")
    start = time.process_time()
    best = hindsight_best(d.cards, d.starter, budget=budget)
    return best.score, best.optimal, time.process_time() - start


Results = list[tuple[int, float]] | list[tuple[int, float, tuple[int, ...]]]
"""Per deal: the score and the CPU seconds it took (and the cells, for the levels)."""


def ms_per_card(results: Results) -> float:
    return 1000 * sum(r[1] for r in results) / (16 * len(results))


def row(
    label: str,
    results: Results,
    wall: float,
    extra: str = "",
) -> str:
    scores = [r[0] for r in results]
    return (
        f"{label:28} {statistics.mean(scores):6.2f} {statistics.pstdev(scores):6.2f} "
        f"{sum(s >= WIN_SCORE for s in scores) / len(scores):6.1%} "
        f"{ms_per_card(results):9.2f}{extra}   (wall {wall:.0f} s)"
    )


HEADER = f"{'':28} {'mean':>6} {'sd':>6} {'>=61':>6} {'ms/card':>9}"


def paired(a: list[int], b: list[int]) -> str:
    """Mean of b - a and its standard error."""
    diff = [y - x for x, y in zip(a, b, strict=True)]
    se = statistics.stdev(diff) / math.sqrt(len(diff)) if len(diff) > 1 else 0.0
    return f"{statistics.mean(diff):+.2f} ± {se:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description="Bot levels: strength, CPU, ratings; tables.")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument(
        "--levels", nargs="*", default=[lv.name for lv in LEVELS], help="levels (default all)"
    )
    parser.add_argument("--strategies", nargs="*", default=[], choices=sorted(STRATEGIES))
    parser.add_argument("--simulations", type=int, default=Budget().simulations)
    parser.add_argument("--candidates", type=int, default=EXPERT_CANDIDATES)
    parser.add_argument("--depth", type=int, default=ROLLOUT_DEPTH, help="rollout length in cards")
    parser.add_argument(
        "--tables", nargs="*", default=[], metavar="FILE", help="line-value tables to compare"
    )
    parser.add_argument(
        "--table-strategies", nargs="*", default=["greedy"], choices=["greedy", "expert"]
    )
    parser.add_argument("--write-ratings", action="store_true", help=f"write {RATINGS_OUT.name}")
    parser.add_argument("--hindsight", action="store_true")
    parser.add_argument("--hindsight-budget", type=int, default=60_000)
    parser.add_argument(
        "--pure-deals",
        type=int,
        default=50,
        metavar="N",
        help="also play each level's first N deals in pure Python (no numpy), for its CPU",
    )
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    for name in args.levels:
        get_level(name)  # an unknown level stops here
    n = args.deals
    print(f"{n} deals (bench-0..bench-{n - 1}), {args.workers} workers; CPU per card on one core")

    with Pool(args.workers, initializer=warm) as pool:
        scores: dict[str, list[int]] = {}
        if args.levels:
            print("\nlevels, as the server's bot workers play them (server.bots.think)")
            pure = min(args.pure_deals, n)
            numpy = "with numpy" if vectorized_available() else "numpy absent"
            print(f"{HEADER}  ({numpy}; then pure Python on the first {pure} deals)")
            for name in args.levels:
                wall = time.perf_counter()
                results = pool.map(play_level, [(name, i) for i in range(n)], chunksize=4)
                scores[name] = [r[0] for r in results]
                extra = ""
                if pure:
                    again = pool.map(play_level_pure, [(name, i) for i in range(pure)])
                    same = sum(a[2] == b[2] for a, b in zip(again, results, strict=False))
                    extra = f" {ms_per_card(again):9.2f} pure, {same}/{pure} boards the same"
                level = get_level(name)
                label = f"{level.name} {level.title}"
                print(row(label, results, time.perf_counter() - wall, extra), flush=True)

        if len(scores) > 1:
            print("\nratings: Glicko-2 (server/ratings.py), each pair of levels one match a deal")
            print(f"{'':28} {'rating':>7} {'dev':>5} {'games':>6} {'points':>7}  vs next")
            standings = rate(scores)
            by_level = sorted(standings, key=lambda st: get_level(st.name).number)
            for st, nxt in zip(by_level, [*by_level[1:], None], strict=True):
                versus = ""
                if nxt is not None:
                    share = win_share(scores[st.name], scores[nxt.name])
                    versus = f"  {share:.1%} vs {nxt.name}"
                print(
                    f"{st.name:28} {st.rating.rating:7.0f} {st.rating.deviation:5.0f} "
                    f"{st.games:6d} {st.score / st.games:7.1%}{versus}"
                )
            if args.write_ratings:
                data = {
                    "format": "cribsquares level ratings v1",
                    "deals": n,
                    "ratings": {
                        st.name: {
                            "rating": round(st.rating.rating, 1),
                            "deviation": round(st.rating.deviation, 1),
                        }
                        for st in by_level
                    },
                }
                RATINGS_OUT.write_text(json.dumps(data, indent=1) + "\n")
                print(f"wrote {RATINGS_OUT}")

        if args.strategies:
            print(
                f"\nbase strategies (expert: {args.simulations} simulations per card, "
                f"{args.candidates} candidates, rollouts of {args.depth} cards)"
            )
            print(HEADER)
        for name in args.strategies:
            wall = time.perf_counter()
            jobs = [
                (name, i, args.simulations, args.candidates, args.depth, None) for i in range(n)
            ]
            results = pool.map(play_strategy, jobs, chunksize=4)
            print(row(name, results, time.perf_counter() - wall), flush=True)

        if args.tables:
            print(f"\nline-value tables, against the first ({args.tables[0]})")
            print(HEADER)
            for name in args.table_strategies:
                runs = []
                for table in args.tables:
                    wall = time.perf_counter()
                    jobs = [
                        (name, i, args.simulations, args.candidates, args.depth, table)
                        for i in range(n)
                    ]
                    results = pool.map(play_strategy, jobs, chunksize=4)
                    runs.append([r[0] for r in results])
                    versus = f"  {paired(runs[0], runs[-1])}" if len(runs) > 1 else ""
                    label = f"{name}, {Path(table).name}"
                    print(row(label, results, time.perf_counter() - wall, versus))

        if args.hindsight:
            jobs2 = [(i, args.hindsight_budget) for i in range(n)]
            found = pool.map(hindsight_one, jobs2, chunksize=4)
            best = [s for s, _, _ in found]
            proved = sum(p for _, p, _ in found)
            cpu = sum(t for _, _, t in found)
            print(
                f"\n{'hindsight':28} {statistics.mean(best):6.2f} {statistics.pstdev(best):6.2f} "
                f"{sum(s >= WIN_SCORE for s in best) / len(best):6.1%} "
                f"   {cpu / len(best):.2f} s per deal, {proved} proved optimal",
                flush=True,
            )


if __name__ == "__main__":
    main()
