"""A get_tournament through a node that does not coordinate: the coordinator answers,
the asking connection alone gets the answer, and the read is paid for from the
player's budget of bytes read, as on one server (tests/server/test_quotas.py). Before,
such a read was charged nowhere: a flood of 200 kB answers through any other node
was free."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.server.cluster.nodes import cluster
from tests.server.live import Client, read_until_refused, signed_in

pytestmark = pytest.mark.timeout(120)


async def test_a_forwarded_read_is_paid_for_and_answers_the_asker_alone(
    tmp_path: Path, redis_url: str, cluster_db: str
) -> None:
    settings = tmp_path / "reads.toml"
    settings.write_text(
        'read_bytes_per_address = "4000/min"\nread_bytes_per_account = "4000/min"\n'
    )
    with cluster(cluster_db, redis_url, 2, logs=tmp_path, options=("--config", str(settings))) as (
        coordinator,
        other,
    ):
        host = await signed_in(other.live, "host")  # on the node that does not coordinate
        tab = await Client.connect(other.live)
        assert (await tab.hello(token=host.token))["player"]["id"] == host.id
        await host.send(type="create_tournament", name="cup", ref="made")
        tid = (await host.until("tournament"))["tournament"]["id"]
        answers, reply = await read_until_refused(host, tid)
        assert "too many bytes read" in reply["reason"] and answers >= 1, reply
        # The other connection was sent none of the answers (a ping's pong comes first).
        await tab.still_alive()
        assert not [m for m in tab.log if (m.get("ref") or "").startswith("g")], tab.log
        assert [m["type"] for m in tab.log].count("tournament") <= 1, tab.log  # its sign-in's
        # The coordinator's books were charged: another player from the same address (all
        # of these are on loopback), asking on the coordinator itself, is refused too.
        neighbour = await signed_in(coordinator.live, "neighbour")
        await neighbour.send(type="get_tournament", tournament_id=tid, ref="e")
        refused = await neighbour.until("tournament", "error")
        assert refused["type"] == "error" and refused["code"] == "rate_limited", refused
