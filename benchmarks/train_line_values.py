"""Regenerate engine/bots/line_values.json, the bots' learned line values.

Run from the repository root (takes about four minutes on two cores)::

    python -m benchmarks.train_line_values [--rounds 3] [--games 200000]

Round 0 plays random moves; each later round plays ε-greedy on the previous
round's table (see engine.bots.training). Deterministic: the same arguments
always write the same file.
"""

from __future__ import annotations

import argparse
import json
from multiprocessing import Pool
from pathlib import Path

from engine.bots.fast import LineValues
from engine.bots.training import collect, compact, expand, merge_stats

OUT = Path(__file__).resolve().parent.parent / "engine" / "bots" / "line_values.json"
EPSILONS = (0.0, 0.1, 0.05)


def _collect(args: tuple[int, str, dict[str, object] | None, float]) -> object:
    games, seed, data, epsilon = args
    values: LineValues | None = expand(data) if data is not None else None
    return collect(games, seed, values, epsilon)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--games", type=int, default=200_000, help="games per round")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    data: dict[str, object] | None = None
    for rnd in range(args.rounds):
        epsilon = EPSILONS[min(rnd, len(EPSILONS) - 1)]
        share = args.games // args.workers
        jobs = [(share, f"train/{rnd}/{w}", data, epsilon) for w in range(args.workers)]
        with Pool(args.workers) as pool:
            parts = pool.map(_collect, jobs)
        stats = parts[0]
        for part in parts[1:]:
            merge_stats(stats, part)  # type: ignore[arg-type]
        data = compact(stats)  # type: ignore[arg-type]
        print(f"round {rnd}: {args.games} games, epsilon {epsilon}")
    OUT.write_text(json.dumps(data, separators=(",", ":"), sort_keys=False) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
