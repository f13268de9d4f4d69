"""``same-value``: one value is the same across records (e.g. a PaymentIntent id)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from verifier.assertions.interface import (
    AssertionKind,
    Context,
    Need,
    Outcome,
    SpecError,
    json_equal,
    needs_of_selectors,
    one_place,
    param,
    show,
    where,
)


class SameValue(AssertionKind):
    name = "same-value"

    def needs(self, spec: dict[str, Any]) -> Iterable[Need]:
        selects = spec.get("selects")
        return needs_of_selectors(*selects) if isinstance(selects, list) else ()

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        selects = param(spec, "selects")
        if not isinstance(selects, list) or len(selects) < 2:
            raise SpecError("'selects' must list at least two selectors", "/selects")
        values = [ctx.value(s) for s in selects]
        if one_place(*selects):
            return Outcome.vacuous(
                "every selector names the same value: it was compared with itself"
            )
        first = values[0]
        differing = [
            f"{where(s)} is {show(v)}"
            for s, v in zip(selects, values, strict=True)
            if not json_equal(v, first)
        ]
        if not differing:
            return Outcome.passed(f"all {len(values)} values are {show(first)}")
        return Outcome.failed(f"{where(selects[0])} is {show(first)}, but " + "; ".join(differing))
