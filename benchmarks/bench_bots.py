"""How strong and how fast each bot is, and the hindsight ceiling, on fixed deals.

Run from the repository root::

    python -m benchmarks.bench_bots                      # 1,000 deals, every strategy
    python -m benchmarks.bench_bots --deals 100          # a shorter run
    python -m benchmarks.bench_bots --strategies expert --no-hindsight
    python -m benchmarks.bench_bots --strategies expert --simulations 1000 --depth 8

Deal ``i`` is ``engine.deal.deal(f"bench-{i}")``, the same for every strategy.
For each strategy: mean score, standard deviation, share of boards reaching 61
and milliseconds per card (``--candidates`` and ``--depth`` change the
expert's search, for experiments; the defaults are what it plays). Then the
mean hindsight best board (the best reachable arrangement knowing all 17
cards, engine.analysis) and the time per deal. Deals are spread over
``--workers`` processes (2 by default); times are CPU time of the worker
process, so "ms per card" means on one core.
"""

from __future__ import annotations

import argparse
import statistics
import time
from multiprocessing import Pool

from engine.analysis import hindsight_best
from engine.bots import STRATEGIES, BotView, Budget, ExpertStrategy, Strategy, make_strategy
from engine.bots.strategies import EXPERT_CANDIDATES, ROLLOUT_DEPTH
from engine.deal import deal
from engine.grid import Grid
from engine.scoring import WIN_SCORE
from engine.totals import board_total


def play_one(job: tuple[str, int, int, int, int]) -> tuple[int, float]:
    """(score, CPU seconds) of one strategy on deal ``bench-i``."""
    name, i, simulations, candidates, depth = job
    d = deal(f"bench-{i}")
    bot: Strategy = make_strategy(name, f"bench/{name}")
    if name == "expert":
        bot = ExpertStrategy(f"bench/{name}", candidates=candidates, depth=depth)
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


def main() -> None:
    parser = argparse.ArgumentParser(description="Bot strength and speed on fixed deals.")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--strategies", nargs="*", default=list(STRATEGIES))
    parser.add_argument("--simulations", type=int, default=Budget().simulations)
    parser.add_argument("--candidates", type=int, default=EXPERT_CANDIDATES)
    parser.add_argument("--depth", type=int, default=ROLLOUT_DEPTH, help="rollout length in cards")
    parser.add_argument("--hindsight-budget", type=int, default=60_000)
    parser.add_argument("--no-hindsight", action="store_true")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    print(f"{args.deals} deals (bench-0..bench-{args.deals - 1}), {args.workers} workers")
    print(
        f"expert budget: {args.simulations} simulations per card, "
        f"{args.candidates} candidates, rollouts of {args.depth} cards"
    )
    print(f"{'strategy':10} {'mean':>6} {'sd':>6} {'>=61':>6} {'ms/card':>8}")
    with Pool(args.workers) as pool:
        for name in args.strategies:
            wall = time.perf_counter()
            jobs = [
                (name, i, args.simulations, args.candidates, args.depth) for i in range(args.deals)
            ]
            results = pool.map(play_one, jobs, chunksize=4)
            scores = [s for s, _ in results]
            cpu = sum(t for _, t in results)
            print(
                f"{name:10} {statistics.mean(scores):6.2f} {statistics.pstdev(scores):6.2f} "
                f"{sum(s >= WIN_SCORE for s in scores) / len(scores):6.1%} "
                f"{1000 * cpu / (16 * len(scores)):8.2f}"
                f"   (wall {time.perf_counter() - wall:.0f} s)",
                flush=True,
            )
        if not args.no_hindsight:
            jobs2 = [(i, args.hindsight_budget) for i in range(args.deals)]
            found = pool.map(hindsight_one, jobs2, chunksize=4)
            best = [s for s, _, _ in found]
            proved = sum(p for _, p, _ in found)
            cpu = sum(t for _, _, t in found)
            print(
                f"{'hindsight':10} {statistics.mean(best):6.2f} {statistics.pstdev(best):6.2f} "
                f"{sum(s >= WIN_SCORE for s in best) / len(best):6.1%} "
                f"   {cpu / len(best):.2f} s per deal, {proved} proved optimal",
                flush=True,
            )


if __name__ == "__main__":
    main()
