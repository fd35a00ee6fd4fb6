"""Where a tournament's tables go on a cluster: to the node most of a table's players
are connected to, then to the live nodes holding the fewest leases, the tables of the
same step counted, ties after the coordinator in the order of the nodes' ids and the
coordinator last; in turn if Redis cannot say (the players' node still first)."""

from __future__ import annotations

from types import SimpleNamespace

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from server.shell.cluster.leases import Leases, room_key
from server.shell.cluster.tables import Tables, placements

NOBODY: dict[str, int] = {}  # a table none of whose players is connected (bots, away)


def test_each_table_goes_to_the_node_holding_fewest_leases_counting_those_placed() -> None:
    order = ["b", "c", "a"]  # seen from the coordinator "a": b and c first, a last
    assert placements(order, {"a": 2, "b": 5, "c": 0}, [NOBODY] * 4) == ["c", "c", "c", "a"]
    # equal loads: in turn, the coordinator last
    assert placements(order, {"a": 0, "b": 0, "c": 0}, [NOBODY] * 4) == ["b", "c", "a", "b"]
    assert placements(order, {}, [NOBODY] * 2) == ["b", "c"]  # no set: holds nothing
    assert placements(order, {"a": 1}, []) == []


def test_a_table_goes_where_most_of_its_players_are_connected_whatever_the_load() -> None:
    order = ["b", "c", "a"]
    loads = {"a": 9, "b": 0, "c": 5}
    wanted = [{"a": 1}, {"c": 2, "b": 1}, {"b": 1, "c": 1}, NOBODY]
    # the players' node first; a tie between nodes with as many players: the less
    # loaded; nobody connected: the least loaded of all
    assert placements(order, loads, wanted) == ["a", "c", "b", "b"]


async def test_tables_follow_their_players_seen_from_the_node() -> None:
    """What the coordinator knows of who is connected where decides, live nodes only."""
    where = {"p1": {"b"}, "p2": {"b", "c"}, "p3": {"gone"}, "p4": {"c"}}

    class Loads:
        async def loads(self, nodes: object) -> dict[str, int]:
            return {"a": 9, "b": 0, "c": 0}  # a: the 4 tables it opens, and 5 rooms

    node = SimpleNamespace(id="a", alive={"a", "b", "c"}, leases=Loads(),
                           connected_nodes=lambda pid: where.get(pid, set()))  # fmt: skip
    tables = Tables(node)  # type: ignore[arg-type]
    placed = [["p1", "p2"], ["p4"], ["p3"], ["bot-1"]]  # p3's node is not alive
    assert await tables.nodes_for(placed) == ["b", "c", "b", "c"]


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
        node = SimpleNamespace(id="a", alive={"a", "b", "c"}, leases=leases,
                               connected_nodes=lambda pid: set())  # fmt: skip
        tables = Tables(node)  # type: ignore[arg-type]  # what placing asks of a node
        assert await tables.nodes_for([[], [], []]) == ["a", "c", "a"]
        assert await tables.nodes_for([]) == []
    finally:
        await redis.aclose()


async def test_without_redis_the_tables_go_to_every_live_node_in_turn() -> None:
    class Unreachable:
        async def loads(self, nodes: object) -> dict[str, int]:
            raise RedisConnectionError("Redis is restarting")

    node = SimpleNamespace(id="b", alive={"a", "b", "c"}, leases=Unreachable(),
                           connected_nodes=lambda pid: {"a"} if pid == "p1" else set())  # fmt: skip
    tables = Tables(node)  # type: ignore[arg-type]
    assert await tables.nodes_for([[], [], ["p1"], [], []]) == ["c", "a", "a", "b", "c"]
