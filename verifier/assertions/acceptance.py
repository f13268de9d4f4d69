"""``acceptance-separation``: a failed acceptance result and a later readback stay apart.

The acceptance record must still say what it said (e.g. ``failed``); the readback must name
that record, come later in time, declare that its conditions were not preregistered, and
carry its own result. Nothing here lets a passing readback stand in for the acceptance result.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from verifier.assertions.interface import (
    AssertionKind,
    Context,
    Need,
    Outcome,
    SpecError,
    json_equal,
    param,
    plain,
    show,
)
from verifier.assertions.order import parse_time

_POINTERS = (
    ("acceptance", ("result", "time")),
    ("readback", ("refersTo", "time", "preregistered", "result")),
)


class AcceptanceSeparation(AssertionKind):
    name = "acceptance-separation"

    def needs(self, spec: dict[str, Any]) -> Iterable[Need]:
        for part, keys in _POINTERS:
            side = spec.get(part)
            if isinstance(side, dict) and isinstance(side.get("file"), str):
                for key in keys:
                    if isinstance(side.get(key), str):
                        yield Need(side["file"], side[key])

    def pointers(self, spec: dict[str, Any]) -> Iterator[tuple[str, Any]]:
        for part, keys in _POINTERS:
            side = spec.get(part)
            if isinstance(side, dict):
                for key in keys:
                    if key in side:
                        yield f"/{part}/{key}", side[key]

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        acc = param(spec, "acceptance")
        rb = param(spec, "readback")
        expected = param(spec, "expectAcceptance")
        if not isinstance(acc, dict) or not isinstance(rb, dict):
            raise SpecError("'acceptance' and 'readback' must be objects")
        acc_file, rb_file = param(acc, "file"), param(rb, "file")

        def get(file: str, part: dict[str, Any], key: str) -> Any:
            return ctx.value({"file": file, "pointer": param(part, key)})

        acc_result = get(acc_file, acc, "result")
        acc_time = parse_time(get(acc_file, acc, "time"))
        refers = get(rb_file, rb, "refersTo")
        rb_time = parse_time(get(rb_file, rb, "time"))
        prereg = get(rb_file, rb, "preregistered")
        rb_result = get(rb_file, rb, "result")
        problems = []
        if not json_equal(acc_result, expected):
            problems.append(
                f"the acceptance result is {show(acc_result)}, but the record of "
                f"the original run says {show(expected)}: it must not be rewritten"
            )
        if refers != acc_file:
            problems.append(f"the readback refers to {show(refers)}, not {plain(acc_file)}")
        if not rb_time > acc_time:
            problems.append("the readback is not later than the acceptance result")
        if prereg is not False:
            problems.append(
                f"the readback's 'preregistered' is {show(prereg)}; its conditions "
                "were applied after the failure and must be declared so (false)"
            )
        if not isinstance(rb_result, str):
            problems.append("the readback carries no result of its own")
        if problems:
            return Outcome.failed("; ".join(problems))
        return Outcome.passed(
            f"original acceptance {show(acc_result)} kept; later readback {show(rb_result)} "
            "(not preregistered) reported separately"
        )


#: the registry member (verifier.assertions.KINDS)
ACCEPTANCE_SEPARATION = AcceptanceSeparation()
