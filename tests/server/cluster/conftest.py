"""One redis-server for the session's cluster tests, emptied before each test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

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
