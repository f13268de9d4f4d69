"""``order``: timestamps are in increasing order."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from verifier.assertions.interface import AssertionKind, Context, EvalError, Outcome, param
from verifier.rfc3339 import is_rfc3339


def parse_time(value: Any) -> datetime:
    if not isinstance(value, str) or not is_rfc3339(value):
        raise EvalError(f"{value!r} is not an RFC 3339 date-time")
    text = value.replace("z", "Z").replace("t", "T")
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    if ":60" in text[17:20]:
        text = text[:17] + "59" + text[19:]
    return datetime.fromisoformat(text)


class Order(AssertionKind):
    name = "order"

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        selects = param(spec, "selects")
        if not isinstance(selects, list) or len(selects) < 2:
            raise EvalError("'selects' must list at least two selectors")
        strict = spec.get("strict", True)
        raw = [ctx.value(s) for s in selects]
        times = [parse_time(v) for v in raw]
        for i in range(1, len(times)):
            earlier, later = times[i - 1], times[i]
            if later < earlier or (strict and later == earlier):
                rel = "before" if later < earlier else "at the same time as"
                return Outcome.failed(
                    f"{raw[i]} ({selects[i]['file']}#{selects[i]['pointer']}) is {rel} "
                    f"{raw[i - 1]} ({selects[i - 1]['file']}#{selects[i - 1]['pointer']})"
                )
        return Outcome.passed(" < ".join(str(v) for v in raw))
