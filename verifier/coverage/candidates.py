"""The values a mutant tries in place of a recorded one: a small deterministic list per JSON
type, in order (the first the record's schema accepts is the mutant)."""

from __future__ import annotations

import math
from typing import Any

from verifier.coverage.measure import type_of


def _last_changed(text: str) -> list[str]:
    """``text`` with its last character changed: to the next of its class (digit, lower or
    upper case letter; for any other last character, the last digit before it goes up by
    one instead: a timestamp's seconds), then to ``0`` and to ``a`` (``1``, ``b`` if it is
    that)."""
    if not text:
        return ["x", "0", "a"]
    head, last = text[:-1], text[-1]
    out: list[str] = []
    if "0" <= last <= "9":
        out.append(head + chr((ord(last) - 48 + 1) % 10 + 48))
    elif "a" <= last <= "z":
        out.append(head + chr((ord(last) - 97 + 1) % 26 + 97))
    elif "A" <= last <= "Z":
        out.append(head + chr((ord(last) - 65 + 1) % 26 + 65))
    if not "0" <= last <= "9":  # a timestamp's "Z": change its last digit too
        digit = max((i for i, c in enumerate(head) if "0" <= c <= "9"), default=None)
        if digit is not None:
            bumped = chr((ord(head[digit]) - 48 + 1) % 10 + 48)
            out.append(head[:digit] + bumped + head[digit + 1 :] + last)
    out.append(head + ("1" if last == "0" else "0"))
    out.append(head + ("b" if last == "a" else "a"))
    return [s for s in dict.fromkeys(out) if s != text]


def _numbers(value: int | float) -> list[Any]:
    if isinstance(value, int):
        return [v for v in (value + 1, value - 1, 0) if v != value]
    if not math.isfinite(value):
        return []
    out = [float(value) + 1.0, float(value) - 1.0, 0.0]
    return [v for v in dict.fromkeys(out) if v != value and math.isfinite(v)]


def candidates(value: Any, enum_members: list[Any]) -> list[Any]:
    """What to try instead of ``value``, in order: ``enum_members`` (other members of an
    enum at that place), then the type's own changes. Empty for null and empty containers."""
    kind = type_of(value)
    own: list[Any]
    if kind == "boolean":
        own = [not value]
    elif kind in ("integer", "number"):
        own = _numbers(value)
    elif kind == "string":
        own = _last_changed(value)
    else:
        own = []
    out: list[Any] = []
    for candidate in [*enum_members, *own]:
        if type_of(candidate) == kind and candidate != value and candidate not in out:
            out.append(candidate)
    return out


def unmutable(value: Any) -> str | None:
    """Why ``value`` gets no mutant at all, or ``None``."""
    if value is None:
        return "null: no other value of its type"
    if value == {} or value == []:
        return f"an empty {type_of(value)}: its emptiness is compared as a whole, not mutated"
    return None


def placeholder(document: Any, pointer: str) -> str | None:
    """Why a surviving mutant of the value at ``pointer`` is no finding, because the record's
    top-level ``provenance`` lists it (or a value holding it) under ``placeholders``: the
    source does not give it, so a spec can only relate it to other values (same-value,
    order), never pin it to a stated one; or ``None``."""
    provenance = document.get("provenance") if isinstance(document, dict) else None
    listed = provenance.get("placeholders") if isinstance(provenance, dict) else None
    if not isinstance(listed, list):
        return None
    names = {p for p in listed if isinstance(p, str)}
    at = pointer
    while at:
        if at in names:
            return (
                "a placeholder (listed in the record's provenance/placeholders): the source "
                "does not give this value, so there is no stated value to pin it to"
            )
        at = at[: at.rfind("/")]
    return None


__all__ = ["candidates", "placeholder", "unmutable"]
