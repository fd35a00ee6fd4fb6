"""The words of ``--plain``: its help, the parsers of the commands that take
options, and the one-line form of a refused message's first error."""

from __future__ import annotations

import argparse
import re
import textwrap
from collections.abc import Awaitable, Callable

from client_cli.session import (
    SessionError,
)

WIDTH = 79  # a line of help wraps no terminal of 80 columns
_ENTRY = re.compile(r"^(\s*\S.*?)\s{2,}(\S.*)$")  # a command, then its description


def fit(text: str, width: int = WIDTH) -> str:
    """The help with each description reflowed within ``width`` columns, under the
    column where descriptions begin (its continuation lines are joined first); a
    line with no description is kept as it is."""
    rows: list[tuple[str, str]] = []  # (command, description): one per entry
    column = 0
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip())
        if column and indent >= column and rows:  # a description (goes on)
            rows[-1] = (rows[-1][0], f"{rows[-1][1]} {line.strip()}".strip())
            continue
        found = _ENTRY.match(line)
        if found:
            column = max(column, found.start(2))
            rows.append((found.group(1), found.group(2)))
        else:
            rows.append((line, ""))
    out: list[str] = []
    for command, description in rows:
        if not description:
            out.append(command)
            continue
        pad = " " * column
        first = command.ljust(column) if len(command) < column - 1 else None
        if first is None:
            out.append(command)
        wrapped = textwrap.wrap(description, width, initial_indent=first or pad,
                                subsequent_indent=pad)  # fmt: skip
        out += wrapped
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


HELP_TEXT = """\
commands:
  rooms [more]                       list open rooms (more: the next page)
  create NAME [--seats N] [--pace lockstep|race] [--private] [--clock SECONDS]
         [--best-of 1|3|5] [--rated]
                                     create a room (1 seat: a solo game)
  join ID|CODE                       join a room by its id or invite code
  leave | resign                     leave the room (during a match it forfeits: asked twice)
  ready | unready                    say you are (not) ready
  start                              start the match (the room's creator)
  bots                               the server's bot levels, each with its rating
  bot [LEVEL]                        fill a seat with a bot (the room's creator)
  vsbot [LEVEL]                      a new 2-seat game against a bot, started at once
  quickplay [--pace P] [--best-of N] [--bot-after SECONDS] [--bot-level LEVEL]
                                     wait for a rated opponent of your level
  challenge NAME [--pace P] [--best-of N] [--clock SECONDS] [--casual]
                                     challenge a player who is online
  accept [ID] | decline [ID]         answer a challenge made to you
  cancel                             leave the quick-play queue, or withdraw your challenge
  rematch [no]                       after a series: offer or accept a rematch (no: withdraw)
  b3 | place b3                      place the current card on cell b3
  board                              show your board and the legal cells
  who                                who is in the room and how far along
  wait                               wait for the match to end (or to start; in a
                                     series, for the next deal; at a tournament's
                                     table, for the next round or the end)
  history                            your last 20 matches: against whom, win/loss/draw,
                                     points, and a rated series' rating change
  replay MATCH_ID                    step through a match, placement by placement
  analyze [MATCH_ID]                 the best board in hindsight and each move's loss
                                     (default: the match just played)
  leaderboard [PACE] [--top N] [--around NAME]
                                     the rated players of a pace (leaders for short)
  ratings [NAME]                     a player's ratings and their latest changes
  tournaments [finished|...]         the public tournaments (by status: every one in it)
  tournament [ID]                    one tournament: round, clock, your table, standings
                                     (and a knockout's bracket)
  register ID|CODE                   enter a tournament (a private one by its invite code)
  watch ID|CODE                      follow a tournament's standings without playing, or
                                     watch a room's match (every board at the end)
  withdraw ID                        leave a tournament for good (or stop watching)
  formats                            the tournament formats the server hosts
  host NAME [--format F] [--rounds N] [--best-of N]
       [--pace P] [--clock SECONDS] [--round-clock SECONDS]
       [--start-in SECONDS]
       [--max-players N] [--private] [--no-bots] [--registered-only]
                                     open a tournament and host it
  manage ID start|pause|resume|cancel|remove PLAYER
                                     run a tournament you host
  addbots ID [COUNT] [LEVEL]         enter server bots in a tournament you host
  daily [yesterday|DAY] [--top N]    the daily deal: today's (or that day's) commitment,
                                     your attempt and streak, the standings; once the day
                                     is over its deal, checked, and where the field put it
  daily play [--pace P] [--clock SECONDS]
                                     play today's deal (one attempt; leaving forfeits it)
  daily analyze [yesterday|DAY]      your board of a day that is over: points lost to the
                                     hindsight best, your cells beside the field's
  daily schedule                     the commitments of the days ahead, the secrets past
  help                               this list
  quit                               leave the client
cells are a1..d4: column letter a-d, then row 1-4"""
HELP = fit(HELP_TEXT)

Command = Callable[[list[str]], Awaitable[None]]
ROOM_WAIT_S = 30.0
TOURNAMENT_WAIT_S = 3600.0  # a registered player waits this long at most for its table


class _Args(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise SessionError(message)


def _create_parser() -> argparse.ArgumentParser:
    p = _Args(prog="create", add_help=False)
    p.add_argument("name", nargs="+")
    p.add_argument("--seats", type=int, default=2)
    p.add_argument("--pace", choices=["lockstep", "race"], default="lockstep")
    p.add_argument("--private", action="store_true")
    p.add_argument("--clock", type=int, default=None, help="seconds per card (lockstep)")
    p.add_argument("--deal-clock", type=int, default=None, help="seconds per deal (race)")
    p.add_argument("--best-of", type=int, choices=[1, 3, 5], default=1)
    p.add_argument("--rated", action="store_true")
    return p


def _quickplay_parser() -> argparse.ArgumentParser:
    p = _Args(prog="quickplay", add_help=False)
    p.add_argument("--pace", choices=["lockstep", "race"], default="lockstep")
    p.add_argument("--best-of", type=int, choices=[1, 3, 5], default=1)
    p.add_argument("--bot-after", type=int, default=None, metavar="SECONDS")
    p.add_argument("--bot-level", default=None, metavar="LEVEL")
    return p


def _challenge_parser() -> argparse.ArgumentParser:
    p = _Args(prog="challenge", add_help=False)
    p.add_argument("name", nargs="+")
    p.add_argument("--pace", choices=["lockstep", "race"], default="lockstep")
    p.add_argument("--best-of", type=int, choices=[1, 3, 5], default=1)
    p.add_argument("--clock", type=int, default=None, help="seconds per card or per deal")
    p.add_argument("--casual", action="store_true", help="not rated")
    return p


def _leaderboard_parser() -> argparse.ArgumentParser:
    p = _Args(prog="leaderboard", add_help=False)
    p.add_argument("pace", nargs="?", choices=["lockstep", "race"], default="lockstep")
    p.add_argument("--top", type=int, default=20)
    p.add_argument("--around", default=None, metavar="NAME")
    return p


def _host_parser() -> argparse.ArgumentParser:
    p = _Args(prog="host", add_help=False)
    p.add_argument("name", nargs="+")
    p.add_argument("--format")  # one the server hosts (`formats`); none: its default
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--best-of", type=int, default=1)
    p.add_argument("--pace", choices=["lockstep", "race"], default="lockstep")
    p.add_argument("--clock", type=int, default=None, help="seconds per card or per deal")
    p.add_argument("--round-clock", type=int, default=None, metavar="SECONDS")
    p.add_argument("--start-in", type=int, default=None, metavar="SECONDS")
    p.add_argument("--max-players", type=int, default=64)
    p.add_argument("--private", action="store_true")
    p.add_argument("--no-bots", action="store_true")
    p.add_argument("--registered-only", action="store_true")
    return p


def _first_error(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        return f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
    return str(exc)


def _daily_parser() -> _DailyArgs:
    p = _Args(prog="daily", add_help=False)
    p.add_argument("words", nargs="*")
    p.add_argument("--top", type=int, default=20)
    p.add_argument("--pace", choices=["lockstep", "race"], default="lockstep")
    p.add_argument("--clock", type=int, default=None, help="seconds a card, or the deal (race)")
    return _DailyArgs(p)


class _DailyArgs:
    """``daily [play|analyze|schedule] [yesterday|DAY]``: the words read into what and day."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser

    def parse_args(self, args: list[str]) -> argparse.Namespace:
        opts = self.parser.parse_args(args)
        words = list(opts.words)
        opts.what = words.pop(0) if words and words[0] in ("play", "analyze", "schedule") else ""
        opts.day = words.pop(0) if words else None
        if words:
            raise SessionError("usage: daily [play|analyze|schedule] [yesterday|DAY]")
        return opts
