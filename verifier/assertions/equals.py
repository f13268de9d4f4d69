"""``equals`` and ``in-set``: a value equals a constant, or is one of a set."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from verifier.assertions.batch import MISS, Quick, Shapes, rest_plain
from verifier.assertions.interface import (
    AssertionKind,
    Context,
    Outcome,
    SpecError,
    json_equal,
    param,
    selectors_well_formed,
    show,
)
from verifier.values.records import Records


def _quick(
    specs: Sequence[dict[str, Any]], records: Records, key: str, one_of: bool
) -> list[Quick | None]:
    """The passes of ``equals`` (``key`` "value") or ``in-set`` (``key`` "values", a
    non-empty array, ``one_of``)."""
    get = records.quick_value
    shapes = Shapes("select", key, names=records.names)
    out: list[Quick | None] = []
    for spec in specs:
        out.append(None)
        if key not in spec or not (shapes.plain(spec) or rest_plain(spec, "select", key)):
            continue
        expected = spec[key]
        if isinstance(expected, dict | list) and not selectors_well_formed(expected):
            continue
        if one_of and (type(expected) is not list or not expected):
            continue
        where = shapes.place(spec.get("select"))
        actual = MISS if where is None else get(*where)
        if actual is MISS or where is None:
            continue
        if any(json_equal(actual, v) for v in expected) if one_of else json_equal(actual, expected):
            out[-1] = (f"is {show(actual)}", (where,))
    return out


class Equals(AssertionKind):
    name = "equals"

    def quick(self, specs: Sequence[dict[str, Any]], records: Records) -> list[Quick | None]:
        return _quick(specs, records, "value", one_of=False)

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        expected = param(spec, "value")
        actual = ctx.value(param(spec, "select"))
        if json_equal(actual, expected):
            return Outcome.passed(f"is {show(actual)}")
        return Outcome.failed(f"is {show(actual)}, expected {show(expected)}")


class InSet(AssertionKind):
    name = "in-set"

    def quick(self, specs: Sequence[dict[str, Any]], records: Records) -> list[Quick | None]:
        return _quick(specs, records, "values", one_of=True)

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        values = param(spec, "values")
        if not isinstance(values, list) or not values:
            raise SpecError("'values' must be a non-empty array", "/values")
        actual = ctx.value(param(spec, "select"))
        if any(json_equal(actual, v) for v in values):
            return Outcome.passed(f"is {show(actual)}")
        return Outcome.failed(f"is {show(actual)}, expected one of {show(values)}")


#: the registry members (verifier.assertions.KINDS)
EQUALS = Equals()
IN_SET = InSet()
