"""Errors the server answers with: each has a stable ``code`` that goes on the wire.

A refused request never closes the connection and never changes any state: the
client receives one ``error`` message (``code``, human ``reason``, the request's
``ref`` and, when it concerns a room, its ``room_id``) and may go on.

The tree (docs/protocol.md lists every code with its meaning)::

    ServerError                      code + reason; the wire ``error`` message
    ├── SessionError                 about the connection, not a room
    │   ├── HelloRequired            hello_required        anything before ``hello``
    │   ├── AlreadyIdentified        already_identified    a second ``hello``
    │   ├── UnsupportedProtocol      unsupported_protocol  ``hello.protocol`` is not ours
    │   ├── BadToken                 bad_token             no player has that token
    │   ├── NameRequired             name_required         new non-guest player without a name
    │   ├── NameTaken                name_taken            that name, or a look-alike, is held
    │   ├── FrameTooLarge            frame_too_large       frame over the size limit
    │   └── RateLimited              rate_limited          too many frames, or requests of a kind
    ├── StorageFailed                storage_failed        the database could not store it: not done
    ├── RoomMoving                   room_unavailable      its room is moving to another node
    └── RoomError (also ValueError)  a room or the lobby refuses a command
        ├── RoomNotFound             room_not_found        no such room (or wrong invite code)
        ├── NotInRoom                not_in_room           acting in a room one has not joined
        ├── RoomFull                 room_full             every seat is taken
        ├── RoomStarted              room_started          the match has begun (spectate instead)
        ├── NotCreator               not_creator           only the room's creator may do that
        ├── NotSeated                not_seated            spectators do not play
        ├── NotPlaying               not_playing           no match is being played in the room
        ├── PastTurn                 past_turn             that turn is over
        ├── FutureTurn               future_turn           that card has not been dealt yet
        ├── AlreadyPlaced            already_placed        this turn's card is already placed
        ├── UnknownStrategy          unknown_strategy      no bot plays that strategy
        ├── LimitReached             limit_reached         too many rooms (tournaments) held open
        ├── PlayerNotFound           player_not_found      no such player, or not online
        ├── AlreadyQueued            already_queued        quick play: already waiting
        ├── NotQueued                not_queued            quick play: not waiting
        ├── ChallengeNotFound        challenge_not_found   no such open challenge for this player
        ├── NotRateable              not_rateable          rated play needs two registered humans
        ├── SeriesNotOver            series_not_over       a rematch before the series has ended
        ├── TournamentError          tournaments (docs/tournaments.md):
        │   ├── TournamentNotFound   tournament_not_found  no such tournament (or wrong invite code)
        │   ├── NotHost              not_host              only the host or an admin may do that
        │   ├── RegistrationClosed   registration_closed   too late to register
        │   ├── TournamentFull       tournament_full       every place is taken
        │   ├── BotsNotAllowed       bots_not_allowed      the host said no bots
        │   ├── RegisteredOnly       registered_only       the host said no guests
        │   ├── NotRegistered        not_registered        not an entrant (or spectator) of it
        │   ├── TournamentState      tournament_state      not now (start twice, resume unpaused...)
        │   └── TooFewPlayers        too_few_players       a start with fewer than two entrants
        ├── DailyError               the daily deal (docs/daily.md):
        │   ├── DailyPlayed          daily_played          one attempt a day: already begun
        │   ├── DailyRegisteredOnly  daily_registered_only guests do not play the daily deal
        │   ├── DailyNotFound        daily_not_found       no such day (kept here; see HTTP)
        │   ├── DailyUnavailable     daily_unavailable     not ready yet, or moving nodes
        │   └── DailySolo            daily_solo            an attempt is played alone, unwatched
        └── RuleError                the engine's code:    bad_cell, illegal_cell,
                                                           occupied_cell

Frames that are not valid messages at all are refused by
:func:`protocol.parse_client` with ``bad_json``, ``unknown_type`` or
``bad_message``; an unexpected failure inside the server is reported as
``internal_error``.
"""

from __future__ import annotations

from engine.errors import EngineError


class ServerError(Exception):
    """A refused request: ``code`` is stable and machine-readable, ``reason`` is for people."""

    code = "server_error"

    def __init__(self, reason: str, *, code: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        if code is not None:
            self.code = code


class SessionError(ServerError):
    code = "session_error"


class HelloRequired(SessionError):
    code = "hello_required"


class AlreadyIdentified(SessionError):
    code = "already_identified"


class UnsupportedProtocol(SessionError):
    code = "unsupported_protocol"


class BadToken(SessionError):
    code = "bad_token"


class NameRequired(SessionError):
    code = "name_required"


class NameTaken(SessionError):
    code = "name_taken"


class FrameTooLarge(SessionError):
    code = "frame_too_large"


class RateLimited(SessionError):
    code = "rate_limited"


class StorageFailed(ServerError):
    """What the request decided could not be stored, or the database cannot be
    written right now: nothing of it was done, and nothing of it was acknowledged."""

    code = "storage_failed"


class RoomMoving(ServerError):
    """A cluster: the room (or the lobby-wide work) is changing node and no node has
    taken it in time; nothing was done (docs/protocol.md, *When a server node fails*)."""

    code = "room_unavailable"


class RoomError(ServerError, ValueError):
    """A command the room (or the lobby) refuses; the state is exactly as before."""

    code = "room_error"


class RoomNotFound(RoomError):
    code = "room_not_found"


class NotInRoom(RoomError):
    code = "not_in_room"


class RoomFull(RoomError):
    code = "room_full"


class RoomStarted(RoomError):
    code = "room_started"


class NotCreator(RoomError):
    code = "not_creator"


class NotSeated(RoomError):
    code = "not_seated"


class NotPlaying(RoomError):
    code = "not_playing"


class PastTurn(RoomError):
    code = "past_turn"


class FutureTurn(RoomError):
    code = "future_turn"


class AlreadyPlaced(RoomError):
    code = "already_placed"


class UnknownStrategy(RoomError):
    code = "unknown_strategy"


class LimitReached(RoomError):
    code = "limit_reached"


class PlayerNotFound(RoomError):
    code = "player_not_found"


class AlreadyQueued(RoomError):
    code = "already_queued"


class NotQueued(RoomError):
    code = "not_queued"


class ChallengeNotFound(RoomError):
    code = "challenge_not_found"


class NotRateable(RoomError):
    code = "not_rateable"


class SeriesNotOver(RoomError):
    code = "series_not_over"


class TournamentError(RoomError):
    code = "tournament_error"


class TournamentNotFound(TournamentError):
    code = "tournament_not_found"


class NotHost(TournamentError):
    code = "not_host"


class RegistrationClosed(TournamentError):
    code = "registration_closed"


class TournamentFull(TournamentError):
    code = "tournament_full"


class BotsNotAllowed(TournamentError):
    code = "bots_not_allowed"


class RegisteredOnly(TournamentError):
    code = "registered_only"


class NotRegistered(TournamentError):
    code = "not_registered"


class TournamentState(TournamentError):
    code = "tournament_state"


class BadTournamentSettings(TournamentError):
    """A setting the format does not offer (its ``welcome.formats`` entry)."""

    code = "tournament_settings"


class TooFewPlayers(TournamentError):
    code = "too_few_players"


class DailyError(RoomError):
    code = "daily_error"


class DailyPlayed(DailyError):
    code = "daily_played"


class DailyRegisteredOnly(DailyError):
    code = "daily_registered_only"


class DailyNotFound(DailyError):
    code = "daily_not_found"


class DailyUnavailable(DailyError):
    code = "daily_unavailable"


class DailySolo(DailyError):
    code = "daily_solo"


class RuleError(RoomError):
    """An engine rule refused a placement; the engine's own code goes on the wire."""

    @classmethod
    def from_engine(cls, exc: EngineError) -> RuleError:
        return cls(str(exc), code=exc.code)


INTERNAL_ERROR = "internal_error"

# Every code a client may receive, for docs/protocol.md and its test.
ALL_CODES: tuple[str, ...] = (
    "bad_json", "batch_not_allowed", "unknown_type", "bad_message",
    HelloRequired.code, AlreadyIdentified.code, UnsupportedProtocol.code, BadToken.code,
    NameRequired.code, NameTaken.code, FrameTooLarge.code, RateLimited.code, StorageFailed.code,
    RoomMoving.code,
    RoomNotFound.code, NotInRoom.code, RoomFull.code, RoomStarted.code, NotCreator.code,
    NotSeated.code, NotPlaying.code, PastTurn.code, FutureTurn.code, AlreadyPlaced.code,
    UnknownStrategy.code, LimitReached.code, PlayerNotFound.code, AlreadyQueued.code,
    NotQueued.code, ChallengeNotFound.code, NotRateable.code, SeriesNotOver.code,
    TournamentNotFound.code, NotHost.code, RegistrationClosed.code, TournamentFull.code,
    BotsNotAllowed.code, RegisteredOnly.code, NotRegistered.code, TournamentState.code,
    TooFewPlayers.code, BadTournamentSettings.code, DailyPlayed.code, DailyRegisteredOnly.code,
    DailyNotFound.code,
    DailyUnavailable.code, DailySolo.code,
    # The engine's grid_full cannot happen here: no card is dealt to a full board.
    "bad_cell", "illegal_cell", "occupied_cell",
    INTERNAL_ERROR,
)  # fmt: skip
