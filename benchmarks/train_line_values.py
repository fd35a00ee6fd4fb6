"""Regenerate engine/bots/line_values.json, the bots' learned line values.

Run from the repository root, at low priority (CPU-heavy: about a minute of
CPU per round of 200,000 games)::

    nice -n 19 python -m benchmarks.train_line_values [--rounds 6] [--games 200000] [--epsilon 0.65]

Round 0 plays random moves; each later round plays ε-greedy on the previous
round's table (see engine.bots.training), with the same heavy exploration in
every round: with ε = 0.65 about two moves in three are random, so every kind
of line is seen often at every stage, and the greedy moves still steer cards
into lines the way the player reading the table will. ``--schedule`` gives
one ε per round instead (the table shipped before this one was trained with
``--rounds 4 --schedule 0,0.1,0.05``: exploration in its first round only).

Deterministic: each round's games are dealt from seeds ``{seed}/{round}/{part}``
for two parts, whatever ``--workers`` is, so the same arguments always write
the same file.
"""

from __future__ import annotations

import argparse
import json
from multiprocessing import Pool
from pathlib import Path

from engine.bots.fast import LineValues
from engine.bots.training import collect, compact, expand, merge_stats

OUT = Path(__file__).resolve().parent.parent / "engine" / "bots" / "line_values.json"
EPSILON = 0.65
ROUNDS = 6
PARTS = 2  # each round's games in this many seeded parts, merged in order


def _collect(args: tuple[int, str, dict[str, object] | None, float]) -> object:
    games, seed, data, epsilon = args
    values: LineValues | None = expand(data) if data is not None else None
    return collect(games, seed, values, epsilon)


def schedule(rounds: int, epsilon: float, given: str | None) -> list[float]:
    """The ε of each round: ``given`` (comma-separated; its last value repeats) or ``epsilon``."""
    if given is None:
        return [epsilon] * rounds
    values = [float(x) for x in given.split(",") if x.strip()]
    if not values or not all(0.0 <= e <= 1.0 for e in values):
        raise SystemExit("--schedule: values between 0 and 1, comma-separated")
    return [values[min(r, len(values) - 1)] for r in range(rounds)]


def train(
    rounds: int, games: int, epsilons: list[float], seed: str, workers: int
) -> dict[str, object]:
    data: dict[str, object] | None = None
    share = games // PARTS
    for rnd, epsilon in enumerate(epsilons[:rounds]):
        jobs = [(share, f"{seed}/{rnd}/{part}", data, epsilon) for part in range(PARTS)]
        with Pool(workers) as pool:
            parts = pool.map(_collect, jobs)
        stats = parts[0]
        for part in parts[1:]:
            merge_stats(stats, part)  # type: ignore[arg-type]
        data = compact(stats)  # type: ignore[arg-type]
        shown = "random play" if rnd == 0 else f"epsilon {epsilon}"
        print(f"round {rnd}: {share * PARTS} games, {shown}", flush=True)
    assert data is not None
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--games", type=int, default=200_000, help="games per round")
    parser.add_argument("--epsilon", type=float, default=EPSILON, help="exploration, every round")
    parser.add_argument("--schedule", metavar="E0,E1,...", help="one epsilon per round instead")
    parser.add_argument("--seed", default="train", help="seed of the deals (default: train)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the table")
    args = parser.parse_args()
    if args.rounds < 1 or args.games < PARTS:
        raise SystemExit("--rounds must be at least 1 and --games at least 2")
    epsilons = schedule(args.rounds, args.epsilon, args.schedule)
    data = train(args.rounds, args.games, epsilons, args.seed, args.workers)
    args.out.write_text(json.dumps(data, separators=(",", ":"), sort_keys=False) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
