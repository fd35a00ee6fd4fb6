"""The lobby's daily desk: today's deal, each player's one attempt, and the day's end.

Synchronous and without I/O, like the lobby it belongs to, and it does not hold
the lobby: it reads the rooms, and its steps return a
:class:`~server.requests.DeskResult` whose requests (open an attempt's room, lift
an embargo in a room) the lobby carries out after the step. It knows the secrets
storage holds (:meth:`DailyDesk.load_secrets`, fed by the shell's
:mod:`server.shell.daily_keeper`: a commitment is published only once its secret
is stored), the attempts of the
days it keeps (today, yesterday and any day whose embargo is not lifted yet)
and every player's streak.

* ``play_daily`` asks for a solo room on today's secret, under the day's embargo,
  started at once; once the lobby has opened it, the attempt is recorded
  (``DailyAttemptBegan``, :meth:`DailyDesk.opened`) with the room's first events,
  so it is counted, and a second one refused (``daily_played``), from the moment
  it is acknowledged.
* The desk screens the commands sent to an attempt's room (no rematch, no bot,
  no spectator) and hears when an attempt's deal is over.
* When a day is over and none of its attempts is still being played, it lifts
  the day's embargo (a stored ``EmbargoLifted``): the day's secret and deal are
  shown from then on, on every surface.

One desk decides for the whole server (its :class:`Role`). On a cluster of
nodes every node has one, and only the coordinator's runs: the others stand
by (their nodes forward ``play_daily`` and ``get_daily`` to the coordinator),
and a node that takes the coordinator's work over reads the desk again from
storage (:meth:`DailyDesk.reload`) before it answers, then checks the days'
ends once the attempts in play are resumed in its lobby (:meth:`DailyDesk.resumed`).

What time it is for the daily deal is ``calendar(now_ms)``: the server's clock
in the server; a test gives the app a calendar of its own (server.shell.app.create_app).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence

from engine.deal import commitment
from protocol.daily import Daily, DailyCommitment, GetDaily, PlayDaily
from protocol.fields import Pace, PlayerInfo, Visibility
from protocol.rooms import AddBot, JoinRoom, Rematch, RoomOrigin
from protocol.wire import ClientMessage
from server import errors
from server.daily import days
from server.daily.standings import Streak
from server.daily.views import Attempt, DayFacts, Streaks, daily, schedule_entry
from server.events import DailyAttemptBegan, EmbargoLifted, Event, MatchEnded
from server.requests import DeskResult, LiftEmbargo, OpenDailyAttempt
from server.room import Outbound, Phase, Room, RoomSettings

Calendar = Callable[[int], int]  # the server's time -> the daily deal's time (ms)


def wall(now_ms: int) -> int:
    return now_ms


class Role(enum.Enum):
    """Whose decisions this desk makes."""

    RUNNING = "running"  # it answers and checks the days' ends: the server's one desk
    RESUMING = "resuming"  # read again (a takeover): it answers; the days' ends wait for
    # the attempts in play to be back in the lobby (resumed)
    STANDBY = "standby"  # another node's desk decides (a cluster's coordinator's)


class DailyDesk:
    def __init__(self, rooms: Mapping[str, Room], calendar: Calendar | None = None) -> None:
        self.rooms = rooms  # the lobby's, read only: is an attempt still in play?
        self.calendar = calendar or wall
        self.secrets: dict[int, str] = {}  # day -> its secret, as stored
        self.revealed: set[int] = set()  # days whose embargo is lifted
        self.attempts: dict[int, dict[str, Attempt]] = {}  # day -> player id -> attempt
        self._by_room: dict[str, Attempt] = {}  # attempts still kept, by room id
        self.streaks: dict[str, Streak] = {}
        self._checked: int | None = None  # the day the end-of-day check last ran for
        self._closing: set[int] = set()  # days over, their embargo not yet lifted
        self.role = Role.RUNNING

    def today(self, now_ms: int) -> int:
        return days.day_number(self.calendar(now_ms))

    # ------------------------------------------------------------------
    # What storage holds (at start, and as the keeper stores more secrets)

    def load_secrets(self, stored: Mapping[int, str], lifted: set[int]) -> None:
        """The secrets storage holds (day -> secret) and the days whose embargo was lifted."""
        self.secrets.update(stored)
        self.revealed |= lifted
        self._checked = None  # look at the days again

    def load_attempts(self, attempts: Sequence[Attempt], played: Sequence[tuple[str, int]]) -> None:
        """The attempts of the days kept, and every (player id, day) played, for streaks."""
        for attempt in attempts:
            self._keep(attempt)
        for pid, day in sorted(played, key=lambda p: p[1]):
            self._count(pid, day)

    def reload(
        self,
        stored: Mapping[int, str],
        lifted: set[int],
        attempts: Sequence[Attempt],
        played: Sequence[tuple[str, int]],
    ) -> None:
        """Everything this desk knew replaced by what storage holds now (a takeover:
        another desk decided meanwhile). It answers from now on; the days' ends are
        checked once :meth:`resumed` says the attempts in play are back."""
        self.attempts.clear()
        self._by_room.clear()
        self.streaks.clear()
        self._closing.clear()
        self.load_secrets(stored, lifted)
        self.load_attempts(attempts, played)
        self.role = Role.RESUMING

    def standby(self) -> None:
        """Another desk decides (a cluster's coordinator's): this one neither answers
        nor checks the days' ends until it is read again (:meth:`reload`)."""
        self.role = Role.STANDBY

    @property
    def standing_by(self) -> bool:
        return self.role is Role.STANDBY

    def _keep(self, attempt: Attempt) -> None:
        self.attempts.setdefault(attempt.day, {})[attempt.player.id] = attempt
        self._by_room[attempt.room_id] = attempt

    def _count(self, player_id: str, day: int) -> None:
        found = self.streaks.get(player_id)
        if found is None:
            self.streaks[player_id] = Streak.of([day])
        else:
            found.add(day)

    # ------------------------------------------------------------------
    # Commands

    def handle(self, player: PlayerInfo, message: ClientMessage, now_ms: int) -> DeskResult:
        if self.role is Role.STANDBY:
            raise errors.DailyUnavailable(
                "the daily deal is moving to another server node: try again in a moment"
            )
        if isinstance(message, PlayDaily):
            return DeskResult(requests=[self._play(player, message, now_ms)])
        assert isinstance(message, GetDaily)
        return DeskResult([Outbound((player.id,), self.view(player, message, now_ms))])

    def view(self, player: PlayerInfo | None, asked: GetDaily, now_ms: int) -> Daily:
        """The ``daily`` message of the day asked (today unless said), for ``player``
        (None: for anyone). DailyNotFound for a day the desk does not keep."""
        today = self.today(now_ms)
        try:
            day = days.asked(asked.day, today)
        except ValueError as exc:
            raise errors.DailyNotFound(f"no daily deal on that day: {exc}") from None
        if day < today - 1:
            raise errors.DailyNotFound(
                f"the lobby keeps today and yesterday: ask GET /api/daily/{days.day_name(day)}"
            )
        facts = self.facts(day, today)
        if facts.commitment is None and not facts.attempts:
            raise errors.DailyNotFound(days.no_deal(day))
        held = None
        if player is not None:
            found = self.streaks.get(player.id)
            current, longest = found.held(today) if found else (0, 0)
            held = Streaks(current=current, longest=longest)
        return daily(
            facts,
            top=asked.top,
            now_ms=self.calendar(now_ms),
            player_id=player.id if player else None,
            may_play=player is not None and not player.guest,
            held=held,
            ref=asked.ref,
        )

    def facts(self, day: int, today: int) -> DayFacts:
        kept = list(self.attempts.get(day, {}).values())
        streaks = {}
        for a in kept:
            found = self.streaks.get(a.player.id)
            streaks[a.player.id] = Streaks(on_day=found.on(day) if found else 1)
        secret = self.secrets.get(day)
        return DayFacts(
            day=day,
            today=today,
            secret=secret,
            commitment=commitment(secret) if secret else None,
            revealed=day in self.revealed,
            attempts=kept,
            streaks=streaks,
            schedule=self.schedule(today),
        )

    def schedule(self, today: int) -> list[DailyCommitment]:
        """Yesterday, today and the next AHEAD days, as far as their secrets are stored."""
        return [
            schedule_entry(d, self.secrets[d], commitment(self.secrets[d]), d in self.revealed)
            for d in range(today - 1, today + days.AHEAD + 1)
            if d in self.secrets
        ]

    def _play(self, player: PlayerInfo, msg: PlayDaily, now_ms: int) -> OpenDailyAttempt:
        if player.guest:
            raise errors.DailyRegisteredOnly(
                "the daily deal is for registered players (one attempt each): register a name"
            )
        today = self.today(now_ms)
        name = days.day_name(today)
        mine = self.attempts.get(today, {}).get(player.id)
        if mine is not None:
            where = " (it is still being played: rejoin it)" if not mine.finished else ""
            raise errors.DailyPlayed(
                f"you have begun today's deal ({name}) already{where}: one attempt a day"
            )
        secret = self.secrets.get(today)
        if secret is None:
            raise errors.DailyUnavailable(f"the deal of {name} is not ready yet: try again soon")
        settings = RoomSettings(
            name=f"daily deal {name}",
            visibility=Visibility.PRIVATE,
            seats=1,
            pace=msg.pace,
            card_clock_ms=msg.card_clock_ms,
            deal_clock_ms=msg.deal_clock_ms,
            best_of=1,
            rated=False,
            origin=RoomOrigin.DAILY,
        )
        return OpenDailyAttempt(
            today, settings, player, days.contribution(today), secret, days.embargo(today), msg.ref
        )

    def opened(self, asked: OpenDailyAttempt, room: Room, now_ms: int) -> DailyAttemptBegan:
        """The lobby opened the room of an attempt this desk asked for: the attempt is
        kept and counted; what to store of it (after the room's own events)."""
        player, settings = asked.player, asked.settings
        attempt = Attempt(asked.day, player, room.id, room.series.id, settings.pace, now_ms)
        self._keep(attempt)
        self._count(player.id, asked.day)
        race = settings.pace == Pace.RACE
        return DailyAttemptBegan(
            day=days.day_name(asked.day),
            player_id=player.id,
            room_id=room.id,
            match_id=room.series.id,
            pace=settings.pace,
            clock_ms=settings.deal_clock_ms if race else settings.card_clock_ms,
            at_ms=now_ms,
        )

    def screen(self, room: Room, message: ClientMessage) -> None:
        """A command for an attempt's room: refused if the daily deal does not allow it."""
        if isinstance(message, Rematch):
            raise errors.DailyPlayed("one attempt a day: the daily deal has no rematch")
        if isinstance(message, AddBot):
            raise errors.DailySolo("the daily deal is played alone")
        if isinstance(message, JoinRoom) and message.spectate:
            raise errors.DailySolo("an attempt at the daily deal is played alone, unwatched")

    # ------------------------------------------------------------------
    # Rooms and the clock

    def room_event(self, room: Room, event: Event) -> None:
        """An event of an attempt's room: its deal is over, with its score."""
        attempt = self._by_room.get(room.id)
        if attempt is None or not isinstance(event, MatchEnded):
            return
        for outcome in event.outcomes:
            if outcome.player_id == attempt.player.id:
                attempt.score = outcome.score
                attempt.time_used_ms = outcome.time_used_ms
                attempt.cells = tuple(c or None for c in outcome.cells)

    def resumed(self, now_ms: int) -> DeskResult:
        """After a restart (a takeover), once every series that could be is rebuilt:
        look at the days again. A desk standing by goes on standing by."""
        if self.role is Role.STANDBY:
            return DeskResult()
        self.role = Role.RUNNING
        self._checked = None
        return self.tick(now_ms)

    def _in_play(self, day: int) -> bool:
        for attempt in self.attempts.get(day, {}).values():
            room = self.rooms.get(attempt.room_id)
            if room is not None and room.phase != Phase.FINISHED:
                return True
        return False

    def tick(self, now_ms: int) -> DeskResult:
        """A day over, with no attempt of it still in play: its embargo is lifted (stored),
        and each of its rooms still here is asked to show what it held back."""
        result = DeskResult()
        if self.role is not Role.RUNNING:
            return result  # another desk decides, or the attempts in play are not back yet
        today = self.today(now_ms)
        if today == self._checked and not self._closing:
            return result
        if today != self._checked:
            self._checked = today
            ended = {d for d in (*self.secrets, *self.attempts) if d < today}
            self._closing |= ended - self.revealed
        for day in sorted(self._closing):
            if self._in_play(day):
                continue
            self._closing.discard(day)
            self.revealed.add(day)
            group = days.embargo(day)
            result.events.append(EmbargoLifted(embargo=group, at_ms=now_ms))
            result.requests += [
                LiftEmbargo(a.room_id, group)
                for a in self.attempts.get(day, {}).values()
                if a.room_id in self.rooms
            ]
        self._forget_before(today - 1)
        return result

    def _forget_before(self, day: int) -> None:
        """Attempts of days before ``day`` whose embargo is lifted leave memory (the
        HTTP API reads them from the database)."""
        for old in [d for d in self.attempts if d < day and d in self.revealed]:
            for attempt in self.attempts.pop(old).values():
                self._by_room.pop(attempt.room_id, None)
        for old in [d for d in self.secrets if d < day and d in self.revealed]:
            del self.secrets[old]
