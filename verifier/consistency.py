"""Stage 3, consistency: do the records agree with each other and with the claims made?

Runs the declarative assertion spec kept inside the archive. Each assertion is evaluated on
its own; a malformed one is an ``assertion.error``, and the rest still run.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from typing import Any

from verifier.assertions import KINDS, Context, EvalError
from verifier.model import AssertionResult, AssertionStatus, Finding, Stage, StageResult
from verifier.pointer import resolve_pointer
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


_CELL_GROUPS = ("counts", "outcomes", "readbacks")


def check_catalogue(records: Records, path: str, assertion_ids: set[str] | None) -> list[Finding]:
    """What the case catalogue at ``path`` claims the records hold: every cell's selector
    resolves (a count's to an array), and every assertion a cell or a case names is in the
    assertion spec (``assertion_ids``; ``None`` when consistency has no spec to compare
    with). Nothing for an absent or unparsable catalogue (validity reports the latter)."""
    document = records.document(path)
    cases = document.get("cases") if isinstance(document, dict) else None
    if not isinstance(cases, list):
        return []
    findings: list[Finding] = []

    def unresolved(pointer: str, label: str, message: str) -> None:
        findings.append(Finding("catalogue.unresolved", path, f"{label}: {message}.", pointer))

    def selector(cell: dict[str, Any], key: str, at: str, label: str, count: bool) -> None:
        chosen = cell.get(key)
        if not isinstance(chosen, dict):
            return  # the catalogue's schema reports a malformed cell
        file, pointer = chosen.get("file"), chosen.get("pointer")
        if not isinstance(file, str) or not isinstance(pointer, str):
            return
        if file not in records:
            unresolved(f"{at}/{key}/file", label, f"{file} is not a parsed record of the archive")
            return
        try:
            value = records.resolve(file, pointer)
        except EvalError as exc:
            unresolved(f"{at}/{key}/pointer", label, str(exc))
            return
        if not count:
            return
        if not isinstance(value, list):
            unresolved(f"{at}/{key}/pointer", label, f"{file}#{pointer} is not an array")
            return
        distinct = cell.get("distinct")
        if not isinstance(distinct, str):
            return
        for element in value:
            try:
                resolve_pointer(element, distinct)
            except EvalError as exc:
                unresolved(f"{at}/distinct", label, f"an element of {file}#{pointer}: {exc}")
                return

    def named(ids: Any, at: str, patterns: bool) -> None:
        if assertion_ids is None or not isinstance(ids, list):
            return
        for index, aid in enumerate(ids):
            if not isinstance(aid, str):
                continue
            known = (
                any(fnmatch.fnmatchcase(a, aid) for a in assertion_ids)
                if patterns
                else aid in assertion_ids
            )
            if not known:
                what = "matches no assertion" if patterns else "is not an assertion"
                findings.append(
                    Finding(
                        "catalogue.unknown-assertion",
                        path,
                        f"{aid!r} {what} of the assertion spec.",
                        f"{at}/{index}",
                    )
                )

    for number, case in enumerate(cases):
        if not isinstance(case, dict):
            continue
        here = f"/cases/{number}"
        cells = [(f"{here}/{g}/{i}", c) for g in _CELL_GROUPS for i, c in _items(case.get(g))]
        if isinstance(case.get("acceptance"), dict):
            cells.append((f"{here}/acceptance", case["acceptance"]))
        for at, cell in cells:
            given = cell.get("label")
            label = given if isinstance(given, str) else at
            if "select" in cell:
                selector(cell, "select", at, label, count=False)
            else:
                selector(cell, "count", at, label, count=True)
            if "preregistered" in cell:
                selector(cell, "preregistered", at, f"{label} (preregistration)", count=False)
            named(cell.get("assertions"), f"{at}/assertions", patterns=False)
        named(case.get("assertions"), f"{here}/assertions", patterns=True)
    return findings


def _items(value: Any) -> list[tuple[int, dict[str, Any]]]:
    if not isinstance(value, list):
        return []
    return [(i, c) for i, c in enumerate(value) if isinstance(c, dict)]
