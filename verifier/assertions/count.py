"""``count``: how many elements (or distinct values) an array or a set of files holds."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from verifier.assertions.interface import (
    AssertionKind,
    Context,
    EvalError,
    Need,
    Outcome,
    resolve_pointer,
)
from verifier.numbers import canonical


class Count(AssertionKind):
    name = "count"

    def needs(self, spec: dict[str, Any]) -> Iterable[Need]:
        distinct = spec.get("distinct")
        select = spec.get("select")
        if isinstance(select, dict):
            file, pointer = select.get("file"), select.get("pointer")
            if isinstance(file, str) and isinstance(pointer, str):
                yield Need(file, pointer, length=distinct is None)
        pattern = spec.get("files")
        if isinstance(pattern, str) and isinstance(distinct, str):
            yield Need(pattern, distinct, glob=True)

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        bounds = {k: spec[k] for k in ("equals", "min", "max") if k in spec}
        if not bounds or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in bounds.values()
        ):
            raise EvalError("a count needs an integer 'equals', 'min' or 'max'")
        distinct = spec.get("distinct")
        items: range | list[Any]
        if "select" in spec and distinct is None:
            length = ctx.length(spec["select"])
            if length is None:
                raise EvalError("the selected value is not an array")
            items = range(length)
            what = "elements"
        elif "select" in spec and distinct is not None:
            items = ctx.value(spec["select"])
            if not isinstance(items, list):
                raise EvalError("the selected value is not an array")
            what = "elements"
            values = [resolve_pointer(item, distinct) for item in items]
        elif "files" in spec:
            paths = ctx.files(spec["files"])
            items = paths
            what = f"files matching {spec['files']}"
            if distinct is not None:
                values = [ctx.value({"file": p, "pointer": distinct}) for p in paths]
        else:
            raise EvalError("a count needs 'select' or 'files'")
        if distinct is not None:
            n = len({canonical(v) for v in values})  # JSON equality: 1 and 1.0 are one
            what = f"distinct values of {distinct or '(the element)'} among {len(items)} {what}"
        else:
            n = len(items)
        problems = []
        if "equals" in bounds and n != bounds["equals"]:
            problems.append(f"expected {bounds['equals']}")
        if "min" in bounds and n < bounds["min"]:
            problems.append(f"expected at least {bounds['min']}")
        if "max" in bounds and n > bounds["max"]:
            problems.append(f"expected at most {bounds['max']}")
        if problems:
            return Outcome.failed(f"{n} {what}; " + ", ".join(problems))
        return Outcome.passed(f"{n} {what}")
