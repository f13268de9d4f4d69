"""Assertion kinds: a plug-in family, one module per kind, one registry line each. The registry
feeds the consistency stage, the plan, coverage and the docs."""

from __future__ import annotations

from verifier.assertions.interface import (
    VACUOUS,
    AssertionKind,
    Context,
    EvalError,
    Outcome,
    SpecError,
)
from verifier.registry import Plugin, Registry

#: the registry: name -> kind, each imported when first used (read-only; a test that adds a
#: kind replaces it whole)
KINDS: Registry[AssertionKind] = Registry(
    "assertion kind",
    Plugin("equals", "verifier.assertions.equals:EQUALS"),
    Plugin("in-set", "verifier.assertions.equals:IN_SET"),
    Plugin("same-value", "verifier.assertions.same_value:SAME_VALUE"),
    Plugin("count", "verifier.assertions.count:COUNT"),
    Plugin("unchanged", "verifier.assertions.unchanged:UNCHANGED"),
    Plugin("order", "verifier.assertions.order:ORDER"),
    Plugin("interrupted-tool-result", "verifier.assertions.interrupted:INTERRUPTED_TOOL_RESULT"),
    Plugin("acceptance-separation", "verifier.assertions.acceptance:ACCEPTANCE_SEPARATION"),
    Plugin("witnessed-calls", "verifier.assertions.witnessed:WITNESSED_CALLS"),
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
