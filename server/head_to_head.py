"""Head to head: the quick-play queue and challenges, which open a two-seat room with
both players seated and start it. Synchronous and without I/O, like the lobby it
belongs to. It does not hold the lobby: a pairing is a request
(:class:`server.requests.OpenHeadToHead`) in the :class:`~server.requests.DeskResult`
a step returns, and the lobby opens and starts the room after the step.

Quick play is rated and pairs registered players of close rating
(:mod:`server.matchmaking`); a player who asked for a bot after a wait gets a bot
program waiting for the same game, or the server's bot of the level asked for. Bot
programs have a rated pool of their own, the arena: they are paired with each other
only, and rated apart from people (:func:`rating_pool`). A challenge names an
online player, who accepts or declines it before it expires.

On a cluster the queue and the open challenges live on the coordinator; what
changed in them (each step's ``DeskResult.waiting`` and ``.challenges``) is copied
where the next coordinator
takes them back (:meth:`HeadToHead.restore`), and a coordinator deposed forgets
them (:meth:`HeadToHead.clear`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, replace

from pydantic import BaseModel

from protocol.fields import PlayerInfo, Visibility
from protocol.head_to_head import (
    AnswerChallenge,
    CancelQuickPlay,
    Challenge,
    ChallengeInfo,
    ChallengeUpdate,
    QueueStatus,
    QuickPlay,
)
from protocol.names import MAX_NAME, printable
from protocol.rooms import RoomOrigin
from server import errors
from server.config import LobbyConfig
from server.ids import IdSource
from server.matchmaking import Queue, Ticket
from server.ratings import RatingBook
from server.requests import DeskResult, OpenHeadToHead, Request
from server.room import BotFactory, Outbound, RoomSettings, bot_seats

log = logging.getLogger(__name__)


def rating_pool(pace: str, arena: bool) -> str:
    """The key ratings are kept under: the pace for people, ``arena-PACE`` for bot programs."""
    return f"{RoomOrigin.ARENA.value}-{pace}" if arena else pace


@dataclass(slots=True)
class OpenChallenge:
    info: ChallengeInfo
    contribution: str
    expires_at: int


@dataclass(frozen=True, slots=True)
class Waiting:
    """A player in a quick-play queue: who, what they asked for, their ticket (rating
    and the time they joined, the one their place and their wait for a bot count from)."""

    player: PlayerInfo
    asked: QuickPlay
    ticket: Ticket


class HeadToHead:
    def __init__(
        self, config: LobbyConfig, ids: IdSource, ratings: RatingBook, bots: BotFactory | None
    ) -> None:
        self.config = config
        self.ids = ids
        self.ratings = ratings
        self.bots = bots  # the server's bots (None: there are none to offer)
        self.queue = Queue()
        self.bot_queue = Queue()  # bot programs (hello with bot: true) waiting
        self.arena_queue = Queue()  # bot programs waiting for a rated arena match
        self._queued: dict[str, tuple[PlayerInfo, QuickPlay]] = {}
        self.challenges: dict[str, OpenChallenge] = {}
        # Kept only where it is copied (a cluster's coordinator, ``shared``): the players
        # whose wait and the challenges whose state the step being run changed; they
        # leave with its result (DeskResult.waiting, .challenges: _done).
        self.shared = False
        self._changed: tuple[set[str], set[str]] = (set(), set())

    def _done(self, result: DeskResult) -> DeskResult:
        """A step's ``result``, with whose wait and which challenges it changed."""
        waiting, challenges = self._changed
        result.waiting |= waiting
        result.challenges |= challenges
        self._changed = (set(), set())
        return result

    # ------------------------------------------------------------------
    # Quick play

    def quickplay(self, player: PlayerInfo, msg: QuickPlay, now_ms: int) -> DeskResult:
        if player.guest:
            raise errors.NotRateable("quick play is rated: register a name to play it")
        if player.id in self._queued:
            raise errors.AlreadyQueued("you are already waiting for an opponent")
        if msg.arena and not player.bot:
            raise errors.NotRateable("the arena is for bot programs (hello with bot: true)")
        if (
            msg.bot_level is not None
            and not msg.arena
            and not bot_seats.known(self.bots, msg.bot_level)
        ):
            raise errors.UnknownStrategy(f"no bot plays level {msg.bot_level!r}")
        rating = self.ratings.get(player.id, rating_pool(msg.pace.value, msg.arena))
        # Bot programs wait apart: they stand in for the server's bot when a
        # person's chosen wait runs out, and play each other, casual; or they
        # wait for the arena, rated among bot programs only.
        self._queue_of(player, msg).join(
            Ticket(
                player=player.id,
                rating=rating.rating,
                since_ms=now_ms,
                pace=msg.pace.value,
                bot_after_ms=None if msg.arena else msg.bot_after_ms,
                pool=str(msg.deals),
            )
        )
        self._queued[player.id] = (player, msg)
        self._note_wait(player.id)
        status = QueueStatus(
            state="waiting",
            pace=msg.pace,
            deals=msg.deals,
            rating=round(rating.rating),
            ref=msg.ref,
        )
        return self._done(
            DeskResult([Outbound((player.id,), status)]).add(self.match_queue(now_ms))
        )

    def _queue_of(self, player: PlayerInfo, asked: QuickPlay) -> Queue:
        return self.arena_queue if asked.arena else self.bot_queue if player.bot else self.queue

    def _leave_queues(self, player_id: str) -> bool:
        left = [q.leave(player_id) for q in (self.queue, self.bot_queue, self.arena_queue)]
        return any(t is not None for t in left)

    def _unqueue(self, player_id: str) -> tuple[PlayerInfo, QuickPlay]:
        """``player_id``'s wait is over (its ticket already out of its queue)."""
        self._note_wait(player_id)
        return self._queued.pop(player_id)

    def _note_wait(self, player_id: str) -> None:
        if self.shared:
            self._changed[0].add(player_id)

    def _note_challenge(self, challenge_id: str) -> None:
        if self.shared:
            self._changed[1].add(challenge_id)

    def cancel_quickplay(self, player: PlayerInfo, msg: CancelQuickPlay) -> DeskResult:
        if not self._leave_queues(player.id):
            raise errors.NotQueued("you are not waiting for an opponent")
        _, asked = self._unqueue(player.id)
        status = QueueStatus(state="cancelled", pace=asked.pace, deals=asked.deals, ref=msg.ref)
        return self._done(DeskResult([Outbound((player.id,), status)]))

    def _quick_settings(self, asked: QuickPlay, *, rated: bool) -> RoomSettings:
        kind = "arena" if asked.arena else "quick play"
        return RoomSettings(
            name=f"{kind}, best of {asked.deals}" if asked.deals > 1 else kind,
            visibility=Visibility.PRIVATE,
            seats=2,
            pace=asked.pace,
            card_clock_ms=self.config.quickplay_card_clock_ms,
            deal_clock_ms=self.config.quickplay_deal_clock_ms,
            best_of=asked.deals,
            rated=rated,
            origin=RoomOrigin.ARENA if asked.arena else RoomOrigin.QUICKPLAY,
        )

    def match_queue(self, now_ms: int) -> DeskResult:
        """Pair whoever the queues can pair now: a request to open each pair's room."""
        pairs: list[Request] = []
        for queue, rated in ((self.queue, True), (self.bot_queue, False), (self.arena_queue, True)):
            for first, second in queue.match(now_ms):
                a, asked = self._unqueue(first.player)
                b, b_asked = self._unqueue(second.player)
                pairs.append(
                    OpenHeadToHead(
                        self._quick_settings(asked, rated=rated),
                        (a, asked.contribution),
                        (b, b_asked.contribution),
                        self._matched_notice(asked),
                    )
                )
        for ticket in self.queue.due_for_bot(now_ms):
            a, asked = self._unqueue(ticket.player)
            program = self._waiting_bot(ticket)
            opponent: tuple[PlayerInfo, str] | str
            if program is not None:
                opponent = (program[0], program[1].contribution)
            elif self.bots is not None:
                opponent = asked.bot_level or self.config.quickplay_bot
            else:  # no bot to offer: back in the queue, without the bot wait
                self.queue.join(replace(ticket, bot_after_ms=None))
                self._queued[a.id] = (a, asked)
                continue
            pairs.append(
                OpenHeadToHead(
                    self._quick_settings(asked, rated=False),
                    (a, asked.contribution),
                    opponent,
                    self._matched_notice(asked),
                )
            )
        return DeskResult(requests=pairs)

    def _waiting_bot(self, ticket: Ticket) -> tuple[PlayerInfo, QuickPlay] | None:
        """The bot program waiting for the same game closest to ``ticket``'s rating."""
        fits = [
            t
            for t in self.bot_queue.tickets.values()
            if (t.pace, t.pool) == (ticket.pace, ticket.pool)
        ]
        if not fits:
            return None
        best = min(fits, key=lambda t: (abs(t.rating - ticket.rating), t.since_ms))
        self.bot_queue.leave(best.player)
        return self._unqueue(best.player)

    @staticmethod
    def _matched_notice(asked: QuickPlay) -> Callable[[str, str], BaseModel]:
        def notice(pid: str, room_id: str) -> BaseModel:
            return QueueStatus(state="matched", pace=asked.pace, deals=asked.deals, room_id=room_id)

        return notice

    # ------------------------------------------------------------------
    # Challenges

    def challenge(
        self, player: PlayerInfo, opponent: PlayerInfo | None, msg: Challenge, now_ms: int
    ) -> DeskResult:
        """``player`` challenges ``opponent``: the online player ``msg`` names (None:
        nobody online by that name)."""
        if opponent is None:
            raise errors.PlayerNotFound(f"no registered player called {msg.opponent} is online")
        if opponent.id == player.id:
            raise errors.RoomError("you cannot challenge yourself", code="bad_message")
        if msg.rated and (player.guest or player.bot or opponent.bot):
            raise errors.NotRateable("rated play is for registered people; send rated=false")
        mine = sum(1 for c in self.challenges.values() if c.info.challenger.id == player.id)
        if mine >= self.config.max_challenges_per_player:
            raise errors.LimitReached(f"you already have {mine} challenges waiting for an answer")
        challenge_id = self.ids.invite_code()
        while challenge_id in self.challenges:
            challenge_id = self.ids.invite_code()
        info = ChallengeInfo(
            id=challenge_id,
            challenger=player,
            opponent=opponent,
            pace=msg.pace,
            deals=msg.deals,
            card_clock_ms=msg.card_clock_ms,
            deal_clock_ms=msg.deal_clock_ms,
            rated=msg.rated,
            expires_ms=self.config.challenge_ttl_ms,
        )
        self.challenges[challenge_id] = OpenChallenge(
            info, msg.contribution, now_ms + self.config.challenge_ttl_ms
        )
        self._note_challenge(challenge_id)
        offered = self._challenge_update(info, "offered", ref=msg.ref, actor=player.id)
        return self._done(DeskResult(offered))

    def _challenge_update(
        self,
        info: ChallengeInfo,
        state: str,
        *,
        room_id: str | None = None,
        ref: str | None = None,
        actor: str = "",
    ) -> list[Outbound]:
        update = ChallengeUpdate(challenge=info, state=state, room_id=room_id)  # type: ignore[arg-type]
        return [
            Outbound((pid,), update.model_copy(update={"ref": ref}) if pid == actor else update)
            for pid in (info.challenger.id, info.opponent.id)
        ]

    def answer(self, player: PlayerInfo, msg: AnswerChallenge) -> DeskResult:
        open_ = self.challenges.get(msg.challenge_id)
        if open_ is None or player.id not in (open_.info.challenger.id, open_.info.opponent.id):
            raise errors.ChallengeNotFound(f"no open challenge {msg.challenge_id}")
        info = open_.info
        if player.id == info.challenger.id:
            if msg.accept:
                raise errors.RoomError(
                    "only the challenged player accepts; send accept=false to withdraw",
                    code="bad_message",
                )
            del self.challenges[info.id]
            self._note_challenge(info.id)
            cancelled = self._challenge_update(info, "cancelled", ref=msg.ref, actor=player.id)
            return self._done(DeskResult(cancelled))
        del self.challenges[info.id]
        self._note_challenge(info.id)
        if not msg.accept:
            declined = self._challenge_update(info, "declined", ref=msg.ref, actor=player.id)
            return self._done(DeskResult(declined))
        settings = RoomSettings(
            name=printable(f"{info.challenger.name} v {info.opponent.name}", 2 * MAX_NAME + 3),
            visibility=Visibility.PRIVATE,
            seats=2,
            pace=info.pace,
            card_clock_ms=info.card_clock_ms,
            deal_clock_ms=info.deal_clock_ms,
            best_of=info.deals,
            rated=info.rated,
            origin=RoomOrigin.CHALLENGE,
        )

        def notice(pid: str, room_id: str) -> BaseModel:
            update = ChallengeUpdate(challenge=info, state="accepted", room_id=room_id)
            return update.model_copy(update={"ref": msg.ref}) if pid == player.id else update

        opened = OpenHeadToHead(
            settings, (info.challenger, open_.contribution), (player, msg.contribution), notice
        )
        return self._done(DeskResult(requests=[opened]))

    def expire_challenges(self, now_ms: int) -> list[Outbound]:
        outs: list[Outbound] = []
        for cid in [c for c, o in self.challenges.items() if o.expires_at <= now_ms]:
            info = self.challenges.pop(cid).info
            self._note_challenge(cid)
            outs += self._challenge_update(info, "expired")
        return outs

    # ------------------------------------------------------------------
    # What the lobby tells it

    def disconnect(self, player_id: str) -> DeskResult:
        """``player_id`` went offline: it leaves the queue, its challenges are withdrawn."""
        if self._leave_queues(player_id):
            self._unqueue(player_id)
        outs: list[Outbound] = []
        for cid, open_ in list(self.challenges.items()):
            info = open_.info
            if player_id in (info.challenger.id, info.opponent.id):
                del self.challenges[cid]
                self._note_challenge(cid)
                outs += self._challenge_update(info, "cancelled")
        return self._done(DeskResult(outs))

    # ------------------------------------------------------------------
    # A cluster's coordinator changing (server/shell/cluster/waiting.py)

    def waiting(self, player_id: str) -> Waiting | None:
        """``player_id``'s place in a queue, if it is waiting."""
        queued = self._queued.get(player_id)
        if queued is None:
            return None
        player, asked = queued
        ticket = self._queue_of(player, asked).tickets[player_id]
        return Waiting(player, asked, ticket)

    def touch_all(self) -> DeskResult:
        """Everything counts as changed (to be copied again in full)."""
        return DeskResult(waiting=set(self._queued), challenges=set(self.challenges))

    def clear(self) -> None:
        """Another node runs quick play and the challenges from now on: forget them,
        telling nobody (that node has them and answers for them)."""
        for queue in (self.queue, self.bot_queue, self.arena_queue):
            queue.tickets.clear()
        self._queued.clear()
        self.challenges.clear()

    def restore(
        self,
        waiting: Iterable[Waiting],
        challenges: Iterable[OpenChallenge],
        present: Collection[str],
        now_ms: int,
    ) -> DeskResult:
        """Take back the queue and the challenges the previous coordinator had. A
        player's place is kept (its ticket as it was: rating, and the time it joined)
        only if it is in ``present`` (still connected as it was, not through the node
        that went) and not waiting here already; a challenge one of whose players is
        not present is withdrawn (``cancelled`` to both, as when one disconnects).
        Then whoever can be paired now is, and what expired meanwhile expires."""
        for entry in waiting:
            pid = entry.player.id
            self._note_wait(pid)  # kept, or gone: copied again as it is now
            if pid in self._queued or pid not in present:
                continue
            queue = self._queue_of(entry.player, entry.asked)
            queue.join(entry.ticket)
            self._queued[pid] = (entry.player, entry.asked)
        outs: list[Outbound] = []
        for open_ in challenges:
            info = open_.info
            self._note_challenge(info.id)
            if info.id in self.challenges:
                continue
            if info.challenger.id in present and info.opponent.id in present:
                self.challenges[info.id] = open_
            else:
                outs += self._challenge_update(info, "cancelled")
        return self._done(DeskResult(outs).add(self.tick(now_ms)))

    def tick(self, now_ms: int) -> DeskResult:
        """Pair whoever the queue can pair now; expire the challenges whose time is up."""
        result = DeskResult()
        if self.queue.tickets or self.bot_queue.tickets or self.arena_queue.tickets:
            result.add(self.match_queue(now_ms))
        if self.challenges:
            result.outs += self.expire_challenges(now_ms)
        return self._done(result)
