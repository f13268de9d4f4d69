"""The assertion spec, read in the plan: what its assertions will read, as each kind declares
it (the needs the plan indexes before any record is read)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from verifier.assertions import kind_named
from verifier.assertions.interface import pointers_well_formed
from verifier.plan.needs import Need

DEFAULT_SPEC = "evidence/assertions.json"


def needs_of(spec: Any, checked: set[int] | None = None) -> Iterator[Need]:
    """What the assertions of ``spec`` (the parsed assertion spec) will read, as each kind
    declares it; nothing for a malformed spec or assertion (evaluating it is an error).

    With ``checked``, the index of every assertion that has :func:`pointers_well_formed` is added to
    it, so that the consistency stage does not check its pointers a second time."""
    assertions = spec.get("assertions") if isinstance(spec, dict) else None
    for index, item in enumerate(assertions if isinstance(assertions, list) else ()):
        if not isinstance(item, dict):
            continue
        name = item.get("kind")
        kind = kind_named(name)
        if kind is None:
            continue
        try:
            needs = list(kind.needs(item))
        except Exception:  # a bug in the kind: evaluating it reports an internal error
            continue
        if checked is not None and pointers_well_formed(kind, item):
            checked.add(index)
        yield from needs
