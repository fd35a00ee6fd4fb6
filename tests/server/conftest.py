"""The stores the storage tests run against: SQLite and PostgreSQL.

One PostgreSQL cluster per test session (tests/services/postgres.py), started
the first time a test asks for it and stopped at the session's end; each test
gets a database of its own in it. Where PostgreSQL is not installed, the
PostgreSQL half of each test is skipped with the reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.stores import StoreUnderTest
from tests.services import postgres


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[postgres.Cluster]:
    reason = postgres.unavailable()
    if reason is not None:
        pytest.skip(reason)
    # No test crashes the machine: commits are acknowledged as ever, not forced to disk.
    with postgres.cluster(fsync=False) as cluster:
        yield cluster


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreUnderTest]:
    """A fresh, empty store of each engine."""
    if request.param == "sqlite":
        yield StoreUnderTest("sqlite", str(tmp_path / "db"))
        return
    cluster: postgres.Cluster = request.getfixturevalue("postgres_cluster")
    name = cluster.create_database()
    try:
        yield StoreUnderTest("postgresql", cluster.url(name))
    finally:
        cluster.drop_database(name)
