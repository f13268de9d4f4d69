"""``unchanged``: counters are the same in two snapshots (e.g. before and after a duplicate).

At least one value must be compared: two empty snapshots, or ``keys: []``, compare nothing,
which is :data:`~verifier.assertions.interface.VACUOUS`, never a pass (that a snapshot is
empty is an ``equals`` claim).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from verifier.assertions.batch import Quick, Shapes, place, rest_plain
from verifier.assertions.interface import (
    AssertionKind,
    Context,
    Cover,
    EvalError,
    Need,
    Outcome,
    SpecError,
    json_equal,
    needs_of_selectors,
    one_place,
    param,
    quote,
    show,
)
from verifier.report import Read
from verifier.values.records import Records


class Unchanged(AssertionKind):
    name = "unchanged"

    def needs(self, spec: dict[str, Any]) -> Iterable[Need]:
        return needs_of_selectors(spec.get("before"), spec.get("after"))

    def covers(self, spec: dict[str, Any]) -> Iterator[Cover]:
        keys = spec.get("keys")
        for side in (spec.get("before"), spec.get("after")):
            for need in needs_of_selectors(side):
                if isinstance(keys, list) and all(isinstance(k, str) for k in keys):
                    for key in keys:  # only the listed keys are compared
                        escaped = key.replace("~", "~0").replace("/", "~1")
                        yield Cover(need.file, f"{need.pointer}/{escaped}")
                else:
                    yield Cover(need.file, need.pointer)

    def quick(self, specs: Sequence[dict[str, Any]], records: Records) -> list[Quick | None]:
        get = records.quick_value
        shapes = Shapes("before", "after", "keys", names=records.names)
        #: per pair of snapshot key tuples: the message's template and the keys in its order
        #: when they hold the same keys (compared all, sorted), else ``None``
        templates: dict[tuple[tuple[Any, ...], tuple[Any, ...]], tuple[str, list[str]] | None]
        templates = {}
        messages: dict[tuple[Any, ...], str] = {}  # (template, its int values) -> message
        out: list[Quick | None] = []
        append = out.append
        for spec in specs:
            # the common shape: no 'keys', two plain selectors naming objects of the same
            # keys whose values are all integers
            if shapes.plain(spec) and "keys" not in spec:
                first, second = shapes.place(spec.get("before")), shapes.place(spec.get("after"))
                if first is not None and second is not None and first != second:
                    before, after = get(*first), get(*second)
                    if type(before) is dict and type(after) is dict:
                        pair = (tuple(before), tuple(after))
                        template = templates.get(pair, _UNSEEN)
                        if template is _UNSEEN:
                            template = templates[pair] = _template(before, after)
                        if (
                            template is not None
                            and _INTS.issuperset(map(type, before.values()))
                            and _INTS.issuperset(map(type, after.values()))
                        ):
                            text, keys = template
                            found = None
                            if before == after:
                                # one message per template and values in a batch (the same
                                # counters in many runs), not one per assertion
                                said = (text, *map(before.__getitem__, keys))
                                message = messages.get(said)
                                if message is None:
                                    message = messages[said] = text.format(*said[1:])
                                found = (message, (first, second))
                            append(found)
                            continue
            append(_one(spec, get))
        return out

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        keys = spec.get("keys")
        if keys is not None and (
            not isinstance(keys, list) or not all(isinstance(k, str) for k in keys)
        ):
            raise SpecError("'keys' must be an array of strings", "/keys")
        snapshots = []
        for side in ("before", "after"):
            value = ctx.value(param(spec, side))
            if not isinstance(value, dict):
                raise EvalError(f"'{side}' selects {show(value)}, not an object")
            snapshots.append(value)
        before, after = snapshots
        if one_place(spec["before"], spec["after"]):
            return Outcome.vacuous("'before' and 'after' name the same value: nothing can change")
        if keys is None:
            keys = sorted(set(before) | set(after))
        missing = [k for k in keys if k not in before or k not in after]
        if missing:
            raise EvalError(
                f"key(s) {', '.join(quote(k) for k in missing[:10])} missing from a snapshot"
            )
        if not keys:
            return Outcome.vacuous(
                "no value was compared (no keys, or two empty snapshots); list the keys that "
                "must not change"
            )
        changed = [
            f"{quote(k)}: {show(before[k])} -> {show(after[k])}"
            for k in keys
            if not json_equal(before[k], after[k])
        ]
        if changed:
            return Outcome.failed("changed: " + "; ".join(changed))
        return Outcome.passed(
            f"{len(keys)} value(s) unchanged: "
            + ", ".join(f"{quote(k)}={show(before[k])}" for k in keys)
        )


_INTS = frozenset({int})
_UNSEEN: Any = object()


def _template(before: dict[str, Any], after: dict[str, Any]) -> tuple[str, list[str]] | None:
    """The pass message of two snapshots of the same (string) keys, compared all, with
    ``{}`` for each value in key order; ``None`` for any other pair."""
    if set(before) != set(after) or not before or not all(type(k) is str for k in before):
        return None
    keys = sorted(before)
    shown = ", ".join(quote(k).replace("{", "{{").replace("}", "}}") + "={}" for k in keys)
    return f"{len(keys)} value(s) unchanged: {shown}", keys


def _one(spec: dict[str, Any], get: Any) -> Quick | None:
    """The batch path's answer for one assertion of any shape."""
    keys = spec.get("keys")
    if keys is not None and (type(keys) is not list or not all(type(k) is str for k in keys)):
        return None
    if not rest_plain(spec, "before", "after", "keys"):
        return None
    first, second = place(spec.get("before")), place(spec.get("after"))
    if first is None or second is None or first == second:
        return None
    before, after = get(*first), get(*second)
    if type(before) is not dict or type(after) is not dict:
        return None  # MISS too
    if keys is None:
        keys = sorted(set(before) | set(after))
    if not keys or any(k not in before or k not in after for k in keys):
        return None
    if all(json_equal(before[k], after[k]) for k in keys):
        shown = ", ".join(f"{quote(k)}={show(before[k])}" for k in keys)
        message = f"{len(keys)} value(s) unchanged: {shown}"
        return (message, (Read(*first), Read(*second)))
    return None


#: the registry member (verifier.assertions.KINDS)
UNCHANGED = Unchanged()
