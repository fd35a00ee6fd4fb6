"""Head to head: quick play, challenges, ratings, the leaderboard and the server's bots.

docs/ratings.md says how ratings move; docs/bots.md what each bot level is.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from protocol.fields import (
    BestOf,
    CardClock,
    Choice,
    Contribution,
    DealClock,
    Message,
    Name,
    Pace,
    PlayerInfo,
    Ref,
    Request,
)


class QuickPlay(Request):
    """Wait to be paired with a player of close rating for a rated head-to-head
    match; ``bot_after_ms``: take a (casual) bot opponent after that long, of
    level ``bot_level`` (default: the server's). ``arena``: a bot program's
    rated match against another bot program, in the arena's own pool."""

    type: Literal["quickplay"] = "quickplay"
    pace: Annotated[Pace, Choice] = Pace.LOCKSTEP
    deals: BestOf = 1
    bot_after_ms: Annotated[int | None, Field(default=None, ge=0, le=600_000)] = None
    bot_level: Annotated[str | None, Field(default=None, min_length=1, max_length=32)] = None
    arena: bool = False
    contribution: Contribution = ""
    ref: Ref = None


class CancelQuickPlay(Request):
    type: Literal["cancel_quickplay"] = "cancel_quickplay"
    ref: Ref = None


class Challenge(Request):
    """Challenge a named online player to a head-to-head match."""

    type: Literal["challenge"] = "challenge"
    opponent: Name
    pace: Annotated[Pace, Choice] = Pace.LOCKSTEP
    deals: BestOf = 1
    card_clock_ms: CardClock = 30_000
    deal_clock_ms: DealClock = 300_000
    rated: bool = True
    contribution: Contribution = ""
    ref: Ref = None


class AnswerChallenge(Request):
    """The challenged player accepts or declines; the challenger may cancel."""

    type: Literal["answer_challenge"] = "answer_challenge"
    challenge_id: Annotated[str, Field(min_length=1, max_length=32)]
    accept: bool
    contribution: Contribution = ""
    ref: Ref = None


class GetLeaderboard(Request):
    """The top ``top`` rated players of a pace, and the ones around ``around``
    (a player's name; default: oneself)."""

    type: Literal["get_leaderboard"] = "get_leaderboard"
    pace: Annotated[Pace, Choice] = Pace.LOCKSTEP
    top: Annotated[int, Field(ge=1, le=100)] = 20
    around: Name | None = None
    arena: bool = False  # the bot arena's board instead of people's
    ref: Ref = None


class ListBots(Request):
    """The server's computer opponents: its levels, each with its rating."""

    type: Literal["list_bots"] = "list_bots"
    ref: Ref = None


class QueueStatus(Message):
    """Quick play: ``waiting`` (queued), ``matched`` (the room is ``room_id``; its
    ``room_state`` follows), ``cancelled``."""

    type: Literal["queue"] = "queue"
    state: Literal["waiting", "matched", "cancelled"]
    pace: Pace
    deals: int
    rating: int | None = None  # one's rating for the pace, the queue's yardstick
    room_id: str | None = None
    ref: Ref = None


class ChallengeInfo(Message):
    id: str
    challenger: PlayerInfo
    opponent: PlayerInfo
    pace: Pace
    deals: int
    card_clock_ms: int
    deal_clock_ms: int
    rated: bool
    expires_ms: int  # time left to answer when this was sent


class ChallengeUpdate(Message):
    """Sent to both players of a challenge whenever its state changes."""

    type: Literal["challenge_state"] = "challenge_state"
    challenge: ChallengeInfo
    state: Literal["offered", "accepted", "declined", "cancelled", "expired"]
    room_id: str | None = None  # when accepted
    ref: Ref = None


class RatingChange(Message):
    player: PlayerInfo
    before: int
    after: int
    deviation_before: int
    deviation_after: int
    provisional: bool  # after this match


class RatingsChanged(Message):
    """A rated match ended: each player's new rating for the pace."""

    type: Literal["ratings"] = "ratings"
    room_id: str
    pace: Pace
    changes: list[RatingChange]
    arena: bool = False  # ratings of the bot arena's pool


class LeaderboardEntry(Message):
    rank: int
    player: PlayerInfo
    rating: int
    deviation: int
    games: int
    provisional: bool


class Leaderboard(Message):
    """Rated players of a pace: the ranked ones by rating, then the provisional
    ones (listed but not ranked: their ``rank`` is 0), by rating."""

    type: Literal["leaderboard"] = "leaderboard"
    pace: Pace
    top: list[LeaderboardEntry]
    around: list[LeaderboardEntry]  # the player asked about and its neighbours
    players: int  # ranked (not provisional) players in all
    arena: bool = False  # the bot arena's board
    ref: Ref = None


class BotLevel(Message):
    """One level of the server's computer opponents."""

    name: str  # what add_bot, add_tournament_bot and quickplay's bot_level take
    level: int  # 1 (weakest) ..
    title: str
    description: str
    aliases: list[str]  # other names for the same level
    rating: int | None  # Glicko-2, measured among the levels (docs/bots.md); None: not measured
    deviation: int | None


class Bots(Message):
    """The reply to ``list_bots``: the levels, weakest first, and the bot the
    server seats for quick play when a player's wait runs out."""

    type: Literal["bots"] = "bots"
    levels: list[BotLevel]
    quickplay_bot: str
    ref: Ref = None


# This area's client messages (quick play and challenges: run where
# the waiting players are kept). protocol.wire assembles the
# client's union from the areas' unions, and the server routes by them.
HeadToHeadRequest = QuickPlay | CancelQuickPlay | Challenge | AnswerChallenge


# Ratings and bots read: answered by any node from what it holds.
RatingsRequest = GetLeaderboard | ListBots
# This area's server messages: protocol.wire assembles the server's union the same way.
HeadToHeadNews = QueueStatus | ChallengeUpdate | RatingsChanged | Leaderboard | Bots
