"""Where a tournament's tables go on a cluster: to the live nodes holding the fewest
leases, the tables of the same step counted, ties after the coordinator in the order
of the nodes' ids and the coordinator last; in turn if Redis cannot say."""

from __future__ import annotations

from types import SimpleNamespace

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from server.shell.cluster.leases import Leases, room_key
from server.shell.cluster.tables import Tables, placements


def test_each_table_goes_to_the_node_holding_fewest_leases_counting_those_placed() -> None:
    order = ["b", "c", "a"]  # seen from the coordinator "a": b and c first, a last
    assert placements(order, {"a": 2, "b": 5, "c": 0}, 4) == ["c", "c", "c", "a"]
    # equal loads: in turn, the coordinator last
    assert placements(order, {"a": 0, "b": 0, "c": 0}, 4) == ["b", "c", "a", "b"]
    assert placements(order, {}, 2) == ["b", "c"]  # a node with no set holds nothing
    assert placements(order, {"a": 1}, 0) == []


async def no_stored_token() -> int:
    return 0


async def test_tables_follow_the_leases_the_other_nodes_hold_in_redis(redis_url: str) -> None:
    redis = aioredis.Redis.from_url(redis_url, decode_responses=True)
    try:
        busy = Leases(redis, "b", no_stored_token)
        for n in range(3):  # b already plays three rooms
            assert await busy.acquire(room_key(f"r{n}")) is not None
        assert await Leases(redis, "c", no_stored_token).acquire(room_key("r9")) is not None
        leases = Leases(redis, "a", no_stored_token)
        assert await leases.loads(["a", "b", "c"]) == {"a": 0, "b": 3, "c": 1}
        node = SimpleNamespace(id="a", alive={"a", "b", "c"}, leases=leases)
        tables = Tables(node)  # type: ignore[arg-type]  # what placing asks of a node
        assert await tables.nodes_for(3) == ["a", "c", "a"]
        assert await tables.nodes_for(0) == []
    finally:
        await redis.aclose()


async def test_without_redis_the_tables_go_to_every_live_node_in_turn() -> None:
    class Unreachable:
        async def loads(self, nodes: object) -> dict[str, int]:
            raise RedisConnectionError("Redis is restarting")

    node = SimpleNamespace(id="b", alive={"a", "b", "c"}, leases=Unreachable())
    tables = Tables(node)  # type: ignore[arg-type]
    assert await tables.nodes_for(4) == ["c", "a", "b", "c"]
