"""Stage 3, consistency: do the records agree with each other and with the claims made?

Runs the declarative assertion spec kept inside the archive. Each assertion is evaluated on
its own; a malformed one is an ``assertion.error``, and the rest still run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from verifier.assertions import KINDS, Context, EvalError
from verifier.model import AssertionResult, AssertionStatus, Finding, Stage, StageResult
from verifier.records import Need, Records

DEFAULT_SPEC = "evidence/assertions.json"


def _text(item: dict[str, Any], key: str, default: str) -> str:
    value = item.get(key)
    return value if isinstance(value, str) else default


def needs_of(spec: Any) -> Iterator[Need]:
    """What the assertions of ``spec`` (the parsed assertion spec) will read, as each kind
    declares it; nothing for a malformed spec or assertion (evaluating it is an error)."""
    assertions = spec.get("assertions") if isinstance(spec, dict) else None
    for item in assertions if isinstance(assertions, list) else ():
        if not isinstance(item, dict):
            continue
        name = item.get("kind")
        kind = KINDS.get(name) if isinstance(name, str) else None
        if kind is None:
            continue
        try:
            yield from kind.needs(item)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            continue  # evaluating it reports what is malformed


def check_consistency(
    records: Records, manifested: set[str], spec_path: str, spec_present: bool
) -> tuple[StageResult, list[AssertionResult]]:
    stage = StageResult(Stage.CONSISTENCY)
    results: list[AssertionResult] = []
    if not spec_present:
        stage.note = f"No assertion spec ({spec_path}): nothing to check."
        stage.counts = {"assertions": 0, "passed": 0, "failed": 0, "errors": 0}
        return stage, results
    spec = records.document(spec_path)
    assertions = spec.get("assertions") if isinstance(spec, dict) else None
    if not isinstance(assertions, list):
        stage.findings.append(
            Finding(
                "assertion.spec-invalid",
                spec_path,
                "The assertion spec is unreadable or has no "
                "'assertions' array; no assertion was checked.",
                pointer="/assertions",
            )
        )
        stage.counts = {"assertions": 0, "passed": 0, "failed": 0, "errors": 0}
        return stage, results

    seen: set[str] = set()
    for index, item in enumerate(assertions):
        pointer = f"/assertions/{index}"
        ctx = Context(records, manifested)
        if not isinstance(item, dict):
            item = {}
        aid = _text(item, "id", f"#{index}")
        kind_name = _text(item, "kind", "?")
        description = _text(item, "description", "")
        kind = KINDS.get(kind_name)
        if aid in seen:
            status, message = AssertionStatus.ERROR, f"the id {aid} is used twice in the spec"
        elif kind is None:
            status, message = AssertionStatus.ERROR, f"unknown assertion kind {kind_name!r}"
        else:
            try:
                outcome = kind.evaluate(item, ctx)
                status, message = outcome.status, outcome.message
            except EvalError as exc:
                status, message = AssertionStatus.ERROR, str(exc)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
                status, message = AssertionStatus.ERROR, f"malformed assertion: {exc!r}"
        seen.add(aid)
        reads = tuple(dict.fromkeys(ctx.reads))
        result = AssertionResult(aid, kind_name, description, status, message, reads)
        results.append(result)
        if status is not AssertionStatus.PASSED:
            first = reads[0] if reads else None
            code = "assertion.failed" if status is AssertionStatus.FAILED else "assertion.error"
            stage.findings.append(
                Finding(
                    code,
                    first.path if first else spec_path,
                    f"{aid}: {message}.",
                    pointer=first.pointer if first else pointer,
                )
            )
    stage.counts = {
        "assertions": len(results),
        "passed": sum(r.status is AssertionStatus.PASSED for r in results),
        "failed": sum(r.status is AssertionStatus.FAILED for r in results),
        "errors": sum(r.status is AssertionStatus.ERROR for r in results),
    }
    return stage, results
