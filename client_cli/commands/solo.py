"""``cribsquares solo``: one complete game in the terminal, line by line.

Plain prompts on stdin/stdout so it works in any terminal and when piped (a
script can play by feeding cell names). The deal comes from a seed, printed
at the end so the same game can be replayed; without ``--seed`` the seed is
drawn here with :mod:`secrets`, never inside the engine.
"""

from __future__ import annotations

import argparse
import secrets
import shlex
import sys
from typing import TextIO

from client_cli.score_text import board_text
from engine.deal import Deal, deal
from engine.errors import EngineError
from engine.grid import CELLS, Grid, cell_name, parse_cell
from engine.scoring import score_board

QUIT_WORDS = frozenset({"q", "quit", "exit"})
HELP_WORDS = frozenset({"?", "h", "help"})

RULES = """\
Place each card in an empty cell. The first card may go anywhere; every later
card must touch a card already placed: across, down or diagonally. Cards never
move. When the grid is full the starter is turned, and each row and column
scores as a cribbage hand with the starter. 61 or more wins.
Type a cell as column letter and row number, like b3; q quits."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "solo",
        help="play one game alone in the terminal",
        description="Play a game of Cribbage Squares alone: 16 cards, one at a time, into the "
        "4x4 grid, then the starter and the score. Reads cell names (like b3) from stdin.",
        epilog="Exit status: 0 when the game is finished, 1 when abandoned (q or end of input).",
    )
    parser.add_argument(
        "--seed", metavar="SEED", help="deal from this seed (default: a fresh random one)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else secrets.token_hex(6)
    return play(deal(seed), sys.stdin, sys.stdout)


class _Abandon(Exception):
    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def play(dealt: Deal, stdin: TextIO, out: TextIO) -> int:
    """Play ``dealt`` to the end, or until the player quits or input ends."""
    session = _Session(dealt, stdin, out)
    try:
        session.run()
    except _Abandon as stop:
        session.abandon(stop.why)
        return 1
    except KeyboardInterrupt:
        session.abandon("interrupted")
        return 130
    return 0


class _Session:
    def __init__(self, dealt: Deal, stdin: TextIO, out: TextIO) -> None:
        self.dealt = dealt
        self.grid = Grid()
        self.stdin = stdin
        self.out = out
        # A terminal echoes what the player types; a pipe does not, so the
        # transcript would show bare prompts without this.
        self.echo = not stdin.isatty()

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")

    def run(self) -> None:
        self.say("Cribbage Squares: solo game")
        self.say(f"commitment {self.dealt.commitment}  (SHA-256 of the seed, shown at the end)")
        self.say()
        self.say(RULES)
        for number, card in enumerate(self.dealt.cards, start=1):
            self.say()
            self.say(self.grid.render(marks=self.grid.legal_cells()))
            self.say()
            where = "any cell" if number == 1 else "a marked cell"
            self.say(f"card {number} of {CELLS}: {card}   place it in {where}")
            cell = self.ask_cell()
            self.grid.place(cell, card)
            self.say(f"  {card} -> {cell_name(cell)}")
        cards = self.grid.cards()
        score = score_board(cards, self.dealt.starter)
        self.say()
        self.say(f"The grid is full. The starter is {self.dealt.starter}.")
        self.say()
        self.say(board_text(cards, score))
        self.say()
        self.say_seed()
        self.out.flush()

    def ask_cell(self) -> int:
        while True:
            answer = self.read("cell? ").strip()
            word = answer.lower()
            if word in QUIT_WORDS:
                raise _Abandon("you quit")
            if word in HELP_WORDS:
                self.say(RULES)
                continue
            if not answer:
                self.say("  type a cell such as b3 (? for help, q to quit)")
                continue
            try:
                cell = parse_cell(answer)
            except EngineError as exc:
                self.say(f"  {exc}")
                continue
            refusal = self.grid.why_illegal(cell)
            if refusal is None:
                return cell
            legal = " ".join(cell_name(i) for i in self.grid.legal_cells())
            self.say(f"  {refusal}; legal cells: {legal}")

    def read(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        line = self.stdin.readline()
        if not line:
            self.out.write("\n")
            raise _Abandon("end of input")
        if self.echo:
            self.out.write(line if line.endswith("\n") else line + "\n")
        return line

    def abandon(self, why: str) -> None:
        self.say(f"Game abandoned ({why}) after {self.grid.count} of {CELLS} cards.")
        self.say_seed()
        self.out.flush()

    def say_seed(self) -> None:
        seed = self.dealt.seed
        self.say(f"seed {seed!r}: replay with  cribsquares solo --seed={shlex.quote(seed)}")
