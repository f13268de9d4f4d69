"""The values one record yields: extracted at the pointers its task wants, in whichever process
read it. Small: what crosses processes grows with what the assertions read, not with the
records' size."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from verifier.json.pointer import EvalError, resolve_pointer
from verifier.values.needs import Extracted, Wants


@dataclass(frozen=True, slots=True)
class Unresolved:
    """A pointer that resolved to nothing, with the message :func:`resolve_pointer` gave."""

    message: str


NOT_AN_ARRAY = -1  # the length of something that is not an array


#: the value types of an object that :func:`extract` shares between the records of a batch
#: (their exact types: 1, 1.0 and True are equal in Python, and must stay apart here)
_SHAREABLE = frozenset({str, int, bool, type(None)})
_MAX_SHARED_KEYS = 32


def _shared_key(found: dict[str, Any]) -> tuple[Any, ...] | None:
    """What makes two extracted objects interchangeable: the same keys in the same order,
    each with a value of the same exact type and equal (no float: 0.0 and -0.0 are equal)."""
    if len(found) > _MAX_SHARED_KEYS:
        return None
    key = tuple((k, type(v), v) for k, v in found.items())
    return key if all(t in _SHAREABLE for _, t, _ in key) else None


def extract(value: Any, wants: Wants, shared: dict[Any, Any] | None = None) -> Extracted:
    """The values at ``wants`` in one parsed record. ``shared`` (one per batch): an object of
    scalars, or a string, equal to one extracted before (the same counters in every run
    record, the same id in two records of a case) is that one, so the batch pickles it once
    and the main process holds it once; no one changes an extracted value, so sharing it
    changes no answer."""
    out: Extracted = {}
    for pointer, length in wants:
        try:
            found = resolve_pointer(value, pointer)
        except EvalError as exc:
            out[("#" if length else "") + pointer] = Unresolved(str(exc))
            continue
        if length:
            out["#" + pointer] = len(found) if isinstance(found, list) else NOT_AN_ARRAY
        elif type(found) is dict and found:
            # an object's keys shared between the records of a batch (the same counters in
            # every run record): pickled once per batch, held once per batch in the main
            # process, instead of once per record
            intern = sys.intern
            key = _shared_key(found) if shared is not None else None
            if key is None:
                out[pointer] = {intern(k): v for k, v in found.items()}
                continue
            assert shared is not None
            same = shared.get(key)
            if same is None:
                same = shared[key] = {intern(k): v for k, v in found.items()}
            out[pointer] = same
        elif type(found) is str and shared is not None:
            # an equal string extracted before in the batch is that one (a receipt's id and
            # the readback's of the same case): pickled once, held once
            out[pointer] = shared.setdefault(found, found)
        else:
            out[pointer] = found
    return out
