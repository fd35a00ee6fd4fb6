"""A failing test whose report holds a lone surrogate is shown as a failure under
xdist, not lost with its worker.

Found this stop: in a random (not ``CI=true``) run, the fuzz test of
tests/server/test_malformed.py failed with a server reply holding ``\\ud800`` in its
message; the worker could not send that report ("strings must be utf-8 encodable"),
died, and the run said only INTERNALERROR, with every later test of that worker
unrun. tests/conftest.py escapes such text in every report.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.processes import MARK

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


def test_a_report_with_a_lone_surrogate_is_a_failure_not_a_dead_worker(tmp_path: Path) -> None:
    (tmp_path / "test_lone.py").write_text(
        "import pytest\n\n\ndef test_lone():\n    pytest.fail('a reply held \\ud800 alone')\n"
    )
    # A run of its own: with this run's mark, its end-of-run check would wait SETTLE_S
    # for this run's every process (still running, of course) and name them all.
    environment = {k: v for k, v in os.environ.items() if k != MARK}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "1", "-p", "tests.conftest",
         "--rootdir", str(tmp_path), str(tmp_path / "test_lone.py")],
        cwd=tmp_path, capture_output=True, text=True, errors="backslashreplace", timeout=50,
        env={**environment, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    out = run.stdout + run.stderr
    assert "INTERNALERROR" not in out, out[-2000:]
    assert "outlived them" not in out, out[-2000:]
    assert "1 failed" in out and "a reply held \\ud800 alone" in out, out[-2000:]
