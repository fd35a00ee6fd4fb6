"""The store: what rooms, the lobby and the directors decided, on SQLite or PostgreSQL.

One schema and one list of versioned migrations serve both engines, and every
query is written once; the engines differ only in their backend. The modules,
one job each:

* ``writer.py``: :class:`Storage`, the store the server runs on (server.store's
  protocol): one writer, batched commits, retries, lost writes; the reads.
* ``records.py``: players, the storage's own writes, how a write fails.
* ``writes.py``: a batch in one transaction, and the SQL of each room event.
* ``players.py``: registering, names' keys, finding a player.
* ``series.py``: series being played (what a restart resumes) and one series.
* ``history.py``: matches, a player's matches and ratings, the rating book.
* ``tournaments.py``: the tournaments' writes, reads and exports.
* ``daily.py``: the daily deal's secrets and attempts, and the reads of a day.
* ``pruning.py``: forgetting rooms never played and tournaments never started.
* ``schema.py``, ``migrations.py``, ``legacy.py``: the schema of version 1, the
  numbered migrations in ``schema_migrations``, and SQLite files from before.
* ``sql.py``: the interface the SQL runs on; ``sqlite.py`` and ``postgres.py``:
  the two backends (connections, placeholders, transactions, which failures can
  pass); ``backends.py``: which one a ``--store`` names.

Nothing here decides anything about a game.
"""

from server.records import Fence, LostWrites, NameInUse, StoredPlayer, WriteFailed
from server.storage.history import match_detail, player_matches, recent_matches
from server.storage.writer import Storage

__all__ = [
    "Fence",
    "LostWrites",
    "NameInUse",
    "Storage",
    "StoredPlayer",
    "WriteFailed",
    "match_detail",
    "player_matches",
    "recent_matches",
]
