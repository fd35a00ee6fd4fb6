"""The building blocks of the limits, driven directly: listings, quotas, the lobby's
holdings and expiry (the live tests are test_quotas.py and test_fanout_and_expiry.py)."""

from __future__ import annotations

import pytest

from protocol.rooms import CreateRoom, LeaveRoom, ListRooms, Rooms
from server import errors
from server.config import LobbyConfig
from server.cursors import Seal
from server.limits import Quota, QuotaBook, Quotas, quota_key
from server.listing import BadCursor, Listing
from server.lobby import Lobby
from tests.server.roomkit import ALICE, BOB, CAROL, FixedIds, bots


def test_a_listing_pages_in_order_and_keeps_its_place_as_items_come_and_go() -> None:
    listing: Listing[str] = Listing()
    for n in range(10):
        listing.add(f"k{n}", f"v{n}")
    page, after = listing.page(None, 4)
    assert page == ["v0", "v1", "v2", "v3"] and after is not None
    listing.discard("k2")  # before the cursor
    listing.discard("k5")  # after it
    listing.add("k10", "v10")
    page, after = listing.page(after, 4)
    assert page == ["v4", "v6", "v7", "v8"]
    page, after = listing.page(after, 4)
    assert page == ["v9", "v10"] and after is None
    assert len(listing) == 9 and "k5" not in listing
    listing.add("k4", "v4 again")  # already listed: keeps its place
    assert listing.page(None, 3)[0] == ["v0", "v1", "v3"]
    assert listing.page(None, 100)[0][3] == "v4 again"
    with pytest.raises(BadCursor):
        listing.page("x", 3)


def test_quotas_are_token_buckets_with_text_forms() -> None:
    assert Quota.parse("60/min") == Quota(60, 60) and str(Quota(20, 3600)) == "20/h"
    assert repr(Quota.parse(" 5 / day ")) == "Quota.parse('5/day')"
    for bad in ("60", "x/min", "5/week", "0/s", "-1/h"):
        with pytest.raises(ValueError):
            Quota.parse(bad)
    book = QuotaBook(Quota(2, 1), max_keys=3)
    assert [book.take("a", 0) for _ in range(3)] == [0.0, 0.0, 0.5]
    assert book.take("a", 500) == 0.0  # refilled one
    for key in "bcd":
        book.take(key, 500)
    assert len(book) == 3  # "a", the least recently used, went first
    book.forget_full(10_000)
    assert len(book) == 0


def test_quotas_name_the_quota_and_spare_the_account_when_the_address_refuses() -> None:
    quotas = Quotas({"room": ("rooms created", Quota(1, 60), Quota(5, 60))}, 100)
    assert quotas.take("room", "1.2.3.4", "p-1", 0) is None
    refused = quotas.take("room", "1.2.3.4", "p-1", 0)
    assert refused is not None and refused.wait_s == 60
    assert refused.reason == (
        "too many rooms created from your address: at most 1/min; try again in 60 s"
    )
    for _ in range(4):  # the refusal above spent nothing of p-1's
        assert quotas.take("room", f"5.6.7.{_}", "p-1", 0) is None
    refused = quotas.take("room", "9.9.9.9", "p-1", 0)
    assert refused is not None and "from you:" in refused.reason


def test_an_ipv6_address_counts_as_its_64() -> None:
    assert quota_key("2001:db8:1:2:aaaa::1") == quota_key("2001:db8:1:2:bbbb::2")
    assert quota_key("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    assert quota_key("::ffff:192.0.2.7") == "192.0.2.7"
    assert quota_key("192.0.2.7") == "192.0.2.7" and quota_key("?") == "?"


def make_lobby(**config: int) -> Lobby:
    return Lobby(LobbyConfig(**config), ids=FixedIds(), bots=bots)


def create(lobby: Lobby, who=ALICE, now: int = 0, **fields) -> str:  # type: ignore[no-untyped-def]
    state = lobby.handle(who, CreateRoom(name="r", **fields), now)[0].message
    return state.room.id  # type: ignore[attr-defined]


def test_rooms_held_open_are_counted_per_address_without_scanning() -> None:
    lobby = make_lobby(max_waiting_rooms_per_address=2, max_waiting_rooms=3)
    for p in (ALICE, BOB, CAROL):
        lobby.connect(p, 0, address="10.0.0.1")
    first = create(lobby, ALICE)
    create(lobby, BOB)
    with pytest.raises(errors.LimitReached, match="your address already has 2"):
        create(lobby, CAROL)
    lobby.handle(ALICE, LeaveRoom(room_id=first), 0)  # closed: no longer held
    create(lobby, CAROL)
    lobby.connect(ALICE, 0, address="10.0.0.2")
    create(lobby, ALICE)  # another address: its own count
    assert lobby.held("*", "waiting") == 3
    with pytest.raises(errors.LimitReached, match="the server has 3"):
        create(lobby, ALICE)


def test_a_cursor_is_one_the_listing_gave_or_it_is_refused() -> None:
    listing: Listing[str] = Listing()
    for n in range(5):
        listing.add(f"k{n}", f"v{n}")
    _, after = listing.page(None, 2)
    assert after is not None and listing.page(after, 2)[0] == ["v2", "v3"]
    other: Listing[str] = Listing()  # another server, or this one before a restart
    for n in range(5):
        other.add(f"k{n}", f"v{n}")
    _, theirs = other.page(None, 2)
    position, mark = after.split(".")
    # A mark one digit off (its upper case may be itself: a mark of digits alone, 1 in 280).
    off = mark[:-1] + ("1" if mark.endswith("0") else "0")
    for forged in (theirs, position, "99999999999999999999999999", "-1", f"3.{mark}",
                   f"0{position}.{mark}", f"{position}.{off}", "", "x" * 32):  # fmt: skip
        with pytest.raises(BadCursor):
            listing.page(forged, 2)
    with pytest.raises(ValueError):
        Seal().give(-1)


def test_a_waiting_room_expires_and_leaves_the_listing() -> None:
    lobby = make_lobby(waiting_room_ttl_ms=1_000)
    room_id = create(lobby)
    listed = lobby.handle(BOB, ListRooms(), 0)[0].message
    assert isinstance(listed, Rooms) and listed.total == 1
    assert lobby.tick(999) == []
    outs = lobby.tick(1_000)
    assert [(o.to, o.message.type) for o in outs] == [((ALICE.id,), "left")]
    assert room_id not in lobby.rooms and len(lobby.listed) == 0
    assert lobby.held(ALICE.id, "waiting") == 0
