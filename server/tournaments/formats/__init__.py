"""The tournament formats, one module each behind one interface (formats.base.Format):
pair a round, a table's winner, what the end of a round means, standings."""

from __future__ import annotations

from protocol.tournaments import TournamentFormat
from server.tournaments.formats.base import Field, Format, Pairing
from server.tournaments.formats.duplicate import Duplicate
from server.tournaments.formats.knockout import Knockout
from server.tournaments.formats.swiss import Swiss

FORMATS: dict[TournamentFormat, Format] = {
    TournamentFormat.DUPLICATE: Duplicate(),
    TournamentFormat.SWISS: Swiss(),
    TournamentFormat.KNOCKOUT: Knockout(),
}

__all__ = ["FORMATS", "Field", "Format", "Pairing"]
