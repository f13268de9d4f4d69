"""``equals`` and ``in-set``: a value equals a constant, or is one of a set."""

from __future__ import annotations

from typing import Any

from verifier.assertions.interface import (
    AssertionKind,
    Context,
    Outcome,
    SpecError,
    json_equal,
    param,
    show,
)


class Equals(AssertionKind):
    name = "equals"

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        expected = param(spec, "value")
        actual = ctx.value(param(spec, "select"))
        if json_equal(actual, expected):
            return Outcome.passed(f"is {show(actual)}")
        return Outcome.failed(f"is {show(actual)}, expected {show(expected)}")


class InSet(AssertionKind):
    name = "in-set"

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        values = param(spec, "values")
        if not isinstance(values, list) or not values:
            raise SpecError("'values' must be a non-empty array", "/values")
        actual = ctx.value(param(spec, "select"))
        if any(json_equal(actual, v) for v in values):
            return Outcome.passed(f"is {show(actual)}")
        return Outcome.failed(f"is {show(actual)}, expected one of {show(values)}")
