"""The tournament formats, one module each behind one interface (formats.base.Format):
its settings' shape and its secret chain's length, pair a round, a table's winner,
what the end of a round means, standings."""

from __future__ import annotations

from protocol.tournaments import CreateTournament, FormatOffer, TournamentFormat
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


# What every host may choose, in the order forms offer it (Welcome.formats).
OFFERS: list[FormatOffer] = [f.offer for f in FORMATS.values()]


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


__all__ = ["FORMATS", "OFFERS", "Field", "Format", "Pairing", "settings_for"]
