"""Hub.apply: nothing is sent before what it tells is stored, and messages keep the
order their steps were taken in, also for the steps that store nothing (a clock
tick's progress, a ready), which skip the writer when no step waits before them."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from protocol.connection import Pong
from server import errors
from server.config import ServerConfig
from server.events import CardPlaced, Event
from server.lobby import Lobby
from server.room import Outbound
from server.shell.hub import Hub
from server.step import StepFailed, StepOutput
from server.storage import WriteFailed


class HeldStore:
    """A store whose commits the test resolves (or fails) by hand."""

    failing: str | None = None
    on_lost = None

    def __init__(self) -> None:
        self.writes: list[tuple[list[Event], asyncio.Future[None]]] = []

    def persist(self, events: Sequence[Event]) -> asyncio.Future[None]:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.writes.append((list(events), future))
        return future


class Inbox:
    def __init__(self) -> None:
        self.texts: list[str] = []

    def send(self, text: str) -> None:
        self.texts.append(text)


def placed_event(turn: int) -> CardPlaced:
    return CardPlaced("m1", "p1", turn, "a1", "5H", 10, False, 1_000)


def setup() -> tuple[Hub, HeldStore, Inbox]:
    store = HeldStore()
    lobby = Lobby()
    # A step here is a stand-in: it says which events it decided (see step below).
    lobby.run = lambda produce: produce()  # type: ignore[assignment, method-assign, return-value]
    hub = Hub(ServerConfig(), store, lobby)  # type: ignore[arg-type]
    inbox = Inbox()
    hub.delivery.by_player["p1"] = {inbox}  # type: ignore[arg-type]
    return hub, store, inbox


def step(hub: Hub, ref: str, events: Sequence[Event] = ()):  # type: ignore[no-untyped-def]
    def produce() -> StepOutput:
        return StepOutput(list(events), [], None, [Outbound(("p1",), Pong(ref=ref))])

    return produce


async def place_then_tick(hub: Hub) -> tuple[asyncio.Task[None], asyncio.Task[None]]:
    """A placement's step, then a tick's that stores nothing, both under way."""
    first = asyncio.create_task(hub.apply(step(hub, "place", [placed_event(1)])))
    await asyncio.sleep(0)
    second = asyncio.create_task(hub.apply(step(hub, "tick")))
    await asyncio.sleep(0)
    return first, second


def refs(inbox: Inbox) -> list[str]:
    return [text.split('"ref":"')[1].split('"')[0] for text in inbox.texts]


async def test_a_step_that_stores_nothing_with_nothing_before_it_is_sent_at_once() -> None:
    hub, store, inbox = setup()
    async with asyncio.timeout(5):  # the store resolves nothing by itself
        await hub.apply(step(hub, "tick"))
    assert refs(inbox) == ["tick"]
    assert store.writes == []  # the writer was not asked to commit an empty list


async def test_a_step_that_stores_something_waits_for_its_commit() -> None:
    hub, store, inbox = setup()
    task = asyncio.create_task(hub.apply(step(hub, "place", [placed_event(1)])))
    await asyncio.sleep(0)
    assert len(store.writes) == 1 and store.writes[0][0] == [placed_event(1)]
    assert inbox.texts == []  # not acknowledged before it is stored
    store.writes[0][1].set_result(None)
    await task
    assert refs(inbox) == ["place"]


async def test_a_step_that_stores_nothing_waits_behind_an_earlier_uncommitted_one() -> None:
    hub, store, inbox = setup()
    first, second = await place_then_tick(hub)
    assert inbox.texts == []  # the tick's messages do not overtake the placement's
    assert [events for events, _ in store.writes] == [[placed_event(1)], []]
    for _, future in store.writes:
        future.set_result(None)
    await asyncio.gather(first, second)
    assert refs(inbox) == ["place", "tick"]
    # Once nothing is waiting, an empty step goes straight out again.
    async with asyncio.timeout(5):
        await hub.apply(step(hub, "later"))
    assert refs(inbox) == ["place", "tick", "later"] and len(store.writes) == 2


async def test_a_lost_write_sends_nothing_of_it_nor_of_the_empty_step_behind_it() -> None:
    hub, store, inbox = setup()
    first, second = await place_then_tick(hub)
    for _, future in store.writes:  # as Storage fails what waited behind a lost write
        future.set_exception(WriteFailed("disk I/O error"))
    for task in (first, second):
        with pytest.raises(errors.StorageFailed):
            await task
    assert inbox.texts == []
    async with asyncio.timeout(5):
        await hub.apply(step(hub, "after"))  # nothing waits any more
    assert refs(inbox) == ["after"]


async def test_a_step_a_bug_cut_short_is_stored_then_its_bug_raised() -> None:
    """What a failed step decided leaves with it (StepFailed), stored at once: the
    next step carries nothing of it, and the caller sees the bug itself."""
    hub, store, inbox = setup()
    bug = KeyError("a bug")

    def produce() -> StepOutput:
        failed = StepFailed(StepOutput([placed_event(1)], [], None, []))
        raise failed from bug

    task = asyncio.create_task(hub.apply(produce))
    await asyncio.sleep(0)
    assert [events for events, _ in store.writes] == [[placed_event(1)]]
    store.writes[0][1].set_result(None)
    with pytest.raises(KeyError) as raised:
        await task
    assert raised.value is bug and inbox.texts == []  # it sent nothing: it returned nothing
