"""The assertion spec, read in the plan: what its assertions will read, as each kind declares
it (the needs the plan indexes before any record is read)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import verifier.assertions as registry
from verifier.values.needs import DEFAULT_SPEC, Need


def needs_of(spec: Any) -> Iterator[Need]:
    """What the assertions of ``spec`` (the parsed assertion spec) will read, as each kind
    declares it; nothing for a malformed spec or assertion (evaluating it is an error)."""
    kinds = registry.KINDS  # the registry as it is when asked
    assertions = spec.get("assertions") if isinstance(spec, dict) else None
    out: list[Need] = []
    extend = out.extend
    for item in assertions if isinstance(assertions, list) else ():
        if type(item) is not dict and not isinstance(item, dict):
            continue
        name = item.get("kind")
        kind = kinds.get(name) if type(name) is str or isinstance(name, str) else None
        if kind is None:
            continue
        try:
            needs = kind.needs(item)
            extend(needs if type(needs) is list else list(needs))
        except Exception:  # a bug in the kind: evaluating it reports an internal error
            continue
    return iter(out)


def containers_in(spec: Any) -> tuple[tuple[str, str | None, bool], ...]:
    """The spec's ``transcripts`` list: files to check as transcript containers, each
    ``{"files": GLOB, "shape": NAME?, "leaf": BOOL?}`` (malformed entries are skipped here;
    the spec's schema reports them)."""
    items = spec.get("transcripts") if isinstance(spec, dict) else None
    out: list[tuple[str, str | None, bool]] = []
    for item in items if isinstance(items, list) else ():
        if isinstance(item, dict) and isinstance(item.get("files"), str) and item["files"]:
            shape = item.get("shape")
            out.append(
                (item["files"], shape if isinstance(shape, str) else None, item.get("leaf") is True)
            )
    return tuple(out)


__all__ = ["DEFAULT_SPEC", "containers_in", "needs_of"]
