"""One redis-server for the session's cluster tests, emptied before each test, and the
database the nodes share: a PostgreSQL database of its own per test, in the session's
cluster (tests/server/conftest.py; skipped with the reason where PostgreSQL is not
installed). A failed test's report ends with the last lines of each node's log
(NODE_ID.log in its tmp_path), so that a failure on CI says what the nodes did."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
import redis

from tests.services import postgres
from tests.services.redis import MISSING, redis_server

LOG_LINES = 40


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    folder = getattr(item, "funcargs", {}).get("tmp_path")
    if report.failed and isinstance(folder, Path):
        for log in sorted(folder.glob("node*.log")):
            lines = log.read_text(errors="replace").splitlines()[-LOG_LINES:]
            report.sections.append((f"{log.name}, its last lines", "\n".join(lines)))
    return report


@pytest.fixture(scope="session")
def redis_session() -> Iterator[str]:
    if MISSING:
        pytest.skip(MISSING)
    with redis_server() as url:
        yield url


@pytest.fixture
def redis_url(redis_session: str) -> str:
    with redis.Redis.from_url(redis_session) as client:
        client.flushall()
    return redis_session


@pytest.fixture
def cluster_db(postgres_cluster: postgres.Cluster) -> Iterator[str]:
    name = postgres_cluster.create_database("cluster")
    try:
        yield postgres_cluster.url(name)
    finally:
        postgres_cluster.drop_database(name)
