"""Comparing parsed JSON values as the parsers must give them: equal, with the same Python
type at every place, keys in the same order (``True == 1`` and ``1 == 1.0`` in Python: not the
same value here)."""

from __future__ import annotations

from typing import Any


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values and of the same Python types all the way down, in the same key
    order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
