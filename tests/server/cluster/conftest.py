"""One redis-server for the session's cluster tests, emptied before each test, and the
database the nodes share: a PostgreSQL database of its own per test, in the session's
cluster (tests/server/conftest.py; skipped with the reason where PostgreSQL is not
installed)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from tests.services import postgres
from tests.services.redis import MISSING, redis_server


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
