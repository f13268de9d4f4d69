"""Stage 3, consistency: do the records agree with each other and with the claims made?

Runs the declarative assertion spec kept inside the archive. Each assertion is evaluated on
its own, and the rest still run whatever one does. What each can come to:

- ``assertion.failed``: its condition does not hold;
- ``assertion.error``: it could not be evaluated (a file missing, unparsable or not listed, a
  pointer to nothing, a parameter malformed or not a JSON pointer);
- ``assertion.vacuous``: its condition holds only because there was nothing to check (a
  count of nothing under a bound nothing breaks, no value compared, no assertion at all);
- ``assertion.internal-error``: the kind's own code raised: a bug in the verifier, reported
  as one, never as a pass or as the spec's fault.

With no spec at all, the stage checked nothing: ``assertion.no-spec`` when the archive holds
records (their claims went unchecked), a plain "nothing to check" when it holds none (a bare
manifest, a BagIt bag of other files), so a manifest alone still verifies.

Every finding's ``pointer`` is a JSON pointer: into the record read, or into the spec.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from types import MappingProxyType
from typing import Any

from verifier.assertions.batch import Quick
from verifier.assertions.evaluate import evaluate_items, judge_rows, quick_passes, rows_of, text_of
from verifier.assertions.interface import WITHHELD_READ
from verifier.findings import Finding, Stage
from verifier.inspect.cases import Compact
from verifier.inspect.gather import Arrived
from verifier.plan.cases import CaseRules, entry_pointer, findings_of, instance
from verifier.report import AssertionResult, AssertionStatus, FileEntry, StageResult
from verifier.values.packed import WINDOW
from verifier.values.records import Records

_WHY_UNREAD = MappingProxyType(
    {
        "missing": "is listed in the manifest but missing from the archive",
        "unreadable": "is listed in the manifest but could not be read",
        "unsafe": "is listed in the manifest but was refused (an unsafe name or a link)",
        "not-regular": "is listed in the manifest but is not a regular file",
        "withheld": WITHHELD_READ,
    }
)


def unread_reasons(
    files: Iterable[FileEntry],
    prefix: str,
    records: Records,
    is_record: Callable[[str], bool],
    records_dir: str,
) -> dict[str, str]:
    """Why each listed file that is not a parsed record is not one (paths inside the content
    root ``prefix``): what an assertion reading it reports, instead of a guess."""
    out: dict[str, str] = {}
    for entry in files:
        if not entry.listed or not entry.path.startswith(prefix):
            continue
        path = entry.path[len(prefix) :]
        if path in records:
            continue
        why = _WHY_UNREAD.get(entry.status)
        if why is None:
            if is_record(path):
                why = "is listed in the manifest but could not be parsed as JSON"
            else:
                why = (
                    "is listed in the manifest but is not a record (records are the .json "
                    f"files under {records_dir.strip('/')}/)"
                )
        out[path] = why
    return out


def repeated_ids(assertions: list[Any]) -> set[int]:
    """The indexes of the assertions whose id an earlier assertion already uses."""
    seen: set[str] = set()
    out: set[int] = set()
    for index, item in enumerate(assertions):
        aid = text_of(item if isinstance(item, dict) else {}, "id", f"#{index}")
        if aid in seen:
            out.add(index)
        seen.add(aid)
    return out


def check_consistency(
    records: Records,
    manifested: AbstractSet[str],
    spec_path: str,
    spec_present: bool,
    unread: Mapping[str, str] | None = None,
    only: Collection[int] | None = None,
    repeated: Collection[int] | None = None,
    record_count: int = 0,
    batch: bool = True,
    cases: CaseRules | None = None,
    judged: Arrived | None = None,
) -> tuple[StageResult, list[AssertionResult]]:
    """Evaluate the assertion spec at ``spec_path`` over ``records``; ``manifested`` is the
    set of listed files that were read, ``unread`` why each other listed file is not a
    record (:func:`unread_reasons`). ``only``: evaluate just the assertions at these indexes
    of the spec (the results are theirs, in spec order; ``coverage --mutate`` re-judges only
    the assertions that read a changed record; ``repeated``: :func:`repeated_ids` of the
    spec's assertions, if already known). ``record_count``: how many records (besides the
    spec) the archive lists or holds: with records and no spec, ``assertion.no-spec``.
    ``batch``: let the kinds find their passes in one call each (the default; ``False``
    evaluates every assertion one by one, which the tests compare it with).

    ``cases``: the spec's rules judged where their cases are read (their instances follow the
    written assertions, case by case); ``judged``: the results the workers made of them, by
    case and rule's place. An instance without one is judged here, over ``records``."""
    stage = StageResult(Stage.CONSISTENCY)
    results: list[AssertionResult] = []
    stage.counts = {"assertions": 0, "passed": 0, "failed": 0, "errors": 0}
    if not spec_present and record_count:
        held = f"{record_count} records" if record_count != 1 else "1 record"
        them = "them" if record_count != 1 else "it"
        stage.findings.append(
            Finding(
                "assertion.no-spec",
                spec_path,
                f"The archive holds {held} but no assertion spec, so no claim about {them} "
                f"was checked; add {spec_path} (docs/archive-format.md), or run with --stages "
                "integrity,validity to check only those stages.",
            )
        )
        return stage, results
    if not spec_present:
        stage.note = f"No records and no assertion spec ({spec_path}): nothing to check."
        return stage, results
    shell = records.shell(spec_path)
    if only is None:  # what expanding the spec's rules found (verifier.plan.cases)
        for code, pointer, message in findings_of(shell):
            stage.findings.append(Finding(code, spec_path, message + ".", pointer=pointer))

    def where(index: int) -> str:
        return entry_pointer(shell, index)

    parts = records.windows(spec_path) if only is None else None
    if parts is None:  # the spec read whole (any spec not packed in parts, or some entries)
        spec = records.document(spec_path)
        assertions = spec.get("assertions") if isinstance(spec, dict) else None
        invalid = _spec_invalid(
            assertions, spec, spec_path, records, unread, cases is not None and only is None
        )
        if invalid is not None:
            stage.findings.append(invalid)
            return stage, results
        assert isinstance(assertions, list)
        if only is not None and repeated is None:
            repeated = repeated_ids(assertions)
        indexes = range(len(assertions)) if only is None else sorted(set(only))
        parts = iter([(0, assertions)])
    else:  # a large spec packed in parts (never empty): a part's objects alive at a time
        indexes = None
    seen: set[str] = set()
    tally = [0, 0, 0]  # passed, failed, errors
    for start, items in parts:
        rows, groups = rows_of(
            items,
            indexes if indexes is not None else range(len(items)),
            repeated,
            spec_path,
            seen,
            start,
            where,
        )
        del items
        quick: list[Quick | None] = (
            quick_passes(groups, len(rows), records) if batch else [None] * len(rows)
        )
        del groups
        judge_rows(
            rows, quick, records, manifested, unread, spec_path, stage, results, tally, where
        )
    if cases is not None and only is None:
        made = _instances(cases, judged, records, manifested, unread, spec_path, batch)
        for result in made:
            results.append(result)
            status = result.status
            tally[0 if status is PASSED else 1 if status is FAILED else 2] += 1
            if result.finding is not None:
                stage.findings.append(result.finding)
    stage.counts = {
        "assertions": len(results),
        "passed": tally[0],
        "failed": tally[1],
        "errors": tally[2],
    }
    return stage, results


def _spec_invalid(
    assertions: Any,
    spec: Any,
    spec_path: str,
    records: Records,
    unread: Mapping[str, str] | None,
    instances: bool = False,
) -> Finding | None:
    """The finding for a spec whose ``assertions`` is not a list, or is empty (and holds no
    rule instance: ``instances``); else ``None``."""
    if not isinstance(assertions, list):
        why = (unread or {}).get(spec_path)
        if why is not None:
            what = f"The assertion spec {why}"
        elif spec is None and spec_path not in records:
            what = "The assertion spec could not be parsed as JSON"
        else:
            what = "The assertion spec has no 'assertions' array"
        return Finding(
            "assertion.spec-invalid",
            spec_path,
            f"{what}; no assertion was checked.",
            pointer="/assertions" if spec is not None else None,
        )
    if not assertions and not instances:
        return Finding(
            "assertion.vacuous",
            spec_path,
            "The assertion spec lists no assertion, so nothing was checked; list the "
            "claims the records must agree with.",
            pointer="/assertions",
        )
    return None


PASSED, FAILED = AssertionStatus.PASSED, AssertionStatus.FAILED


def _instances(
    cases: CaseRules,
    judged: Arrived | None,
    records: Records,
    manifested: AbstractSet[str],
    unread: Mapping[str, str] | None,
    spec_path: str,
    batch: bool,
) -> Iterator[AssertionResult]:
    """Every rule instance's result, case by case in the rules' order: the workers' where
    they made one (its paths the records' own strings), else judged here over every record
    (a window of them at a time)."""
    rules = cases.rules
    pointers = [f"/rules/{rule.spec_index}" for rule in rules]
    waiting: list[tuple[str, Mapping[int, Compact]]] = []
    items: list[Any] = []
    at: list[str] = []
    places: list[tuple[str, int]] = []
    own = records.own
    status_of = {s.value: s for s in AssertionStatus}  # (a lookup: the enum's call is slower)
    # what an instance's result takes of its rule (confined() made sure of a string id and
    # a known kind), as the rows of rows_of() read them
    named = [
        (rule.rule["id"], rule.rule["kind"], text_of(rule.rule, "description", ""))
        for rule in rules
    ]

    def flush() -> Iterator[AssertionResult]:
        made = (
            dict(
                zip(
                    places,
                    evaluate_items(items, at, records, manifested, unread, spec_path, batch),
                    strict=True,
                )
            )
            if items
            else {}
        )
        for case, got in waiting:
            for place in range(len(rules)):
                found = got.get(place)
                if found is None:
                    yield made[(case, place)]
                    continue
                _, status, message, reads, finding = found
                if len(reads) == 2:  # (one read or two: most results)
                    flat: tuple[str, ...] = (own(reads[0]), reads[1])
                elif len(reads) == 4:
                    flat = (own(reads[0]), reads[1], own(reads[2]), reads[3])
                else:
                    flat = tuple(own(r) if i % 2 == 0 else r for i, r in enumerate(reads))
                rid, kind, description = named[place]
                yield AssertionResult(
                    f"{rid}@{case}",
                    kind,
                    description,
                    status_of[status],
                    message,
                    (),
                    finding,
                    flat_reads=flat,
                )
        waiting.clear()
        items.clear()
        at.clear()
        places.clear()

    empty: dict[int, Compact] = {}
    for case in cases.cases:
        got = judged.pop(case) if judged is not None else empty
        if len(got) != len(rules):
            for place, rule in enumerate(rules):
                if place not in got:
                    items.append(instance(rule.rule, case, rule.holes))
                    at.append(pointers[place])
                    places.append((case, place))
        waiting.append((case, got))
        if len(items) >= WINDOW or len(waiting) >= WINDOW:
            yield from flush()
    yield from flush()
