"""The ``console`` examples in docs/ are real: each is run and its output compared.

Only the offline, deterministic subcommands are run (``OFFLINE``); examples of
the others are left to their own tests. A line ``...`` (any indentation) in an
example stands for any number of lines.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.client_cli.commands.helpers import Runner

DOCS = Path(__file__).resolve().parents[3] / "docs"
OFFLINE = frozenset({"hand", "score", "deal", "tally"})
BLOCK = re.compile(r"```console\n\$ cribsquares (.*?)\n(.*?)```", re.DOTALL)


def _examples() -> list[tuple[str, str, str]]:
    found = []
    for path in sorted(DOCS.glob("*.md")):
        for match in BLOCK.finditer(path.read_text("utf-8")):
            if match.group(1).split()[0] in OFFLINE:
                found.append((path.name, match.group(1), match.group(2)))
    return found


EXAMPLES = _examples()


def _matches(expected: list[str], actual: list[str]) -> bool:
    """``expected`` with ``...`` lines as wildcards, against all of ``actual``."""
    if not expected:
        return not actual
    if expected[0].strip() == "...":
        return any(_matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and _matches(expected[1:], actual[1:])


def test_there_are_examples() -> None:
    assert {name for name, _, _ in EXAMPLES} >= {"rules.md", "fairness.md"}


@pytest.mark.parametrize(("doc", "command", "output"), EXAMPLES, ids=lambda x: str(x)[:40])
def test_example(run_cli: Runner, doc: str, command: str, output: str) -> None:
    result = run_cli(*shlex.split(command))
    assert result.err == ""
    assert _matches(output.splitlines(), result.out.splitlines()), (
        f"{doc}: cribsquares {command}\n{result.out}"
    )


def test_the_schema_version_cli_md_gives_is_the_one_printed(run_cli: Runner) -> None:
    import json

    text = (DOCS / "cli.md").read_text("utf-8")
    (shown,) = re.findall(r'`\{"version": (\d+), "client_to_server"', text)
    printed = json.loads(run_cli("protocol", "schema").out)
    assert int(shown) == printed["version"]
