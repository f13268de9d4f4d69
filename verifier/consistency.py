"""Stage 3, consistency: do the records agree with each other and with the claims made?

Runs the declarative assertion spec kept inside the archive. Each assertion is evaluated on
its own; a malformed one is an ``assertion.error``, and the rest still run.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from verifier.assertions import KINDS, Context, EvalError
from verifier.model import AssertionResult, AssertionStatus, Finding, Stage, StageResult
from verifier.records import Need, Records

DEFAULT_SPEC = "evidence/assertions.json"


def _text(item: dict[str, Any], key: str, default: str) -> str:
    value = item.get(key)
    return value if isinstance(value, str) else default


def assertions_of(spec: Any) -> list[Any] | None:
    assertions = spec.get("assertions") if isinstance(spec, dict) else None
    return assertions if isinstance(assertions, list) else None


def needs_of_assertion(item: Any) -> list[Need] | None:
    """What one assertion will read, as its kind declares it; ``None`` for a malformed one
    or an unknown kind (evaluating it reports the error, reading nothing)."""
    if not isinstance(item, dict):
        return None
    name = item.get("kind")
    kind = KINDS.get(name) if isinstance(name, str) else None
    if kind is None:
        return None
    try:
        return list(kind.needs(item))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return None


def needs_of(spec: Any) -> Iterator[Need]:
    """What the assertions of ``spec`` (the parsed assertion spec) will read."""
    for item in assertions_of(spec) or ():
        yield from needs_of_assertion(item) or ()


@dataclass(frozen=True, slots=True)
class Planned:
    """How the assertions of a spec can be evaluated: ``local`` maps an assertion's index to
    the files it reads and what it needs from them, for each that reads only named records
    (it can be evaluated as soon as those have been read, wherever they were); ``needs`` are
    what the others read."""

    local: dict[int, tuple[frozenset[str], list[Need]]]
    needs: list[Need]


def plan_assertions(spec: Any) -> Planned:
    local: dict[int, tuple[frozenset[str], list[Need]]] = {}
    needs: list[Need] = []
    seen: set[str] = set()
    for index, item in enumerate(assertions_of(spec) or ()):
        declared = needs_of_assertion(item)
        aid = _text(item, "id", f"#{index}") if isinstance(item, dict) else f"#{index}"
        repeated = aid in seen
        seen.add(aid)
        if declared is None:
            continue
        if repeated or not declared or any(n.glob for n in declared) or "files" in item:
            needs.extend(declared)  # evaluated at the end, in this process
            continue
        local[index] = (frozenset(n.file for n in declared), declared)
    return Planned(local, needs)


def evaluate(
    index: int, item: Any, records: Records, manifested: set[str], seen: set[str]
) -> AssertionResult:
    """One assertion of the spec, at ``index``; ``seen`` holds the ids of those before it."""
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
    reads = tuple(dict.fromkeys(ctx.reads))
    return AssertionResult(aid, kind_name, description, status, message, reads)


def check_consistency(
    records: Records,
    manifested: set[str],
    spec_path: str,
    spec_present: bool,
    done: dict[int, AssertionResult] | None = None,
) -> tuple[StageResult, list[AssertionResult]]:
    """Evaluate the spec's assertions, in order. ``done`` holds those already evaluated
    where their records were read (:func:`plan_assertions`); the rest are evaluated here."""
    stage = StageResult(Stage.CONSISTENCY)
    results: list[AssertionResult] = []
    if not spec_present:
        stage.note = f"No assertion spec ({spec_path}): nothing to check."
        stage.counts = {"assertions": 0, "passed": 0, "failed": 0, "errors": 0}
        return stage, results
    assertions = assertions_of(records.document(spec_path))
    if assertions is None:
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
    done = done or {}
    for index, item in enumerate(assertions):
        result = done.get(index) or evaluate(index, item, records, manifested, seen)
        seen.add(result.id)
        results.append(result)
        status, reads = result.status, result.reads
        if status is not AssertionStatus.PASSED:
            first = reads[0] if reads else None
            code = "assertion.failed" if status is AssertionStatus.FAILED else "assertion.error"
            stage.findings.append(
                Finding(
                    code,
                    first.path if first else spec_path,
                    f"{result.id}: {result.message}.",
                    pointer=first.pointer if first else f"/assertions/{index}",
                )
            )
    stage.counts = {
        "assertions": len(results),
        "passed": sum(r.status is AssertionStatus.PASSED for r in results),
        "failed": sum(r.status is AssertionStatus.FAILED for r in results),
        "errors": sum(r.status is AssertionStatus.ERROR for r in results),
    }
    return stage, results
