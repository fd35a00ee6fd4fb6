"""``cribsquares score``: a whole board, or a stream of hands and boards as JSON Lines.

The ``--jsonl`` mode is the batch interface: one JSON result per input line,
in order, and a bad line becomes an error line instead of stopping the stream.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from typing import IO

from client_cli.cli import UsageError
from client_cli.score_text import board_text
from engine.cards import Card
from engine.errors import EngineError, HandSizeError
from engine.scoring import score_board, score_hand


class LineError(Exception):
    """A JSON Lines input line that is not a request (its ``code`` goes on the wire)."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score a full board, or JSON Lines of hands and boards from stdin",
        description="Score a board of 16 cards given row by row (row 1 first): every row and "
        "column itemized, heels, the total and whether it wins. With --jsonl, read requests "
        'from stdin, one per line: {"hand": [4 cards], "starter": "5C"} or '
        '{"board": [[4 cards] x 4 rows], "starter": "5C"}.',
        epilog="example: cribsquares score 5H 5D 5S JC  AH 2H 3H 4H  ... --starter 5C",
    )
    parser.add_argument("cards", nargs="*", metavar="CARD", help="16 cards, row by row")
    parser.add_argument("--starter", "-s", metavar="CARD", help="the starter")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print BoardScore as JSON")
    output.add_argument(
        "--jsonl", action="store_true", help="read JSON Lines requests on stdin, answer each"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.jsonl:
        if args.cards or args.starter:
            raise UsageError("--jsonl reads its cards from stdin: give no cards and no --starter")
        return score_stream(sys.stdin.buffer, sys.stdout, interactive=sys.stdin.isatty())
    if not args.cards:
        raise UsageError("give the 16 cards of the board row by row, or use --jsonl")
    if args.starter is None:
        raise UsageError("the starter is missing: add --starter CARD")
    cards = [Card.parse(text) for text in args.cards]
    score = score_board(cards, Card.parse(args.starter))
    if args.json:
        json.dump(score.to_dict(), sys.stdout)
        sys.stdout.write("\n")
    else:
        print(board_text(cards, score))
    return 0


def score_stream(lines: Iterable[bytes], out: IO[str], *, interactive: bool = False) -> int:
    """Answer each request line; 0 if every line was scored, 1 if any was an error."""
    failed = False
    for number, result in enumerate(_results(lines), start=1):
        failed = failed or "error" in result
        out.write(json.dumps({"line": number, **result}, separators=(",", ":")))
        out.write("\n")
        if interactive:
            out.flush()
    return 1 if failed else 0


def _results(lines: Iterable[bytes]) -> Iterator[dict[str, object]]:
    for raw in lines:
        try:
            yield score_request(raw)
        except (LineError, EngineError) as exc:
            yield {"error": {"code": exc.code, "reason": str(exc)}}


def score_request(raw: bytes) -> dict[str, object]:
    """One input line -> the to_dict() form of its score; raise on a bad line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise LineError("bad_json", "the line is not UTF-8 text") from None
    if not text.strip():
        raise LineError("bad_json", "blank line: expected a JSON object")
    try:
        request = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LineError("bad_json", f"not JSON: {exc.msg} at column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:
        # Numbers too long to convert, nesting too deep to parse: still one bad line.
        raise LineError("bad_json", f"not usable JSON: {exc}") from None
    if not isinstance(request, dict):
        raise LineError("bad_input", "expected a JSON object with a hand or a board")
    kinds = [k for k in ("hand", "board") if k in request]
    if len(kinds) != 1:
        raise LineError("bad_input", 'expected exactly one of "hand" and "board"')
    unknown = sorted(set(request) - {kinds[0], "starter"})
    if unknown:
        raise LineError("bad_input", f"unknown key {unknown[0]!r}")
    if "starter" not in request:
        raise LineError("bad_input", 'the "starter" is missing')
    starter = Card.parse(request["starter"])
    if kinds[0] == "hand":
        return score_hand(_cards(request["hand"], "hand"), starter).to_dict()
    rows = request["board"]
    if not isinstance(rows, list):
        raise LineError("bad_input", '"board" must be a list of 4 rows of 4 cards')
    if len(rows) != 4:
        raise HandSizeError(f"a board has 4 rows, got {len(rows)}")
    cards: list[Card] = []
    for number, row in enumerate(rows, start=1):
        row_cards = _cards(row, f"row {number}")
        if len(row_cards) != 4:
            raise HandSizeError(f"row {number} has {len(row_cards)} cards, not 4")
        cards += row_cards
    return score_board(cards, starter).to_dict()


def _cards(value: object, what: str) -> list[Card]:
    if not isinstance(value, list):
        raise LineError("bad_input", f'{what} must be a list of cards like "5H"')
    return [Card.parse(text) for text in value]
