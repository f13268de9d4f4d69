"""``same-value``: one value is the same across records (e.g. a PaymentIntent id)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from verifier.assertions.batch import MISS, Quick, Shapes, place, rest_plain
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
from verifier.report import Read
from verifier.values.records import Records


class SameValue(AssertionKind):
    name = "same-value"

    def needs(self, spec: dict[str, Any]) -> Iterable[Need]:
        selects = spec.get("selects")
        return needs_of_selectors(*selects) if isinstance(selects, list) else ()

    def quick(self, specs: Sequence[dict[str, Any]], records: Records) -> list[Quick | None]:
        get = records.quick_value
        shapes = Shapes("selects", names=records.names)
        out: list[Quick | None] = []
        append = out.append
        for spec in specs:
            # the common shape first: two plain selectors naming two string values
            if shapes.plain(spec):
                selects = spec.get("selects")
                if type(selects) is list and len(selects) == 2:
                    first, second = shapes.place(selects[0]), shapes.place(selects[1])
                    if first is not None and second is not None and first != second:
                        a, b = get(*first), get(*second)
                        if type(a) is str and type(b) is str:
                            append(
                                (f"all 2 values are {show(a)}", (first, second)) if a == b else None
                            )
                            continue
            append(_one(spec, get))
        return out

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


def _one(spec: dict[str, Any], get: Any) -> Quick | None:
    """The batch path's answer for one assertion of any shape."""
    selects = spec.get("selects")
    if type(selects) is not list or len(selects) < 2 or not rest_plain(spec, "selects"):
        return None
    places = [place(s) for s in selects]
    if None in places or len(set(places)) < 2:
        return None
    values = [get(*p) for p in places]  # type: ignore[misc]
    if any(v is MISS for v in values):
        return None
    first = values[0]
    if all(json_equal(v, first) for v in values):
        reads = tuple(dict.fromkeys(Read(*p) for p in places))  # type: ignore[misc]
        return (f"all {len(values)} values are {show(first)}", reads)
    return None


#: the registry member (verifier.assertions.KINDS)
SAME_VALUE = SameValue()
