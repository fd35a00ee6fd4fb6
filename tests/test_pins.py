"""The pinned versions: every package installed is pinned, and the pins keep
pyproject.toml's ranges; the README's commands and .ci/run install from them.

requirements/refresh rewrites the pins (README, Quick start).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PIN = re.compile(
    r"^(?P<name>[A-Za-z0-9._-]+)(\[[^\]]*\])?==(?P<version>[^\s;]+)\s*(;\s*(?P<marker>.+))?$"
)


def pins(name: str) -> dict[str, list[Requirement]]:
    """requirements/NAME.txt: each package's pinned lines (one, or one per marker)."""
    found: dict[str, list[Requirement]] = {}
    for number, line in enumerate((ROOT / "requirements" / name).read_text().splitlines(), 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        assert PIN.match(text), f"requirements/{name}:{number} is not an exact pin: {text!r}"
        requirement = Requirement(text)
        found.setdefault(canonicalize_name(requirement.name), []).append(requirement)
    return found


def wanted(*extras: str) -> list[Requirement]:
    project = PYPROJECT["project"]
    listed = [*project["dependencies"], *PYPROJECT["build-system"]["requires"]]
    for extra in extras:
        listed += project["optional-dependencies"][extra]
    return [Requirement(text) for text in listed]


@pytest.mark.parametrize(
    ("name", "extras"), [("serve.txt", ("postgresql",)), ("test.txt", ("postgresql", "test"))]
)
def test_every_range_of_pyproject_is_pinned_within_it(name: str, extras: tuple[str, ...]) -> None:
    pinned = pins(name)
    for requirement in wanted(*extras):
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        lines = pinned.get(canonicalize_name(requirement.name))
        assert lines, f"{requirement.name} (pyproject.toml) is not pinned in requirements/{name}"
        for line in lines:
            if line.marker is not None and not line.marker.evaluate():
                continue
            (spec,) = line.specifier
            assert requirement.specifier.contains(spec.version, prereleases=True), (
                f"requirements/{name} pins {line.name}=={spec.version}, outside pyproject.toml's"
                f" {requirement}: run bash requirements/refresh"
            )


def test_the_test_pins_hold_every_pin_of_the_server() -> None:
    serve, test = pins("serve.txt"), pins("test.txt")
    differ = {
        name: (serve[name], test.get(name)) for name in serve if serve[name] != test.get(name)
    }
    assert not differ, f"the server's pins differ between the two files: {differ}"


def test_the_readme_and_ci_install_the_pins() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    install = (
        "pip install -q -r requirements/{}"
        " && .venv/bin/pip install -q --no-deps --no-build-isolation -e ."
    )
    assert install.format("serve.txt") + " && .venv/bin/cribsquares serve" in readme
    test_command = (
        install.format("test.txt") + " && .venv/bin/python -m pytest -n 3 --dist worksteal"
    )
    assert test_command in readme
    assert ci.rstrip().splitlines()[-1].endswith(test_command), (
        ".ci/run runs the README's test command"
    )
