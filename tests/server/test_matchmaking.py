"""The quick-play queue: windows widen with waiting; pairs are mutual and close."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from server.matchmaking import BASE_WINDOW, Queue, Ticket


def test_close_players_pair_at_once_far_ones_wait() -> None:
    q = Queue()
    q.join(Ticket("a", 1500, 0))
    q.join(Ticket("b", 1550, 0))
    q.join(Ticket("c", 1900, 0))
    assert [(x.player, y.player) for x, y in q.match(0)] == [("a", "b")]
    assert list(q.tickets) == ["c"]


def test_window_widens_until_far_players_meet() -> None:
    q = Queue()
    q.join(Ticket("a", 1500, 0))
    q.join(Ticket("c", 1800, 0))
    assert q.match(5_000) == []  # window 225 < 300
    assert len(q.match(8_000)) == 1  # window 300


def test_paces_never_mix_and_bots_come_after_the_wait() -> None:
    q = Queue()
    q.join(Ticket("a", 1500, 0, pace="race", bot_after_ms=10_000))
    q.join(Ticket("b", 1500, 0, pace="lockstep"))
    assert q.match(1_000) == []
    assert q.due_for_bot(9_999) == []
    assert [t.player for t in q.due_for_bot(10_000)] == ["a"]
    assert list(q.tickets) == ["b"]


@given(
    st.lists(st.tuples(st.floats(1000, 2200), st.integers(0, 60_000)), max_size=30),
    st.integers(0, 120_000),
)
def test_pairs_are_disjoint_and_within_both_windows(
    entries: list[tuple[float, int]], now: int
) -> None:
    q = Queue()
    for i, (rating, since) in enumerate(entries):
        q.join(Ticket(f"p{i}", rating, min(since, now)))
    pairs = q.match(now)
    seen = [p.player for pair in pairs for p in pair]
    assert len(seen) == len(set(seen))
    for a, b in pairs:
        gap = abs(a.rating - b.rating)
        assert gap <= a.window(now) and gap <= b.window(now)
        assert a.window(now) >= BASE_WINDOW
    assert len(q.tickets) + len(seen) == len(entries)


def test_of_two_tickets_of_the_same_millisecond_the_first_queued_takes_the_first_seat() -> None:
    q = Queue()
    q.join(Ticket("zed", 1500, 1_000))
    q.join(Ticket("amy", 1500, 1_000))
    ((first, second),) = q.match(1_000)
    assert (first.player, second.player) == ("zed", "amy")
