"""Names vulture (tests/test_quality.py) would report as unused in engine/, protocol/
and server/, and why each is used. Read by vulture only; nothing imports this file.

Everything else vulture found has been removed (a suit's name table, Card.rank_char,
the protocol's CardText, fallback.rule_name, SplitMix64.fork, Series.score_for).
"""

# ruff: noqa: B018, F821
from engine import __getattr__  # engine/__init__.py: a module's lazy names (PEP 562)
from engine.grid import Grid, cell_from_row_col
from engine.ranking import _Ordered
from engine.tally import TOTAL_PAIRS, brute_force_tally
from engine.totals import rank_points
from protocol.deals import RankNote
from protocol.fields import Message
from protocol.head_to_head import RatingChange
from server.bots import strategy_names
from server.tournaments.pairing import knockout_first_round

__getattr__  # called by Python for a name the engine package loads when first used
_Ordered.__lt__  # a Protocol's method: what competition_ranks compares keys with
# The independent references the fast code is tested against (tests/engine): the
# tally by brute force, a rank multiset's points by the itemized scorer.
brute_force_tally
TOTAL_PAIRS
rank_points
# The engine's public cell API, tested (tests/engine/test_grid.py) and documented.
cell_from_row_col
Grid.render
Message.model_config  # pydantic reads it: how every message model validates
RatingChange.deviation_before  # wire fields of ratings_changed (docs/protocol.md)
RankNote.against_ms  # a wire field of match_result's ranking: the figure that lost the tie
RatingChange.deviation_after
strategy_names  # the server's bot strategies, listed in the room tests and docs/bots.md
knockout_first_round  # the bracket's first round as docs/tournaments.md states it (tests)
# sqlite3's and aiosqlite's connection attribute: rows come back as sqlite3.Row.
row_factory
# server.shell.aiohttp_adapters.plain_error_pages: a server's and a request handler's
# class are set to their plain-error subclasses (Python reads __class__ on every call).
__class__
