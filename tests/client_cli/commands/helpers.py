"""Shared by the subcommand tests: the result of one run and the refusal check."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Result:
    code: int
    out: str
    err: str


Runner = Callable[..., Result]


def assert_one_line_error(result: Result, *fragments: str) -> None:
    """A refusal: non-zero status, nothing on stdout, one line on stderr naming the problem."""
    assert result.code != 0
    assert result.out == ""
    assert result.err.endswith("\n") and result.err.count("\n") == 1, result.err
    assert "Traceback" not in result.err
    for fragment in fragments:
        assert fragment in result.err, result.err
