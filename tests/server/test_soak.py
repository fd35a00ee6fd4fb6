"""A short soak: the real server and bot matches for about 13 s, then the soak's verdict.

``benchmarks.bench_soak`` runs as a subprocess, as from the command line: it
starts the server on loopback with a temporary database, plays lockstep and
race matches with server-side bot seats from its load-generator processes, and
samples the server's memory every second. A run this short cannot tell a slow
leak from warm-up, so the memory check here is lenient (20 % between the
second and last thirds, and never twice the memory after the first second)
but real: a leak of a few hundred KiB per match fails it. The thresholds of
the full soak are in docs/benchmarks.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.bench_soak import MIN_SAMPLES, Sample, memory_trend, verdict

pytestmark = [pytest.mark.slow, pytest.mark.timeout(150)]

ROOT = Path(__file__).resolve().parents[2]
DURATION_S = 12


def test_a_short_soak_finishes_matches_without_errors_or_growing_memory() -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks.bench_soak",
            "--duration",
            str(DURATION_S),
            "--sample",
            "1",
            "--rooms",
            "6",
            "--max-growth",
            "20",
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.stdout, run.stderr
    report = json.loads(run.stdout)
    samples = report["samples"]
    last = samples[-1]
    context = json.dumps(report["verdict"], indent=1) + "\n" + run.stderr[-3000:]

    assert len(samples) == DURATION_S + 1, context  # one at 0 s, then one a second
    assert last["elapsed_s"] >= DURATION_S - 1
    assert last["matches"] > 0, context
    assert report["errors"] == {}, context
    assert all(s["errors"] == 0 for s in samples), context
    assert last["placements"] >= 16 * last["matches"]  # every match has a seat played here
    assert last["reconnects"] > 0  # players dropped and came back

    # Memory: the soak's own verdict, and never double what the server held after a second.
    assert report["verdict"]["memory"]["ok"], context
    assert report["verdict"]["memory_with_bot_workers"]["ok"], context
    early = samples[1]["rss_kib"]
    assert early > 0, "VmRSS of the server could not be read"
    assert max(s["rss_kib"] for s in samples) < 2 * early, context
    assert samples[-1]["db_kib"] > samples[0]["db_kib"]  # the matches were stored
    assert report["verdict"]["ok"] and run.returncode == 0, context


def samples_of(rss: list[int], *, matches: int = 10) -> list[Sample]:
    return [
        Sample(
            elapsed_s=float(t),
            matches=matches * t,
            placements=0,
            errors=0,
            auto=0,
            reconnects=0,
            rss_kib=kib,
            rss_tree_kib=kib,
            db_kib=0,
            server_cpu=0.0,
        )
        for t, kib in enumerate(rss)
    ]


def test_memory_verdict_passes_a_noisy_plateau_and_fails_steady_growth() -> None:
    times = [60.0 * t for t in range(1, 31)]
    warm_then_flat = [40_000 + 2_000 * min(t, 10) for t in range(30)]
    noisy = [
        kib + (1_500 if t % 7 == 0 else -300 * (t % 3)) for t, kib in enumerate(warm_then_flat)
    ]
    trend = memory_trend(times, noisy, 5.0)
    assert trend["ok"], trend
    assert abs(trend["growth_percent"]) < 5

    leaking = [60_000 + 400 * t for t in range(30)]  # 400 KiB a minute, about 12 % in 30 min
    trend = memory_trend(times, leaking, 5.0)
    assert not trend["ok"], trend
    assert trend["slope_kib_per_min"] == pytest.approx(400, rel=0.01)

    assert not memory_trend(times[: MIN_SAMPLES - 1], leaking[: MIN_SAMPLES - 1], 5.0)["ok"]


def test_verdict_fails_without_matches_or_with_errors() -> None:
    from collections import Counter

    flat = [50_000] * 12
    assert verdict(samples_of(flat), Counter(), 5.0)["ok"]
    assert verdict(samples_of(flat, matches=0), Counter(), 5.0)["failures"] == ["no match finished"]
    failed = verdict(samples_of(flat), Counter({"error reply past_turn": 2}), 5.0)
    assert not failed["ok"] and failed["failures"] == ["2 errors"]
