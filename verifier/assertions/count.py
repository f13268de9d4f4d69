"""``count``: how many elements (or distinct values) an array or a set of files holds.

A count of zero passes only where the bounds say that zero is expected (``equals: 0``,
``max: 0`` or ``min: 0`` stated): a glob that matches no file, or an array that is empty,
under a bound that nothing can break (only ``max: 3``) checked nothing, so it is
:data:`~verifier.assertions.interface.VACUOUS`, never a pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from verifier.assertions.batch import MISS, Quick, Shapes, place, rest_plain
from verifier.assertions.interface import (
    AssertionKind,
    Context,
    Cover,
    EvalError,
    Need,
    Outcome,
    SpecError,
    quote,
    resolve_pointer,
    selector_pointers,
)
from verifier.json.numbers import canonical
from verifier.report import Read
from verifier.values.records import Records

_BOUNDS = ("equals", "min", "max")
_new = tuple.__new__


class Count(AssertionKind):
    name = "count"

    def needs(self, spec: dict[str, Any]) -> Iterable[Need]:
        distinct = spec.get("distinct")
        select = spec.get("select")
        out: list[Need] = []
        if isinstance(select, dict):
            file, pointer = select.get("file"), select.get("pointer")
            if isinstance(file, str) and isinstance(pointer, str):
                out.append(_new(Need, (file, pointer, False, distinct is None)))
        pattern = spec.get("files")
        if isinstance(pattern, str) and isinstance(distinct, str):
            out.append(Need(pattern, distinct, glob=True))
        return out

    def covers(self, spec: dict[str, Any]) -> Iterator[Cover]:
        distinct = spec.get("distinct")
        select = spec.get("select")
        if isinstance(select, dict):
            file, pointer = select.get("file"), select.get("pointer")
            if isinstance(file, str) and isinstance(pointer, str):
                if isinstance(distinct, str):  # only each element's distinct value counts
                    yield Cover(file, pointer, each=distinct)
                else:
                    yield Cover(file, pointer, length=True)
        pattern = spec.get("files")
        if isinstance(pattern, str) and isinstance(distinct, str):
            yield Cover(pattern, distinct, glob=True)

    def pointers(self, spec: dict[str, Any]) -> Iterator[tuple[str, Any]]:
        yield from selector_pointers(spec)
        if "distinct" in spec:
            yield "/distinct", spec["distinct"]

    def quick(self, specs: Sequence[dict[str, Any]], records: Records) -> list[Quick | None]:
        """Only the count of an array's elements (``select``, no ``distinct``, no ``files``)
        within its bounds."""
        length = records.quick_length
        shapes = Shapes("select", names=records.names)
        texts: dict[int, str] = {}
        out: list[Quick | None] = []
        append = out.append
        for spec in specs:
            if not shapes.plain(spec):
                append(_one(spec, length))
                continue
            # the common shape: one plain selector, integer bounds (the other keys scalars)
            if "files" in spec or "distinct" in spec:
                append(None)
                continue
            where = shapes.place(spec.get("select"))
            if where is None:
                append(None)
                continue
            bounds = [(k, spec[k]) for k in _BOUNDS if k in spec]
            append(_counted(length(*where), bounds, where, texts))
        return out

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        bounds = {k: spec[k] for k in ("equals", "min", "max") if k in spec}
        if not bounds or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in bounds.values()
        ):
            raise SpecError("a count needs an integer 'equals', 'min' or 'max'")
        distinct = spec.get("distinct")
        if distinct is not None and not isinstance(distinct, str):
            raise SpecError("'distinct' must be a JSON pointer", "/distinct")
        items: range | list[Any]
        if "select" in spec and "files" in spec:
            raise SpecError("a count takes 'select' or 'files', not both")
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
            what = f"files matching {quote(spec['files'])}"
            if distinct is not None:
                values = [ctx.value({"file": p, "pointer": distinct}) for p in paths]
        else:
            raise SpecError("a count needs 'select' or 'files'")
        if distinct is not None:
            n = len({canonical(v) for v in values})  # JSON equality: 1 and 1.0 are one
            shown = quote(distinct) if distinct else "(the element)"
            what = f"distinct values of {shown} among {len(items)} {what}"
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
        if n == 0 and 0 not in bounds.values():
            return Outcome.vacuous(
                f"0 {what}: nothing was counted; if none is the claim, say so with "
                "'equals': 0 (or 'max': 0, or 'min': 0)"
            )
        return Outcome.passed(f"{n} {what}")


def _counted(
    n: Any, bounds: list[tuple[str, Any]], where: Read, texts: dict[int, str] | None = None
) -> Quick | None:
    """The pass of a count of ``n`` elements (:data:`MISS`: none) within ``bounds``; each
    message made once per batch (``texts``: count -> message), not once per assertion."""
    if not bounds or any(type(v) is not int for _, v in bounds) or n is MISS:
        return None
    for key, bound in bounds:
        if n != bound if key == "equals" else n < bound if key == "min" else n > bound:
            return None
    if n or any(v == 0 for _, v in bounds):
        if texts is None:
            return (f"{n} elements", (where,))
        text = texts.get(n)
        if text is None:
            text = texts[n] = f"{n} elements"
        return (text, (where,))
    return None


def _one(spec: dict[str, Any], length: Any) -> Quick | None:
    """The batch path's answer for one assertion of any shape."""
    if "files" in spec or "distinct" in spec or not rest_plain(spec, "select"):
        return None
    found = place(spec.get("select"))
    if found is None:
        return None
    bounds = [(k, spec[k]) for k in _BOUNDS if k in spec]
    if not bounds or any(type(v) is not int for _, v in bounds):
        return None
    return _counted(length(*found), bounds, Read(*found))


#: the registry member (verifier.assertions.KINDS)
COUNT = Count()
