"""The assertion spec, read in the plan: what its assertions will read, as each kind declares
it (the needs the plan indexes before any record is read)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import verifier.assertions as registry
from verifier.values.needs import DEFAULT_SPEC, Need
from verifier.witness import LOG_SHAPE


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


#: (glob, shape or None: detected, leaf, where the entry is in the spec)
Container = tuple[str, str | None, bool, str]


def containers_in(spec: Any) -> tuple[Container, ...]:
    """The files the spec names to check as a whole, each with how and the pointer of its
    entry: its ``transcripts`` list (transcript containers, ``{"files": GLOB, "shape":
    NAME?, "leaf": BOOL?}``), then its ``witnesses`` list (witness logs, ``{"files":
    GLOB}``, the shape :data:`~verifier.witness.LOG_SHAPE`). Malformed entries are skipped
    here; the spec's schema reports them."""
    out: list[Container] = []
    for key in ("transcripts", "witnesses"):
        items = spec.get(key) if isinstance(spec, dict) else None
        for k, item in enumerate(items if isinstance(items, list) else ()):
            if isinstance(item, dict) and isinstance(item.get("files"), str) and item["files"]:
                shape = LOG_SHAPE if key == "witnesses" else item.get("shape")
                out.append(
                    (
                        item["files"],
                        shape if isinstance(shape, str) else None,
                        item.get("leaf") is True,
                        f"/{key}/{k}/files",
                    )
                )
    return tuple(out)


__all__ = ["DEFAULT_SPEC", "Container", "containers_in", "needs_of"]
