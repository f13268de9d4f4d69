"""``order``: timestamps are in increasing order."""

from __future__ import annotations

from typing import Any

from verifier.assertions.interface import (
    AssertionKind,
    Context,
    EvalError,
    Outcome,
    SpecError,
    one_place,
    param,
    where,
)
from verifier.schema.rfc3339 import Instant, instant


def parse_time(value: Any) -> Instant:
    """The instant ``value`` names, comparable with any other: offsets applied, a leap
    second (23:59:60 UTC) after 23:59:59 and before the next day, fractions of any length."""
    found = instant(value) if isinstance(value, str) else None
    if found is None:
        raise EvalError(f"{value!r} is not an RFC 3339 date-time")
    return found


class Order(AssertionKind):
    name = "order"

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        selects = param(spec, "selects")
        if not isinstance(selects, list) or len(selects) < 2:
            raise SpecError("'selects' must list at least two selectors", "/selects")
        strict = spec.get("strict", True)
        if not isinstance(strict, bool):
            raise SpecError("'strict' must be true or false", "/strict")
        raw, times = [], []
        for selector in selects:
            raw.append(ctx.value(selector))
            times.append(parse_time(raw[-1]))  # an error is filed at the value just read
        for i in range(1, len(times)):
            earlier, later = times[i - 1], times[i]
            if later < earlier or (strict and later == earlier):
                rel = "before" if later < earlier else "at the same time as"
                return Outcome.failed(
                    f"{raw[i]} ({where(selects[i])}) is {rel} "
                    f"{raw[i - 1]} ({where(selects[i - 1])})"
                )
        if one_place(*selects):  # non-strict: it holds of any one time
            return Outcome.vacuous(
                "every selector names the same time: it was compared with itself"
            )
        return Outcome.passed(" < ".join(str(v) for v in raw))


#: the registry member (verifier.assertions.KINDS)
ORDER = Order()
