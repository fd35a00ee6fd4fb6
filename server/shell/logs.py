"""How ``cribsquares serve`` writes its log: text lines (the default), or JSON lines.

``--log-format json`` gives one JSON object per line, for a log collector:

* ``time``: UTC, ISO 8601 with milliseconds (``2026-12-07T11:40:00.123Z``);
* ``level``: ``DEBUG``, ``INFO``, ``WARNING``, ``ERROR`` or ``CRITICAL``;
* ``logger``: the module that wrote it (``server.shell.hub``);
* ``event``: what happened, the text line's message;
* ``room``, ``match``, ``series``, ``tournament``, ``player``: the ids the event
  concerns, when it names one (a call passes them as ``extra``);
* ``exc``: the traceback, when there is one.

Only ids go in the fields: no log line carries a token, a secret, a seed or a
card (docs/operations.md, *Logs*, and tests/server/test_logs.py).
"""

from __future__ import annotations

import json
import logging
import time

FIELDS = ("room", "match", "series", "tournament", "player")
FORMATS = ("text", "json")
TEXT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonLines(logging.Formatter):
    """A record as one line of JSON (the fields above)."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        line: dict[str, object] = {
            "time": f"{stamp}.{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "event": record.getMessage(),
        }
        for field in FIELDS:
            value = record.__dict__.get(field)
            if value is not None:
                line[field] = str(value)
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line)


def configure(log_format: str, verbose: bool) -> None:
    """The root logger's one handler, on stderr: INFO with ``verbose``, else WARNING."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonLines() if log_format == "json" else logging.Formatter(TEXT))
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, handlers=[handler])
