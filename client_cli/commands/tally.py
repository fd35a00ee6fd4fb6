"""``cribsquares tally``: how many (hand, starter) pairs score each total 0..29."""

from __future__ import annotations

import argparse
import json
import sys


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "tally",
        help="the distribution of hand scores over every hand and starter",
        description="Count the 12,994,800 (4-card hand, starter) pairs by score, 0 to 29, "
        "with the mean and the maximum.",
    )
    parser.add_argument("--json", action="store_true", help="print the tally as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engine.tally import tally

    result = tally()
    if args.json:
        record = {
            "counts": list(result.counts),
            "pairs": result.pairs,
            "mean": result.mean,
            "max": result.maximum,
        }
        json.dump(record, sys.stdout)
        sys.stdout.write("\n")
        return 0
    print("score       pairs    share")
    for points, count in enumerate(result.counts):
        print(f"{points:>5}  {count:>10,}  {100 * count / result.pairs:6.3f}%")
    print(f"pairs  {result.pairs:,}   mean {result.mean:.4f}   max {result.maximum}")
    return 0
