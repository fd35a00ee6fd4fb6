"""The one interface every tournament format has, and what a format may see of its
tournament. A format decides; the director (server.tournaments.director) keeps
the state, opens the tables and tells everyone."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from protocol.tournaments import CreateTournament, FormatOffer, TournamentStanding
from server import errors
from server.tournaments.model import (
    Entrant,
    Round,
    Shape,
    Table,
    TournamentSettings,
)


class OwnState(Protocol):
    """What a format keeps of a tournament besides its entrants and rounds (a
    knockout's bracket, the players a Swiss gave a bye): only the format reads it."""

    def saved(self) -> dict[str, Any]:
        """As JSON, for the director's snapshot (:meth:`Format.load` reads it back)."""


class NoState:
    """A format that keeps nothing of its own."""

    def saved(self) -> dict[str, Any]:
        return {}


class Field(Protocol):
    """What a format reads and changes of its tournament (the director has it)."""

    id: str
    settings: TournamentSettings
    entrants: dict[str, Entrant]
    rounds: list[Round]
    own: OwnState  # the format's own (Format.fresh, Format.load)

    def active(self) -> list[Entrant]: ...

    def rating_of(self, player_id: str) -> float: ...

    def record_entry(self, entrant: Entrant, now_ms: int) -> None:
        """An entrant changed (its seed, its status) at ``now_ms``: store it."""


@dataclass(frozen=True, slots=True)
class Pairing:
    """A round's tables: the groups that play (one player each in a duplicate field)
    and the players given a bye."""

    groups: list[tuple[str, ...]]
    byes: list[str] = field(default_factory=list)


class Format(Protocol):
    has_bracket: bool  # its rounds are a bracket's (TournamentInfo.bracket)
    # How every client shows it: its name, and the titles of its standings' figures
    # (after rank and player), whose values :meth:`cells` words.
    title: str
    columns: tuple[str, ...]
    # Its figures in ranking order (the first decides, the others break its ties),
    # each with its name as a tie note says it (TournamentInfo.tie_notes); none: a
    # format that ranks otherwise (a knockout: by how far one got).
    tie_breaks: tuple[tuple[str, str], ...]
    # What a host may ask of it (sent in ``welcome``); :meth:`shape` holds a host to it.
    offer: FormatOffer

    def cells(self, t: Field, row: TournamentStanding, over: bool) -> list[str]:
        """``row``'s figures under :attr:`columns`, as shown (``over``: the tournament
        is, so a knockout's last one standing is its champion)."""

    def length(self, rounds: int | None, best_of: int) -> str:
        """How long it is, in words, from the rounds it plays (None: not known yet, a
        knockout before its draw) and the deals a table plays: "5 deals", "4 rounds",
        "3 rounds, best of 3"."""

    def fresh(self) -> OwnState:
        """Its own state of a new tournament."""

    def load(self, saved: Mapping[str, Any]) -> OwnState:
        """Its own state again, from what :meth:`OwnState.saved` gave (a snapshot
        written before a format kept its own holds every format's keys)."""

    def bracket(self, t: Field) -> list[list[str | None]] | None:
        """Each round's slots of its bracket, as shown (TournamentInfo.bracket); None:
        a format without one."""

    def shape(self, msg: CreateTournament) -> Shape:
        """What this format makes of the host's settings: the rounds it plays, the
        deals per table, whether a player may enter late. Raises
        :class:`server.errors.BadTournamentSettings` for a setting its offer has not."""

    def chain_length(self, settings: TournamentSettings) -> int:
        """How many round secrets the tournament draws at its creation (its hash chain,
        whose first commitment it publishes): at least one per round it may play."""

    def planned_rounds(self, t: Field) -> int:
        """How many rounds the tournament plays, as far as is known now."""

    def pair(self, t: Field, number: int, playing: list[Entrant], now_ms: int) -> Pairing | None:
        """Round ``number``'s tables of the entrants ``playing``; None: no round can be
        made, the tournament is over."""

    def table_winner(self, t: Field, table: Table, winner_id: str | None) -> str | None:
        """Who wins a table whose series ``winner_id`` won (None: drawn)."""

    def round_ended(self, t: Field, r: Round, now_ms: int) -> bool:
        """Round ``r`` is over (its results in): act on it; True if the tournament is."""

    def dropped(self, t: Field, entrant: Entrant) -> None:
        """``entrant`` withdrew or was removed (its status already says which)."""

    def standings(
        self, t: Field, played: Mapping[str, int], points: Mapping[str, int]
    ) -> list[TournamentStanding]:
        """Everyone in the draw, best first, with this format's tie-breaks."""


def standing_row(
    entrant: Entrant,
    rank: int,
    played: Mapping[str, int],
    points: Mapping[str, int],
    **extra: float | int | None,
) -> TournamentStanding:
    pid = entrant.player.id
    return TournamentStanding(
        rank=rank,
        player=entrant.player,
        status=entrant.status,
        deals=played.get(pid, 0),
        points=points.get(pid, 0),
        **extra,  # type: ignore[arg-type]
    )


def one_deal(msg: CreateTournament) -> None:
    """A format whose tables play one deal refuses a host who asks for more."""
    if msg.best_of != 1:
        raise errors.BadTournamentSettings(
            f"a {msg.format} tournament's tables play one deal: best_of is 1"
        )


def knockout_rounds(players: int) -> int:
    """The rounds of a bracket of ``players``: the next power of two above them."""
    return max(1, (max(players, 2) - 1).bit_length())


def figure(x: float | None) -> str:
    """A standings figure: ``2``, ``1.5``, ``-`` for none."""
    return "-" if x is None else f"{x:g}"


def plural(n: int, one: str) -> str:
    return f"{n} {one}{'' if n == 1 else 's'}"


class FixedRounds:
    """What a format of a set number of rounds (a duplicate field's deals, Swiss
    rounds) does the same: it plays them all, unless nobody is left; a withdrawal
    changes nothing but the entrant's status."""

    has_bracket = False

    def fresh(self) -> OwnState:
        return NoState()

    def load(self, saved: Mapping[str, Any]) -> OwnState:
        return NoState()

    def bracket(self, t: Field) -> list[list[str | None]] | None:
        return None

    def shape(self, msg: CreateTournament) -> Shape:
        one_deal(msg)
        return Shape(rounds=msg.rounds, best_of=1, late_join=msg.late_join)

    def chain_length(self, settings: TournamentSettings) -> int:
        # As long as a knockout of as many places would need, too: the chain every
        # tournament has drawn, so that the commitments published and the snapshots
        # stored (which record its length) stay what they were.
        return max(settings.rounds, knockout_rounds(settings.max_players))

    def planned_rounds(self, t: Field) -> int:
        return t.settings.rounds

    def round_ended(self, t: Field, r: Round, now_ms: int) -> bool:
        return r.number >= t.settings.rounds or not t.active()

    def dropped(self, t: Field, entrant: Entrant) -> None:
        pass
