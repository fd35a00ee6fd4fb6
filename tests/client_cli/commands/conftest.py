"""The ``run_cli`` fixture: ``client_cli.cli.main`` in-process, stdin given, output captured."""

from __future__ import annotations

import io
import sys

import pytest

from client_cli.cli import main
from tests.client_cli.commands.helpers import Result, Runner


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Runner:
    """``run_cli("hand", "5H", ..., stdin="...")`` -> Result(code, out, err)."""

    def run(*argv: str, stdin: str | bytes = b"") -> Result:
        data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
        try:
            code = main(list(argv))
        except SystemExit as exit_:  # argparse refusing the arguments
            code = int(exit_.code or 0)
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run
