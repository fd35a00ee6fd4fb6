"""The daily deal: one deal a day for everyone, committed a week ahead (docs/daily.md).

``days`` (days, the schedule, the derivation) and ``standings`` (ranks,
percentiles, streaks, where the field put each card) are pure rules; ``desk`` is
the lobby's synchronous part (attempts, the day's end); ``store`` persists and
reads back; ``http`` and ``keeper`` are the aiohttp shell's parts.
"""
