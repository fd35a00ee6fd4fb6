"""``cribsquares hand``: the itemized score of one hand with a starter."""

from __future__ import annotations

import argparse
import json
import sys

from client_cli.score_text import hand_text
from engine.cards import Card
from engine.scoring import score_hand


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "hand",
        help="score one hand of 4 cards with a starter",
        description="Score 4 cards with the starter, listing every fifteen, pair and run, "
        "the flush and nobs.",
        epilog="example: cribsquares hand 5H 5D 5S JC --starter 5C",
    )
    parser.add_argument("cards", nargs="+", metavar="CARD", help="4 cards, like 5H TD qs 10c 7♥")
    parser.add_argument("--starter", "-s", required=True, metavar="CARD", help="the starter")
    parser.add_argument("--json", action="store_true", help="print HandScore as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    hand = [Card.parse(text) for text in args.cards]
    score = score_hand(hand, Card.parse(args.starter))
    if args.json:
        json.dump(score.to_dict(), sys.stdout)
        sys.stdout.write("\n")
    else:
        print(hand_text(score))
    return 0
