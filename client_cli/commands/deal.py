"""``cribsquares deal``: the cards a seed deals, with its commitment (docs/fairness.md)."""

from __future__ import annotations

import argparse
import json
import sys

from engine.deal import DEAL_VERSION, deal


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "deal",
        help="show the 16 cards and the starter a seed deals",
        description="Show the deal of SEED: the 16 cards in dealing order and the starter, "
        "the commitment (SHA-256 of the seed) and the deal version. See docs/fairness.md.",
        epilog="example: cribsquares deal 'friday night'",
    )
    parser.add_argument("seed", metavar="SEED", help="any text of 1 to 256 UTF-8 bytes")
    parser.add_argument("--json", action="store_true", help="print the deal as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    dealt = deal(args.seed)
    if args.json:
        record = {
            "seed": dealt.seed,
            "version": DEAL_VERSION,
            "commitment": dealt.commitment,
            "cards": [str(c) for c in dealt.all_cards],
            "starter": str(dealt.starter),
        }
        json.dump(record, sys.stdout)
        sys.stdout.write("\n")
        return 0
    print(f"seed        {dealt.seed}")
    print(f"version     {DEAL_VERSION}")
    print(f"commitment  {dealt.commitment}")
    for start in range(0, len(dealt.cards), 8):
        label = "cards" if start == 0 else ""
        row = dealt.cards[start : start + 8]
        print(f"{label:<12}" + "  ".join(f"{start + k:>2}:{c}" for k, c in enumerate(row, 1)))
    print(f"starter     {dealt.starter}")
    return 0
