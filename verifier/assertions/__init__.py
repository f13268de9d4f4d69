"""Assertion kinds: a plug-in family. The registry feeds the consistency stage and the docs."""

from __future__ import annotations

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

KINDS: dict[str, AssertionKind] = {
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

__all__ = ["KINDS", "VACUOUS", "AssertionKind", "Context", "EvalError", "Outcome", "SpecError"]
