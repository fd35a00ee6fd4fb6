"""The tournament formats, one module each behind one interface (formats.base.Format):
its settings' shape and its secret chain's length, pair a round, a table's winner,
what the end of a round means, standings."""

from __future__ import annotations

from protocol.tournaments import CreateTournament, TournamentFormat
from server.tournaments.formats.base import Field, Format, Pairing
from server.tournaments.formats.duplicate import Duplicate
from server.tournaments.formats.knockout import Knockout
from server.tournaments.formats.swiss import Swiss
from server.tournaments.model import TournamentSettings

FORMATS: dict[TournamentFormat, Format] = {
    TournamentFormat.DUPLICATE: Duplicate(),
    TournamentFormat.SWISS: Swiss(),
    TournamentFormat.KNOCKOUT: Knockout(),
}


def settings_for(
    msg: CreateTournament, now_ms: int, *, between_rounds_ms: int, between_deals_ms: int
) -> TournamentSettings:
    """A new tournament's settings: the host's, shaped by its format."""
    return TournamentSettings.from_message(
        msg,
        FORMATS[msg.format].shape(msg),
        now_ms,
        between_rounds_ms=between_rounds_ms,
        between_deals_ms=between_deals_ms,
    )


def format_title(name: str) -> str:
    """A format's title (TournamentInfo.format_title) from its wire name; a name no
    format has (a store written by a later release) is shown as it is."""
    try:
        return FORMATS[TournamentFormat(name)].title
    except ValueError:
        return name


__all__ = ["FORMATS", "Field", "Format", "Pairing", "format_title", "settings_for"]
