"""The whole state of an object, as plain values, for proofs that a refusal changed
nothing: every attribute reachable from it (dataclass fields, ``__dict__`` and
``__slots__``, containers, pydantic models), not a copy someone keeps by hand.
A function or a method (a bot seat's chooser) counts by its identity."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from pydantic import BaseModel

PLAIN = (str, int, float, bool, bytes, type(None))


def whole(value: Any, seen: dict[int, int] | None = None) -> Any:
    """``value`` as nested tuples, lists, dicts and plain values."""
    seen = {} if seen is None else seen
    if isinstance(value, (*PLAIN, enum.Enum)):
        return value
    if isinstance(value, type):
        return ("class", value.__qualname__)
    if id(value) in seen:  # shared or cyclic: the same object again
        return ("again", seen[id(value)])
    seen[id(value)] = len(seen)
    if isinstance(value, BaseModel):
        return (type(value).__name__, value.model_dump(mode="json"))
    if isinstance(value, dict):
        return {whole(k, seen): whole(v, seen) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [whole(v, seen) for v in value])
    if isinstance(value, (set, frozenset)):
        return (type(value).__name__, sorted(repr(whole(v, seen)) for v in value))
    if callable(value) and not dataclasses.is_dataclass(value):
        return ("callable", id(value))  # a function, a bound method, a closure, a builtin
    fields: dict[str, Any] = {}
    for cls in type(value).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if hasattr(value, name):
                fields[name] = getattr(value, name)
    fields.update(getattr(value, "__dict__", {}))
    return (type(value).__name__, {k: whole(v, seen) for k, v in sorted(fields.items())})
