"""The daily deal: one deal a day for everyone, committed a week ahead (docs/daily.md).

* :mod:`server.daily.days`: days, the schedule window, a day's seed from its secret;
* :mod:`server.daily.standings`: ranks, percentiles, streaks, where the field put
  each card;
* :mod:`server.daily.desk`: the lobby's daily desk, a synchronous state machine
  (attempts, the rooms they are played in, the day's end and its embargo lifted);
* :mod:`server.daily.views`: the ``daily`` message made of a day's facts, for a
  player or for anyone;
Its tables, writes and reads are :mod:`server.storage.daily`, on either store.

All of it is pure and read no clock (pyproject.toml, the import
contracts). The shell's parts are :mod:`server.shell.daily_keeper` (each day's
secret drawn and stored a week ahead) and ``daily`` in :mod:`server.shell.http`.
"""
