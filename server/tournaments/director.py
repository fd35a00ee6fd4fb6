"""A tournament director: one tournament's synchronous state machine. Pure.

Commands (register, withdraw, the host's bots and start, pause, resume, remove,
cancel), clock ticks and what its tables report (a deal ended, a table's
series ended) go in, each with the time in milliseconds. Out comes one
:class:`~server.tournaments.result.DirectorResult` per step: addressed messages
(:class:`server.room.Outbound`), storage events and requests of the tables'
rooms: open a table, stop the tables a round clock has overtaken, make a
withdrawn entrant leave its table, lift a round's embargo.
The lobby owns the rooms; the director only decides. A refused command raises a
:class:`server.errors.TournamentError` before changing anything.

The director is its state, queries and pushes to its members
(:mod:`server.tournaments.base`, its one base), a part that plays its rounds and
their tables, where the same deal is dealt to every table of a round
(:mod:`server.tournaments.rounds`), and, here, the entry points: the commands,
the clock, the tables' reports and what a restart needs.

Surviving a restart: whenever its state has changed, the director adds a
:class:`~server.events.TournamentSnapshot` (:meth:`Director.snapshot`, plain
JSON, the chain's last secret included) to its storage events, and a restarted
server rebuilds it from the latest one (:meth:`Director.restore`), on the same
chain, with its clocks moved on by the time it was away.

This module must never await, read a clock, or touch sockets or the database.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from protocol.fields import PlayerInfo
from protocol.tournaments import EntrantStatus, TableStatus
from server import errors
from server.events import TournamentChange, TournamentSnapshot, TournamentStatus
from server.recovery import Unresumable
from server.requests import Forfeit, OpenTable
from server.room import Outbound
from server.stepping import step
from server.tournaments.base import DirectorBase, Reply
from server.tournaments.model import Entrant, Phase, registration, require
from server.tournaments.result import DirectorResult
from server.tournaments.rounds import Rounds
from server.tournaments.snapshot import (
    SNAPSHOT_VERSION,
    EntrantRecord,
    RoundRecord,
    SettingsRecord,
    SnapshotRecord,
)

# A snapshot follows a change of shape (phase, round, entrants) at once; table
# results within a round at most this often (docs/tournaments.md, restart).
SNAPSHOT_INTERVAL_MS = 1_000


class Director(DirectorBase):
    """One tournament, from registration to its final standings: its state and
    queries are :class:`DirectorBase`'s, its rounds and tables are played by its
    part ``play`` (:class:`~server.tournaments.rounds.Rounds`), and this class
    holds the entry points."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.play = Rounds(self)

    # ------------------------------------------------------------------
    # What the clock and the tables set off (server.tournaments.rounds)

    @step(DirectorResult)
    def tick(self, now_ms: int) -> list[Outbound]:
        """Time passes: a scheduled start, the break between rounds, the round clock."""
        return self.play.tick(now_ms)

    def table_opened(self, round_number: int, table: int, room_id: str, series_id: str) -> None:
        """The lobby opened a table's room (:meth:`Rounds.table_opened`)."""
        self.play.table_opened(round_number, table, room_id, series_id)

    @step(DirectorResult)
    def deal_ended(self, room_id: str, scores: dict[str, int], now_ms: int) -> list[Outbound]:
        """A deal of a table's series is over: its scores count at once."""
        return self.play.deal_ended(room_id, scores, now_ms)

    def playing_tables(self) -> list[tuple[str, str]]:
        """(room id, series id) of every table still playing."""
        return self.play.playing_tables()

    @step(DirectorResult)
    def catch_up(
        self,
        room_id: str,
        deals: Sequence[Mapping[str, int]],
        finished: bool,
        winner_id: str | None,
        now_ms: int,
    ) -> list[Outbound]:
        """After a restart: a table's stored deals newer than the snapshot count now
        (:meth:`Rounds.catch_up`)."""
        return self.play.catch_up(room_id, deals, finished, winner_id, now_ms)

    @step(DirectorResult)
    def table_ended(self, room_id: str, winner_id: str | None, now_ms: int) -> list[Outbound]:
        """A table's series is over (``winner_id`` None: a draw)."""
        return self.play.table_ended(room_id, winner_id, now_ms)

    @step(DirectorResult)
    def tables_opened(self, now_ms: int) -> list[Outbound]:
        """The tables asked for are open: stored, and everyone told where they play."""
        return self.play.tables_opened(now_ms)

    @step(DirectorResult)
    def resumed(self, alive: Collection[str], now_ms: int) -> list[Outbound]:
        """After a restart, once the tables are rebuilt (:meth:`Rounds.resumed`)."""
        return self.play.resumed(alive, now_ms)

    def conclude(self, messages: list[Outbound]) -> DirectorResult:
        """A step's ``messages`` with everything it noted, as its one result; the
        director keeps nothing of it (server.stepping.step calls this for every entry
        point; the desk too, for a step a bug cut short). A snapshot ends the events
        if the state has changed, unless the step asked for tables to be opened: a
        snapshot has each table's room, so it waits for :meth:`tables_opened`. (The
        step's other requests are carried out in the same step of the lobby, whose
        events are stored together.)

        A snapshot is the whole tournament, so while only table results change
        (a round being played) one is taken at most every SNAPSHOT_INTERVAL_MS;
        :meth:`next_deadline` asks for a tick when a late one is due. Results that
        came after the last snapshot are in the tables' stored series, and a
        restart takes them from there (:meth:`catch_up`)."""
        at = self.step_at
        assert at is not None, "a director's step concludes at the time it was run"
        if not self.over and not any(isinstance(r, OpenTable) for r in self._requests):
            shape = self._shape()
            if shape != self.stored_shape or at - self.stored_at >= SNAPSHOT_INTERVAL_MS:
                self.snapshot_due = None
                state = self.snapshot()
                if state != self.stored:
                    self.stored, self.stored_shape, self.stored_at = state, shape, at
                    self.note(TournamentSnapshot(self.id, state, at))
            elif self.snapshot_due is None:
                self.snapshot_due = self.stored_at + SNAPSHOT_INTERVAL_MS
        result = DirectorResult(messages, self._events, self._requests)
        self._events, self._requests, self.step_at = [], [], None
        return result

    @step(DirectorResult)
    def opened(self, now_ms: int) -> list[Outbound]:
        """The tournament was just created: its creation is stored (and its snapshot)."""
        self.note(self.creation(now_ms))
        return []

    def _shape(self) -> tuple[object, ...]:
        """What a snapshot must not wait for: everything but results within a round."""
        return (
            self.phase,
            len(self.rounds),
            self.rounds[-1].finished if self.rounds else False,
            self.rounds[-1].stopped if self.rounds else False,
            self.next_at,
            tuple(e.status for e in self.entrants.values()),
        )

    # ------------------------------------------------------------------
    # Surviving a restart

    def snapshot(self) -> dict[str, object]:
        """Everything this director knows, as JSON, for :meth:`restore`. Spectators,
        the pending push and the command being answered are not kept: they
        belong to connections, which a restart closes."""
        return SnapshotRecord(
            version=SNAPSHOT_VERSION,
            id=self.id,
            settings=SettingsRecord.of(self.settings),
            host=self.host,
            invite_code=self.invite_code,
            root_secret=self.round_secrets[-1],
            chain=len(self.round_secrets),
            commitment=self.commitment,
            phase=self.phase,
            created_at=self.created_at,
            next_at=self.next_at,
            finished_at=self.finished_at,
            bots=self.bots_added,
            entrants=[EntrantRecord.of(e) for e in self.entrants.values()],
            rounds=[RoundRecord.of(r) for r in self.rounds],
            own=self.own.saved(),
        ).model_dump(mode="json")

    @classmethod
    def restore(
        cls,
        state: object,
        *,
        saved_ms: int,
        now_ms: int,
        room_activity: Mapping[str, int] | None = None,
        rating_of: Callable[[str], float] | None = None,
        known_strategy: Callable[[str], bool] | None = None,
        registration_ttl_ms: int = 0,
    ) -> Director:
        """Rebuild a director from its :meth:`snapshot` (stored at ``saved_ms``) after a
        restart. Trusted input: what this server stored; Unresumable if it is not whole.

        The round secrets are the same chain (its commitment is checked against
        the stored one). The server's time away is not charged to any clock: the
        round clock, the break before the next round and a scheduled start are
        moved on by the time from the last stored sign of life (the snapshot, or
        the latest placement or deal start at a table still playing,
        ``room_activity`` by room id) to ``now_ms``. A round whose clock had run
        out asks again for its tables still playing to be stopped.
        """
        saved = SnapshotRecord.read(state)
        director = cls(
            saved.id,
            saved.settings.settings(),
            saved.host,
            now_ms=saved.created_at,
            root_secret=saved.root_secret,
            invite_code=saved.invite_code,
            rating_of=rating_of,
            known_strategy=known_strategy,
            registration_ttl_ms=registration_ttl_ms,
        )
        if len(director.round_secrets) != saved.chain:
            raise Unresumable("the round secrets' chain has another length")
        if director.commitment != saved.commitment:
            raise Unresumable("the round secrets are not the committed chain")
        director.resume_in(saved.phase)
        director.next_at = saved.next_at
        director.finished_at = saved.finished_at
        director.bots_added = saved.bots
        for e in saved.entrants:
            director.entrants[e.player.id] = e.entrant()
        for rec in saved.rounds:
            if rec.number != len(director.rounds) + 1:
                raise Unresumable(f"round {rec.number} out of order")
            director.rounds.append(rec.round(director.round_secrets[rec.number - 1]))
        try:
            director.own = director.format.load(saved.own)
        except (TypeError, ValueError, KeyError) as exc:
            raise Unresumable(f"the format's own state: {exc!r}") from None
        for r in director.rounds:
            for t in r.tables:
                if t.status == TableStatus.PLAYING and t.room_id is not None:
                    director.tables_by_room[t.room_id] = (r, t)
        director.stored = director.snapshot()
        director.stored_shape = director._shape()
        director.stored_at = saved_ms
        # The clocks: the time the server was away is not charged.
        activity = room_activity or {}
        seen = max([saved_ms, *(activity.get(room, saved_ms) for room in director.tables_by_room)])
        away = max(0, now_ms - seen)
        if director.next_at is not None:
            director.next_at += away
        current = director.rounds[-1] if director.rounds else None
        if current is not None and not current.finished and not current.stopped:
            current.ends_at += away  # a stopped one's tables are stopped again: resumed()
        return director

    # ------------------------------------------------------------------
    # Commands

    def _require_host(self, actor: PlayerInfo, admin: bool) -> None:
        if actor.id != self.host.id and not admin:
            raise errors.NotHost("only the tournament's host may do that")

    def _registration_open(self, command: str) -> None:
        require(self.phase, command)
        if registration(self.phase, self.settings, len(self.rounds)) is not None:
            return
        if not self.settings.late_join:
            raise errors.RegistrationClosed("registration closed when the tournament started")
        raise errors.RegistrationClosed("no round is left to play")

    def _add_entrant(
        self, player: PlayerInfo, contribution: str, strategy: str, now_ms: int
    ) -> Entrant:
        entrant = Entrant(
            player=player,
            number=len(self.entrants) + 1,
            contribution=contribution or player.id,
            joined_round=len(self.rounds) + 1,
            strategy=strategy,
        )
        self.entrants[player.id] = entrant
        self.entry_event(entrant, now_ms)
        return entrant

    @step(DirectorResult)
    def register(
        self, player: PlayerInfo, contribution: str, now_ms: int, ref: str | None = None
    ) -> list[Outbound]:
        known = self.entrants.get(player.id)
        if known is not None and known.status in (EntrantStatus.ACTIVE, EntrantStatus.ELIMINATED):
            return [Outbound((player.id,), self.update(now_ms, ref))]
        if known is not None:
            raise errors.RegistrationClosed(f"you are {known.status}: you cannot enter again")
        self._registration_open("register")
        if player.bot and not self.settings.bots:
            raise errors.BotsNotAllowed("this tournament is for people only")
        if player.guest and self.settings.registered_only:
            raise errors.RegisteredOnly(
                "this tournament is for registered players: sign in with a name to enter"
            )
        if len(self.active()) >= self.settings.max_players:
            raise errors.TournamentFull(f"all {self.settings.max_players} places are taken")

        self.spectators.pop(player.id, None)
        self._add_entrant(player, contribution, "", now_ms)
        return self.changed(now_ms, Reply(player.id, ref))

    @step(DirectorResult)
    def spectate(self, player: PlayerInfo, now_ms: int, ref: str | None = None) -> list[Outbound]:
        require(self.phase, "watch")  # in every phase
        if player.id not in self.entrants:
            self.spectators[player.id] = player
        return [Outbound((player.id,), self.update(now_ms, ref))]

    @step(DirectorResult)
    def add_bots(
        self,
        actor: PlayerInfo,
        strategy: str,
        count: int,
        now_ms: int,
        *,
        admin: bool = False,
        ref: str | None = None,
    ) -> list[Outbound]:
        self._require_host(actor, admin)
        self._registration_open("bots")
        if not self.settings.bots:
            raise errors.BotsNotAllowed("this tournament is for people only")
        if not self.known_strategy(strategy):
            raise errors.UnknownStrategy(f"no bot plays strategy {strategy!r}")
        room = self.settings.max_players - len(self.active())
        if count > room:
            raise errors.TournamentFull(f"only {room} places are left")

        for _ in range(count):
            self.bots_added += 1
            n = self.bots_added
            bot = PlayerInfo(
                id=f"bot-{strategy}-{self.id}-{n}", name=f"{strategy} bot {n}", bot=True
            )
            self._add_entrant(bot, "", strategy, now_ms)
        return self.changed(now_ms, Reply(actor.id, ref))

    @step(DirectorResult)
    def leave(self, player: PlayerInfo, now_ms: int, ref: str | None = None) -> list[Outbound]:
        """An entrant withdraws (its table, if any, is forfeited); a spectator stops watching."""
        entrant = self.entrants.get(player.id)
        if entrant is None or entrant.status not in (
            EntrantStatus.ACTIVE,
            EntrantStatus.ELIMINATED,
        ):
            if player.id in self.spectators:
                del self.spectators[player.id]
                return [Outbound((player.id,), self.update(now_ms, ref))]
            raise errors.NotRegistered("you are not in this tournament")
        if entrant.status == EntrantStatus.ELIMINATED:  # out already: nothing to withdraw from
            raise errors.TournamentState("you are no longer playing in this tournament")
        require(self.phase, "leave")

        self._drop(entrant, EntrantStatus.WITHDRAWN, now_ms)
        return self.changed(now_ms, Reply(player.id, ref))

    def _drop(self, entrant: Entrant, status: EntrantStatus, now_ms: int) -> None:
        pid = entrant.player.id
        entrant.status = status
        current = self.rounds[-1] if self.rounds else None
        self.format.dropped(self, entrant)
        self.entry_event(entrant, now_ms)
        if current is not None and not current.finished:
            for t in current.open_tables():
                if pid in t.players and t.room_id is not None:
                    self.ask(Forfeit(t.room_id, entrant.player))

    @step(DirectorResult)
    def manage(
        self,
        actor: PlayerInfo,
        action: str,
        now_ms: int,
        *,
        player_id: str | None = None,
        admin: bool = False,
        ref: str | None = None,
    ) -> list[Outbound]:
        """The host's start, pause, resume, cancel and remove: each checked, then
        applied, then answered (the actor's copy of the update it caused has its ref)."""
        self._require_host(actor, admin)
        reply = Reply(actor.id, ref)
        match action:
            case "remove":
                entrant = self.entrants.get(player_id or "")
                if entrant is None or entrant.status != EntrantStatus.ACTIVE:
                    raise errors.NotRegistered(f"{player_id} is not an active entrant")
                require(self.phase, action)
                self._drop(entrant, EntrantStatus.REMOVED, now_ms)
                outs = self.push(now_ms, reply)
                if not entrant.strategy and entrant.player.id != actor.id:
                    outs.append(Outbound((entrant.player.id,), self.update(now_ms)))
                return outs
            case "start":
                require(self.phase, action)
                if len(self.active()) < 2:
                    raise errors.TooFewPlayers("a tournament needs at least two entrants")
                self.note(TournamentStatus(self.id, TournamentChange.STARTED, None, now_ms))
                return self.play.begin_round(now_ms, reply)
            case "pause":
                require(self.phase, action)
                self.go(Phase.PAUSED)
                self.next_at = None
                self.changed_to(TournamentChange.PAUSED, now_ms)
                return self.push(now_ms, reply)
            case "resume":
                require(self.phase, action)
                if self.rounds[-1].finished:
                    self.go(Phase.BETWEEN)
                    self.next_at = now_ms + self.settings.between_rounds_ms
                else:
                    self.go(Phase.PLAYING)
                self.note(TournamentStatus(self.id, TournamentChange.RESUMED, None, now_ms))
                return self.push(now_ms, reply)
            case "cancel":
                require(self.phase, action)
                return self.play.close(Phase.CANCELLED, now_ms, reply)
        require(self.phase, action)  # the protocol admits nothing else: refused
        raise AssertionError(f"action {action!r} is in the table but not here")
