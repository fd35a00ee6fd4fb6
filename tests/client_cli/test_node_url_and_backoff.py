"""The pure parts of following a node hint and of backing off: the URL's ``node``
and the loop guard (client_cli/nodes.py), the drop notices' back-off
(client_cli/flood.py)."""

from __future__ import annotations

from client_cli.flood import BACKOFF_S, Flood, is_drop_notice
from client_cli.nodes import MAX_MOVES, MOVES_WINDOW_S, Moves, node_of, with_node
from protocol.connection import ErrorMessage, Pong

DROPPED = ErrorMessage(code="rate_limited", reason="more than 20 frames per second")


def test_the_node_is_set_in_place_of_any_and_the_other_parameters_are_kept() -> None:
    assert with_node("ws://h:1/ws", "n1") == "ws://h:1/ws?node=n1"
    url = with_node("wss://h/play/ws?lang=fr&node=n0&x=&node=n9", "n-2_b")
    assert url == "wss://h/play/ws?lang=fr&x=&node=n-2_b"
    assert node_of(url) == "n-2_b" and node_of("ws://h/ws?lang=fr") is None


def test_a_hint_for_the_node_named_already_or_past_the_minutes_moves_is_not_followed() -> None:
    moves = Moves()
    assert not moves.follow("ws://h/ws?node=n1", "n1", 0.0)
    for i in range(MAX_MOVES):
        assert moves.follow(f"ws://h/ws?node=n{i}", f"n{i + 1}", float(i))
    assert not moves.follow("ws://h/ws?node=n3", "n4", 10.0)
    assert moves.follow("ws://h/ws?node=n3", "n4", MOVES_WINDOW_S + 0.5)  # the first aged out


def test_notices_in_a_row_lengthen_the_wait_and_a_refusal_is_no_notice() -> None:
    flood = Flood()
    assert flood.quiet_s(5.0) == 0.0
    assert not flood.heard(Pong(), 0.0)
    assert not flood.heard(DROPPED.model_copy(update={"ref": "c4"}), 0.0)  # a quota: a refusal
    assert is_drop_notice(DROPPED) and flood.heard(DROPPED, 100.0)
    assert flood.wait_s == BACKOFF_S[0] and flood.quiet_s(100.25) == 0.75
    assert flood.calm_at() == 101.0
    flood.heard(DROPPED, 102.0)
    flood.heard(DROPPED, 105.0)
    flood.heard(DROPPED, 110.0)
    assert flood.wait_s == BACKOFF_S[-1]  # 4 s at most
    flood.heard(DROPPED, 200.0)  # long after: a first notice again
    assert flood.wait_s == BACKOFF_S[0]
    flood.reset()
    assert flood.quiet_s(200.1) == 0.0
