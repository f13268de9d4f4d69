"""``interrupted-tool-result``: a recovered run whose tool call ended in the explicit marker.

The transcript must pair every call with exactly one result (walked in order over the whole
history, by the same adapters and rules as ``transcript check``: :mod:`verifier.transcripts`);
the chosen call's one result must be the interruption marker. Optionally the run's
terminal status (e.g. ``done``) and its tool-execution count are checked beside it: a terminal
status describes the end of the harness operation, not the external effect.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from verifier.assertions.interface import (
    AssertionKind,
    Context,
    Cover,
    EvalError,
    Need,
    Outcome,
    SpecError,
    json_equal,
    param,
    plain,
    quote,
    show,
)
from verifier.transcripts import ShapeError, UndetectableShape
from verifier.transcripts.archive import shape_of
from verifier.transcripts.pairing import Entry, pair


def transcript_entries(ctx: Context, path: str) -> list[Entry]:
    """The transcript record at ``path`` read into the common model, in the shape its
    features tell (:func:`~verifier.transcripts.archive.shape_of`); ``EvalError`` when it is
    no transcript."""
    document = ctx.document(path)
    messages = document.get("messages") if isinstance(document, dict) else None
    if not isinstance(messages, list):
        raise EvalError(f"{plain(path)} is not a transcript: no 'messages' array")
    try:
        return shape_of(messages).entries(messages)
    except (ShapeError, UndetectableShape) as exc:
        raise EvalError(f"{plain(path)} is not a transcript: {exc}") from exc


class InterruptedToolResult(AssertionKind):
    name = "interrupted-tool-result"

    def needs(self, spec: dict[str, Any]) -> Iterable[Need]:
        if isinstance(spec.get("transcript"), str):
            yield Need(spec["transcript"], "")  # the whole transcript: it is paired here
        yield from super().needs(spec)

    def covers(self, spec: dict[str, Any]) -> Iterable[Cover]:
        # The transcript is read whole but only paired by its call ids and one result
        # compared with the marker: no leaf of it is compared as a whole, so none is
        # claimed (state the marker and the call with equals assertions). The terminal
        # status and execution count selectors are compared whole.
        for need in super().needs(spec):
            yield Cover(need.file, need.pointer)

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        marker = param(spec, "marker")
        path = param(spec, "transcript")
        entries = transcript_entries(ctx, path)
        pairing = pair(entries)
        problems = [f"{p.code}: {p.message}" for p in pairing.problems]
        call_id = spec.get("callId")
        if call_id is not None and not isinstance(call_id, str):
            raise SpecError("'callId' must be a string", "/callId")
        if call_id is None:
            if len(pairing.calls) != 1:
                raise EvalError(
                    f"{plain(path)} holds {len(pairing.calls)} tool calls; name one in 'callId'"
                )
            call_id = next(iter(pairing.calls))
        if call_id not in pairing.calls:
            raise EvalError(f"{plain(path)} has no tool call {quote(call_id)}")
        results = pairing.results.get(call_id, [])
        if len(results) != 1:
            problems.append(f"call {call_id} has {len(results)} results, expected exactly one")
        elif results[0].content != marker:
            problems.append(
                f"call {call_id}'s result is {show(results[0].content)}, not the "
                f"interruption marker {show(marker)}"
            )
        details = [f"call {call_id} ended in {show(marker)}"]
        for key, label in (
            ("terminalStatus", "terminal status"),
            ("toolExecutions", "tool executions"),
        ):
            if key in spec:
                expectation = spec[key]
                if not isinstance(expectation, dict):
                    raise SpecError(f"'{key}' must be {{select, value}}", f"/{key}")
                actual = ctx.value(param(expectation, "select"))
                expected = param(expectation, "value")
                if json_equal(actual, expected):
                    details.append(f"{label} {show(actual)}")
                else:
                    problems.append(f"{label} is {show(actual)}, expected {show(expected)}")
        if problems:
            return Outcome.failed("; ".join(problems))
        return Outcome.passed("; ".join(details))


#: the registry member (verifier.assertions.KINDS)
INTERRUPTED_TOOL_RESULT = InterruptedToolResult()
