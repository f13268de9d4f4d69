"""The values one record yields: extracted at the pointers its task wants, in whichever process
read it. Small: what crosses processes grows with what the assertions read, not with the
records' size."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from verifier.json.pointer import EvalError, resolve_pointer
from verifier.plan.needs import Extracted, Wants


@dataclass(frozen=True, slots=True)
class Unresolved:
    """A pointer that resolved to nothing, with the message :func:`resolve_pointer` gave."""

    message: str


NOT_AN_ARRAY = -1  # the length of something that is not an array


def extract(value: Any, wants: Wants) -> Extracted:
    """The values at ``wants`` in one parsed record."""
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
            out[pointer] = {intern(k): v for k, v in found.items()}
        else:
            out[pointer] = found
    return out
