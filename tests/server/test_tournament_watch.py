"""Watching a tournament's table by its room id: anyone for a public
tournament, only its members for a private one; a watcher sees counts, then
the result once the round is over, never a board before it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.server.live import Client, running_server, signed_in


async def _table(live, visibility: str):
    host = await signed_in(live, f"host-{visibility}")
    await host.send(type="create_tournament", name="Field", rounds=1, visibility=visibility)
    info = (await host.until("tournament"))["tournament"]
    player = await signed_in(live, f"pat-{visibility}")
    where = (
        {"invite_code": info["invite_code"]}
        if visibility == "private"
        else {"tournament_id": info["id"]}
    )
    await player.send(type="join_tournament", contribution="pat", **where)
    await player.until("tournament")
    await host.send(type="add_tournament_bot", tournament_id=info["id"])
    await host.until("tournament")
    await host.send(type="manage_tournament", tournament_id=info["id"], action="start")
    room = (await player.until("room_state"))["room"]
    return host, player, info, room


async def watch_to_the_result(fan: Client, result: dict[str, Any]) -> None:
    """The round's deal is shown to a watcher once every table of the round has
    finished (docs/fairness.md, Who sees a deal): a ``match_result``, or a
    ``room_state`` with the result; never a card or a placement before it."""
    seen = []
    while True:
        message = await fan.recv(timeout=20)
        seen.append(message["type"])
        if message["type"] == "match_result" or (
            message["type"] == "room_state" and message["result"] is not None
        ):
            break
    assert "card" not in seen and "placed" not in seen
    shown = message if message["type"] == "match_result" else message["result"]
    assert shown["seed"] == result["seed"]


async def members_only(
    host: Client, stranger: Client, info: dict[str, Any], room: dict[str, Any]
) -> None:
    """A private tournament's table: a stranger may not watch it until it has
    joined the tournament as a spectator (by its invite code); its host may."""
    await stranger.send(type="join_room", room_id=room["id"], spectate=True)
    await stranger.error("room_not_found")
    await stranger.send(type="join_tournament", invite_code=info["invite_code"], spectate=True)
    await stranger.until("tournament")
    await stranger.send(type="join_room", room_id=room["id"], spectate=True)
    assert (await stranger.until("room_state"))["room"]["id"] == room["id"]
    await host.send(type="join_room", room_id=room["id"], spectate=True)
    assert (await host.until("room_state"))["room"]["id"] == room["id"]


async def test_anyone_may_watch_a_public_tournaments_table(tmp_path: Path) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        host, player, _info, room = await _table(live, "public")
        assert room["visibility"] == "private" and room["origin"] == "tournament"
        fan = await signed_in(live, "fan")
        await fan.send(type="join_room", room_id=room["id"])  # a seat: no
        await fan.error("room_not_found")
        await fan.send(type="join_room", room_id=room["id"], spectate=True, ref="w")
        state = await fan.until("room_state")
        assert state["ref"] == "w" and state["you"] is None and state["result"] is None
        result = await player.play_to_end(room["id"])
        await watch_to_the_result(fan, result)
        for c in (host, player, fan):
            await c.close()


async def test_a_private_tournaments_tables_are_for_its_members(tmp_path: Path) -> None:
    async with running_server(tmp_path / "db.sqlite") as live:
        host, player, info, room = await _table(live, "private")
        stranger = await signed_in(live, "stranger")
        await members_only(host, stranger, info, room)
        for c in (host, player, stranger):
            await c.close()
