"""The ``cribsquares`` command: one console script, one module per subcommand.

Each module in ``client_cli.commands`` exposes ``register(subparsers)``, which
adds its parser and sets ``func`` to a callable taking the parsed arguments and
returning the exit code. Errors meant for the user are raised as
:class:`UsageError` (or any ``EngineError``) and printed as one line on stderr,
never as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from engine.errors import EngineError

# Subcommand modules, in the order `cribsquares --help` lists them.
COMMANDS = (
    "hand",
    "score",
    "deal",
    "tally",
    "solo",
    "serve",
    "history",
    "analyze",
    "quarantined",
    "backup",
    "protocol",
    "play",
    "bot",
    "leaderboard",
    "ratings",
    "tournament",
)


class UsageError(Exception):
    """A problem with the user's arguments or input: printed, exit code 2."""


class _Parser(argparse.ArgumentParser):
    # The words being parsed, so that an error can point at an id read as an option.
    words: Sequence[str] = ()

    def error(self, message: str) -> None:  # type: ignore[override]
        # One line, not argparse's usage block, so scripts get a clean stderr.
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        hint = dash_hint(_Parser.words)
        if hint:
            sys.stderr.write(hint + "\n")
        raise SystemExit(2)


def dash_hint(words: Sequence[str]) -> str | None:
    """One line for a word that looks like an id beginning with ``-`` (ids made
    before they never did), which argparse reads as an unknown option: the value of
    an option is joined to it with ``=`` (``--match=-ID``), any other goes last,
    after ``--``."""
    if "--" in words:
        # "--match -- -ID": the option got no value; joined with "=" it gets it.
        at = list(words).index("--")
        before, after = words[at - 1] if at > 0 else "", words[at + 1 : at + 2]
        if before.startswith("--") and "=" not in before and after and after[0][:1] == "-":
            joined = [*words[: at - 1], f"{before}={after[0]}", *words[at + 2 :]]
            shown = " ".join(["cribsquares", *joined])
            return f"hint: an id beginning with '-' is joined to its option with '=': {shown}"
        return None
    for i, word in enumerate(words):
        if word.startswith("-") and not word.startswith("--") and len(word) > 2:
            option = words[i - 1] if i > 0 and words[i - 1].startswith("--") else None
            if option is not None and "=" not in option:
                joined = [*words[: i - 1], f"{option}={word}", *words[i + 1 :]]
                shown = " ".join(["cribsquares", *joined])
                return f"hint: an id beginning with '-' is joined to its option with '=': {shown}"
            rest = [w for w in words if w != word]
            shown = " ".join(["cribsquares", *rest, "--", word])
            return f"hint: an id beginning with '-' goes last, after '--': {shown}"
    return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or (``only``) the one subcommand about to run: a
    command then imports what it needs and nothing else (``cribsquares hand`` does
    not load the server, the client or the network libraries)."""
    parser = _Parser(
        prog="cribsquares",
        description="Cribbage Squares: rules, solo play, server, client and tournaments.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in (only,) if only else COMMANDS:
        module = importlib.import_module(f"client_cli.commands.{name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if not words:
        build_parser().print_help()  # bare ``cribsquares``: what it can do
        return 0
    parser = build_parser(words[0] if words[0] in COMMANDS else None)
    _Parser.words = words
    args = parser.parse_args(words)
    try:
        code = args.func(args)
    except (UsageError, EngineError) as exc:
        sys.stderr.write(f"cribsquares {args.command}: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    return int(code or 0)


if __name__ == "__main__":
    raise SystemExit(main())
