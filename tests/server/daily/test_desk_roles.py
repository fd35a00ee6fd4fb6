"""The daily desk's roles, driven directly (no sockets): a desk standing by (a cluster
node that does not coordinate) neither answers nor ends a day; a desk read again from
storage (a takeover) answers at once from what is stored, and ends a day only once
the attempts in play are resumed."""

from __future__ import annotations

import pytest

from protocol.daily import Daily, GetDaily, PlayDaily
from protocol.fields import Pace, PlayerInfo
from server import errors
from server.config import LobbyConfig
from server.daily.desk import Role
from server.daily.views import Attempt
from server.events import DailyAttemptBegan, EmbargoLifted, Event
from server.lobby import Lobby
from server.requests import DeskResult
from server.step import StepOutput
from tests.server.test_embargo_sweep import DAY_MS, NOON, Calendar

TODAY = NOON // DAY_MS
ADA = PlayerInfo(id="p-ada", name="ada")
BO = PlayerInfo(id="p-bo", name="bo")
SECRETS = {TODAY - 1: "aa" * 32, TODAY: "bb" * 32}


def lifted(events: list[Event]) -> list[str]:
    return [e.embargo for e in events if isinstance(e, EmbargoLifted)]


def test_a_desk_standing_by_neither_answers_nor_ends_a_day() -> None:
    calendar = Calendar()
    lobby = Lobby(LobbyConfig(), daily_calendar=calendar)
    desk = lobby.daily
    desk.load_secrets(SECRETS, set())
    desk.standby()
    assert desk.standing_by
    for asked in (GetDaily(), PlayDaily(pace=Pace.RACE)):
        with pytest.raises(errors.DailyUnavailable, match="moving to another server node"):
            lobby.run(lambda: lobby.handle(ADA, asked, NOON))  # noqa: B023
    assert not lobby.rooms and lobby.run(list) == StepOutput([], [])
    calendar.ms += DAY_MS  # yesterday and today over, nothing in play: still nothing lifted
    assert desk.tick(NOON) == DeskResult()
    assert lobby.run(lambda: lobby.daily_resumed(NOON)) == StepOutput([], [])
    assert desk.role is Role.STANDBY


def test_a_desk_read_again_answers_from_storage_and_ends_days_once_resumed() -> None:
    calendar = Calendar()
    lobby = Lobby(LobbyConfig(), daily_calendar=calendar)
    desk = lobby.daily
    desk.load_secrets(SECRETS, set())
    # bo's attempt is known to this desk only: not stored
    played = lobby.run(lambda: lobby.handle(BO, PlayDaily(pace=Pace.RACE), NOON))
    assert [type(e) for e in played.events].count(DailyAttemptBegan) == 1
    desk.standby()
    # What storage holds: ada's attempt of today, finished (another node's desk decided it).
    stored = Attempt(TODAY, ADA, "r-ada", "m-ada", Pace.LOCKSTEP, NOON, score=24,
                     time_used_ms=9_000, cells=("5H",) * 16)  # fmt: skip
    desk.reload(SECRETS, set(), [stored], [(ADA.id, TODAY - 1), (ADA.id, TODAY)])
    assert desk.role is Role.RESUMING
    with pytest.raises(errors.DailyPlayed):
        lobby.handle(ADA, PlayDaily(pace=Pace.RACE), NOON)
    (out,) = lobby.handle(BO, GetDaily(), NOON)
    view = out.message
    assert isinstance(view, Daily)
    assert [e.player.id for e in view.standings] == [ADA.id]  # bo's unstored attempt is gone
    assert view.standings[0].streak == 2 and view.you is not None
    assert view.you.status == "none"
    calendar.ms += DAY_MS
    assert desk.tick(NOON) == DeskResult()  # attempts not resumed yet: nothing lifted
    resumed = lobby.run(lambda: lobby.daily_resumed(NOON))
    assert desk.role is Role.RUNNING
    assert sorted(lifted(resumed.events)) == ["daily/2024-10-03", "daily/2024-10-04"]
