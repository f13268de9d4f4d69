"""The batch path of the assertion kinds: every assertion of one kind evaluated in one call,
over the values the records yield, without a :class:`~verifier.assertions.Context`, an
exception or an outcome object per assertion.

It only ever says *passed*, and only where the kind's own ``evaluate`` would say passed with
the same message and reads: each kind's ``quick`` checks the assertion's shape (its selectors
well formed ``{"file", "pointer"}`` objects whose pointers are JSON pointers, its parameters
of the types ``evaluate`` accepts), looks its values up (:meth:`Records.quick_value`, which
answers :data:`MISS` for anything ``evaluate`` would have to explain: a file not parsed, a
value not extracted or resolved to nothing, a document kept whole), and gives ``None``
whenever anything is off the plain path. The consistency stage then evaluates that assertion
the one generic way, so a failure, an error, a vacuous outcome and every message explaining
them come from one place (and the tests compare the two paths on every assertion they make).
"""

from __future__ import annotations

from typing import Any

from verifier.json.pointer import is_pointer
from verifier.judge.records import MISS
from verifier.report import Read

#: a pass found by the batch path: its message and the reads, deduplicated, in read order
Quick = tuple[str, tuple[Read, ...]]


def place(selector: Any) -> tuple[str, str] | None:
    """``(file, pointer)`` of a plain selector (exactly those two keys, strings, the pointer a
    JSON pointer), else ``None`` (the generic path explains it)."""
    if type(selector) is not dict or len(selector) != 2:
        return None
    file, pointer = selector.get("file"), selector.get("pointer")
    if type(file) is not str or type(pointer) is not str:
        return None
    if pointer and (pointer[0] != "/" or ("~" in pointer and not is_pointer(pointer))):
        return None
    return file, pointer


def rest_plain(spec: dict[str, Any], *skip: str) -> bool:
    """Whether the assertion's other parameters (besides ``skip``, whose shape the kind checks
    itself) hold no container: then none hides a selector whose pointer must be checked, and
    the assertion is not itself shaped like a selector."""
    if "file" in spec and "pointer" in spec:
        return False
    for key, value in spec.items():
        if isinstance(value, dict | list) and key not in skip:
            return False
    return True


__all__ = ["MISS", "Quick", "place", "rest_plain"]
