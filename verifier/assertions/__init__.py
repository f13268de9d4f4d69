"""Assertion kinds: a plug-in family. The registry feeds the consistency stage and the docs."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from verifier.assertions.acceptance import AcceptanceSeparation
from verifier.assertions.count import Count
from verifier.assertions.equals import Equals, InSet
from verifier.assertions.interface import (
    VACUOUS,
    AssertionKind,
    Context,
    EvalError,
    Outcome,
    SpecError,
)
from verifier.assertions.interrupted import InterruptedToolResult
from verifier.assertions.order import Order
from verifier.assertions.same_value import SameValue
from verifier.assertions.unchanged import Unchanged

#: the registry: name -> kind (read-only; a test that adds a kind replaces it whole)
KINDS: Mapping[str, AssertionKind] = MappingProxyType(
    {
        kind.name: kind
        for kind in (
            Equals(),
            InSet(),
            SameValue(),
            Count(),
            Unchanged(),
            Order(),
            InterruptedToolResult(),
            AcceptanceSeparation(),
        )
    }
)


def kind_named(name: object) -> AssertionKind | None:
    """The registered kind called ``name`` (``None`` for any other value): looked up in the
    registry as it is when asked."""
    return KINDS.get(name) if isinstance(name, str) else None


__all__ = [
    "KINDS",
    "VACUOUS",
    "AssertionKind",
    "Context",
    "EvalError",
    "Outcome",
    "SpecError",
    "kind_named",
]
