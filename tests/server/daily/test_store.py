"""The daily deal's tables on both engines: a day's secret is written once, never
replaced, and what the desk and /api/daily read back."""

from __future__ import annotations

from engine.deal import commitment
from server import visibility
from server.daily.days import day_name
from server.events import EmbargoLifted
from server.records import Draw
from server.storage import Storage
from tests.server.stores import StoreUnderTest

TODAY = 20_000  # a day number (days since 1970-01-01, UTC)


async def test_secrets_are_written_once_and_read_back_on_either_store(
    store: StoreUnderTest,
) -> None:
    storage = await Storage.open(store.target, opened_ms=0)
    await storage.draw_daily(Draw(((TODAY - 1, "a" * 64), (TODAY, "b" * 64)), 1))
    # Drawn again (another server, a restart): what is stored stays the day's.
    await storage.draw_daily(Draw(((TODAY, "c" * 64), (TODAY + 1, "d" * 64)), 2))
    secrets, lifted = await storage.daily_secrets(TODAY)
    assert secrets == {TODAY: "b" * 64, TODAY + 1: "d" * 64} and lifted == set()
    await storage.persist([EmbargoLifted(visibility.daily_embargo(day_name(TODAY - 1)), 3)])
    state = await storage.daily_state(TODAY)
    assert state.lifted == {TODAY - 1} and state.secrets[TODAY] == "b" * 64
    facts = await storage.daily_day(TODAY, TODAY)
    assert facts.secret == "b" * 64 and facts.commitment == commitment("b" * 64)
    assert not facts.revealed and facts.attempts == []
    yesterday, today, tomorrow = facts.schedule[:3]
    assert [e.day for e in (yesterday, today, tomorrow)] == [
        day_name(TODAY - 1), day_name(TODAY), day_name(TODAY + 1)
    ]  # fmt: skip
    # Only a day whose embargo is lifted shows its secret.
    assert (yesterday.secret, today.secret, tomorrow.secret) == ("a" * 64, None, None)
    await storage.close()
