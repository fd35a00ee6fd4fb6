"""Engine speed: the tally of all hands and board scoring, on one core.

Run from the repository root, with the project installed:

    python -m benchmarks.bench_engine            # 5 runs of each, median reported
    python -m benchmarks.bench_engine --runs 9 --boards 50000

It measures

* ``cribsquares tally`` as a subprocess, wall clock (interpreter start, imports,
  the tally, printing): the targets are at most 1 s, and at most 2.5 times the
  tally in process (below) measured in the same run; beside it the start-up of
  ``cribsquares --help`` alone and the same tally in a bare ``python -c``, to
  tell the command line's import cost from the engine's;
* ``cribsquares hand`` as a subprocess, wall clock: the target is under 0.15 s
  (a quick command imports only what it needs);
* :func:`engine.tally.tally` in process, with its pattern cache cleared;
* boards scored per second by the table-driven totals
  (:func:`engine.board_total`, and ``board_total_indices`` on card indices):
  the target is at least 100,000 boards/s;
* boards per second itemized by :func:`engine.score_board` (no target: it
  lists every combination for people to read).

The boards are dealt by :func:`engine.deal` from the seeds ``bench-0``,
``bench-1``, ...: the same boards on every machine, no ``random``. Results
are recorded in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from engine import board_total, deal, score_board
from engine.cards import Card
from engine.tally import _suit_bonus_counts, tally
from engine.totals import board_total_indices

TALLY_TARGET_S = 1.0
TALLY_RATIO_TARGET = 2.5  # the command's wall clock over the tally in process
HAND_TARGET_S = 0.15
HAND = ["hand", "5H", "5D", "5S", "JC", "--starter", "5C"]
# The same work without the command line around it: interpreter, engine, tally.
ENGINE_ONLY = "from engine.tally import tally; tally()"
BOARDS_TARGET = 100_000


def cli_command() -> list[str]:
    script = shutil.which("cribsquares", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "client_cli"]


def median_seconds(action: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_quietly(argv: list[str]) -> None:
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


def cold_tally() -> None:
    _suit_bonus_counts.cache_clear()
    tally()


def seeded_boards(count: int) -> list[tuple[list[Card], Card]]:
    boards = []
    for k in range(count):
        dealt = deal(f"bench-{k}")
        boards.append((list(dealt.cards), dealt.starter))
    return boards


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_engine")
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (median)")
    parser.add_argument("--boards", type=int, default=20_000, help="boards per run")
    args = parser.parse_args(argv)
    runs, count = args.runs, args.boards

    command = cli_command()
    run_quietly([*command, "tally"])  # warm the file cache once
    tally_wall = median_seconds(lambda: run_quietly([*command, "tally"]), runs)
    startup = median_seconds(lambda: run_quietly([*command, "--help"]), runs)
    hand_wall = median_seconds(lambda: run_quietly([*command, *HAND]), runs)
    engine_alone = median_seconds(lambda: run_quietly([sys.executable, "-c", ENGINE_ONLY]), runs)
    tally_in_process = median_seconds(cold_tally, runs)

    boards = seeded_boards(count)
    indexed = [([c.index for c in cards], starter.index) for cards, starter in boards]
    itemized = boards[: max(1, count // 10)]

    def totals() -> None:
        for cards, starter in boards:
            board_total(cards, starter)

    def totals_indices() -> None:
        for cells, starter in indexed:
            board_total_indices(cells, starter)

    def itemize() -> None:
        for cards, starter in itemized:
            score_board(cards, starter)

    per_second = {
        "board_total (Card lists)": count / median_seconds(totals, runs),
        "board_total_indices (card indices)": count / median_seconds(totals_indices, runs),
        "score_board (itemized)": len(itemized) / median_seconds(itemize, runs),
    }

    def verdict(ok: bool) -> str:
        return "ok" if ok else "MISSED"

    print(f"Python {sys.version.split()[0]} on {sys.platform}; median of {runs} runs")
    print(f"{'measurement':<40}{'median':>18}  target")
    print(
        f"{'cribsquares tally (subprocess, wall)':<40}{tally_wall:>16.3f} s"
        f"  <= {TALLY_TARGET_S:g} s {verdict(tally_wall <= TALLY_TARGET_S)}"
    )
    ratio = tally_wall / tally_in_process
    print(
        f"{'  over tally() in process':<40}{ratio:>16.2f} x"
        f"  <= {TALLY_RATIO_TARGET:g} x {verdict(ratio <= TALLY_RATIO_TARGET)}"
    )
    print(f"{'start-up of the whole CLI (--help)':<40}{startup:>16.3f} s")
    print(
        f"{'cribsquares hand (subprocess, wall)':<40}{hand_wall:>16.3f} s"
        f"  < {HAND_TARGET_S:g} s {verdict(hand_wall < HAND_TARGET_S)}"
    )
    print(f"{'tally, engine alone (subprocess, wall)':<40}{engine_alone:>16.3f} s")
    print(f"{'tally() in process, cold cache':<40}{tally_in_process:>16.3f} s")
    for name, rate in per_second.items():
        target = ""
        if name.startswith("board_total ("):
            target = f"  >= {BOARDS_TARGET:,} {verdict(rate >= BOARDS_TARGET)}"
        print(f"{name:<40}{rate:>11,.0f} boards/s{target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
