"""``unchanged``: counters are the same in two snapshots (e.g. before and after a duplicate)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from verifier.assertions.interface import (
    AssertionKind,
    Context,
    EvalError,
    Need,
    Outcome,
    json_equal,
    needs_of_selectors,
    param,
    show,
)


class Unchanged(AssertionKind):
    name = "unchanged"

    def needs(self, spec: dict[str, Any]) -> Iterable[Need]:
        return needs_of_selectors(spec.get("before"), spec.get("after"))

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        before = ctx.value(param(spec, "before"))
        after = ctx.value(param(spec, "after"))
        if not isinstance(before, dict) or not isinstance(after, dict):
            raise EvalError("'before' and 'after' must select objects")
        keys = spec.get("keys")
        if keys is None:
            keys = sorted(set(before) | set(after))
        missing = [k for k in keys if k not in before or k not in after]
        if missing:
            raise EvalError(f"key(s) {', '.join(missing)} missing from a snapshot")
        changed = [
            f"{k}: {show(before[k])} -> {show(after[k])}"
            for k in keys
            if not json_equal(before[k], after[k])
        ]
        if changed:
            return Outcome.failed("changed: " + "; ".join(changed))
        return Outcome.passed(
            f"{len(keys)} value(s) unchanged: " + ", ".join(f"{k}={show(before[k])}" for k in keys)
        )
