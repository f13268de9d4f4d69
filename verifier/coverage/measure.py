"""Which recorded values does something compare? The coverage audit of one check run.

A leaf of a record (a string, number, boolean, null, or an empty object or array) is
*covered* when an assertion kind or a case-catalogue cell compares it: its pointer, or an
ancestor's, is among what the kind declares it compares (:meth:`AssertionKind.covers`).
It is *excused* when it is the record's ``$schema`` member, lies under its top-level
``provenance``, or matches an entry of the spec's ``unasserted`` list (each with a reason).
Anything else is *uncovered*: it can change to any schema-valid value and ``check`` still
passes. Nothing is dropped: a record that could not be read is a finding, not a zero.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from verifier.assertions import kind_named
from verifier.coverage.report import CoverageReport, Excuse, FileCoverage, Leaf, LeafStatus
from verifier.findings import Finding, Severity
from verifier.json.pointer import EvalError, Glob, resolve_pointer
from verifier.judge.catalogue import catalogue_cells
from verifier.plan.spec import containers_in
from verifier.report import Report
from verifier.values.needs import CATALOGUE
from verifier.values.records import Records
from verifier.version import __version__
from verifier.witness import LOG_SHAPE

PROVENANCE_REASON = "provenance: who made the record and how, not a claim the spec tests"
SCHEMA_REASON = "the record's declared schema: the validity stage checks the record against it"


def escape(key: str) -> str:
    """One JSON pointer reference token (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")


def type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def leaves(value: Any) -> Iterator[tuple[str, Any]]:
    """``(pointer, value)`` for every leaf of ``value``, in document order (an empty object
    or array is a leaf: it is a recorded value too)."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        here, current = stack.pop()
        if isinstance(current, dict) and current:
            stack.extend(reversed([(f"{here}/{escape(str(k))}", v) for k, v in current.items()]))
        elif isinstance(current, list) and current:
            stack.extend(reversed([(f"{here}/{i}", v) for i, v in enumerate(current)]))
        else:
            yield here, current


def ancestors(pointer: str) -> Iterator[str]:
    """``pointer`` and each pointer above it, the root ``""`` last."""
    yield pointer
    cut = pointer.rfind("/")
    while cut >= 0:
        pointer = pointer[:cut]
        yield pointer
        cut = pointer.rfind("/")


@dataclass(slots=True)
class _Covers:
    """What is compared in one file: pointers compared whole, arrays whose length only is."""

    whole: dict[str, list[str]] = field(default_factory=dict)  # pointer -> who (labels)
    length: dict[str, list[str]] = field(default_factory=dict)
    asserted: set[str] = field(default_factory=set)  # pointers some assertion compares
    asserted_length: set[str] = field(default_factory=set)  # arrays whose length one does

    def add(self, pointer: str, label: str, length: bool, assertion: bool) -> None:
        (self.length if length else self.whole).setdefault(pointer, []).append(label)
        if assertion:
            (self.asserted_length if length else self.asserted).add(pointer)


@dataclass(frozen=True, slots=True)
class _Spread:
    """A cover to apply to each element of an array (``count`` with ``distinct``)."""

    pointer: str
    each: str
    label: str
    assertion: bool


@dataclass(slots=True)
class _Plan:
    exact: dict[str, _Covers] = field(default_factory=dict)
    spread: dict[str, list[_Spread]] = field(default_factory=dict)
    globs: list[tuple[Glob, str, str, bool]] = field(default_factory=list)  # (file, ptr, ..)

    def covers(self, path: str, document: Any) -> _Covers:
        covers = self.exact.get(path) or _Covers()
        found = _Covers(
            {k: list(v) for k, v in covers.whole.items()},
            {k: list(v) for k, v in covers.length.items()},
            set(covers.asserted),
            set(covers.asserted_length),
        )
        for glob, pointer, label, assertion in self.globs:
            if glob.match(path):
                found.add(pointer, label, False, assertion)
        for spread in self.spread.get(path, ()):
            try:
                array = resolve_pointer(document, spread.pointer)
            except EvalError:
                continue
            if isinstance(array, list):
                for i in range(len(array)):
                    at = f"{spread.pointer}/{i}{spread.each}"
                    found.add(at, spread.label, False, spread.assertion)
        return found


def _plan(spec: Any, catalogue: Any, catalogue_path: str, prefix: str) -> _Plan:
    plan = _Plan()

    def add(
        file: str,
        pointer: str,
        label: str,
        *,
        glob: bool = False,
        length: bool = False,
        each: str | None = None,
        assertion: bool,
    ) -> None:
        if glob:
            plan.globs.append((Glob(prefix + file), pointer, label, assertion))
        elif each is not None:
            plan.spread.setdefault(prefix + file, []).append(
                _Spread(pointer, each, label, assertion)
            )
        else:
            plan.exact.setdefault(prefix + file, _Covers()).add(pointer, label, length, assertion)

    assertions = spec.get("assertions") if isinstance(spec, dict) else None
    for number, item in enumerate(assertions if isinstance(assertions, list) else ()):
        if not isinstance(item, dict):
            continue
        name = item.get("kind")
        kind = kind_named(name)
        if kind is None:
            continue
        given = item.get("id")
        label = given if isinstance(given, str) else f"assertion /assertions/{number}"
        try:
            covers = list(kind.covers(item))
        except Exception:  # a bug in the kind: check reports it as an internal error
            continue
        for cover in covers:
            add(
                cover.file,
                cover.pointer,
                label,
                glob=cover.glob,
                length=cover.length,
                each=cover.each,
                assertion=True,
            )
    cases = catalogue.get("cases") if isinstance(catalogue, dict) else None
    for _, _, cells in catalogue_cells(cases if isinstance(cases, list) else []):
        for at, cell in cells:
            label = f"{catalogue_path}#{at}"
            for key in ("select", "preregistered", "count"):
                chosen = cell.get(key)
                if not isinstance(chosen, dict):
                    continue
                file, pointer = chosen.get("file"), chosen.get("pointer")
                if not isinstance(file, str) or not isinstance(pointer, str):
                    continue
                distinct = cell.get("distinct")
                if key != "count":
                    add(file, pointer, label, assertion=False)
                elif isinstance(distinct, str):
                    add(file, pointer, label, each=distinct, assertion=False)
                else:
                    add(file, pointer, label, length=True, assertion=False)
    return plan


def _excuses(spec: Any, spec_path: str) -> list[Excuse]:
    entries = spec.get("unasserted") if isinstance(spec, dict) else None
    out: list[Excuse] = []
    for i, entry in enumerate(entries if isinstance(entries, list) else ()):
        if not isinstance(entry, dict):
            continue  # the spec's schema reports a malformed entry
        file, pointer, reason = entry.get("file"), entry.get("pointer"), entry.get("reason")
        if isinstance(file, str) and isinstance(pointer, str) and isinstance(reason, str):
            out.append(Excuse(file, pointer, reason, f"/unasserted/{i}"))
    return out


def _classify(
    path: str,
    inner: str,
    document: Any,
    covers: _Covers,
    excuses: list[tuple[Excuse, Glob, Glob]],
    matched: list[int],
) -> FileCoverage:
    out = FileCoverage(path)
    mine = [(i, pglob) for i, (e, fglob, pglob) in enumerate(excuses) if fglob.match(inner)]
    for pointer, value in leaves(document):
        kind = type_of(value)
        chain = list(ancestors(pointer))
        who: list[str] = []
        asserted = False
        for at in chain:
            labels = covers.whole.get(at)
            if labels:
                who.extend(labels)
                asserted = asserted or at in covers.asserted
        if isinstance(value, list) and pointer in covers.length:
            who.extend(covers.length[pointer])  # an empty array's length is all there is
            asserted = asserted or pointer in covers.asserted_length
        if who:
            unique = tuple(dict.fromkeys(who))
            out.leaves.append(Leaf(pointer, LeafStatus.COVERED, kind, unique, asserted))
            continue
        reason = None
        if pointer == "/$schema":
            reason = SCHEMA_REASON
        elif pointer == "/provenance" or pointer.startswith("/provenance/"):
            reason = PROVENANCE_REASON
        else:
            for i, pglob in mine:
                if any(pglob.match(at) for at in chain):
                    reason = excuses[i][0].reason
                    matched[i] += 1
                    break
        if reason is not None:
            out.leaves.append(Leaf(pointer, LeafStatus.EXCUSED, kind, (reason,)))
        else:
            out.leaves.append(Leaf(pointer, LeafStatus.UNCOVERED, kind))
    return out


def measure(
    report: Report,
    records: Records,
    source: str,
    spec_path: str,
    records_dir: str,
    schemas_dir: str,
    documents: tuple[str, ...] = (CATALOGUE,),
    fail_under: float | None = None,
) -> CoverageReport:
    """The coverage of the assertion spec and the catalogue over ``report``'s ``records``
    (:attr:`verifier.pipeline.Run.records`); the run must have kept every record whole
    (``Options.whole``)."""
    content = report.content_root
    prefix = content + "/" if content else ""
    spec = records.document(prefix + spec_path)
    catalogue_path = next((d for d in documents if d != spec_path), None)
    catalogue = records.document(prefix + catalogue_path) if catalogue_path else None
    out = CoverageReport(
        __version__,
        source,
        report.manifest,
        prefix + spec_path,
        prefix + catalogue_path if catalogue_path and catalogue is not None else None,
        fail_under=fail_under,
    )
    out.check_findings = sum(1 for f in report.findings if f.severity is Severity.ERROR)
    if out.check_findings:
        out.findings.append(
            Finding(
                "coverage.check-failed",
                report.manifest,
                f"The archive does not pass check ({out.check_findings} error(s)): coverage "
                "was measured on what could be read; run verify-evidence check and fix those "
                "first.",
            )
        )
    plan = _plan(spec, catalogue, prefix + catalogue_path if catalogue_path else "", prefix)
    excuses = _excuses(spec, spec_path)
    compiled = [(e, Glob(e.file), Glob(e.pointer)) for e in excuses]
    matched = [0] * len(excuses)
    meta = {spec_path, *documents}
    records_prefix = records_dir.strip("/") + "/"
    schemas_prefix = schemas_dir.strip("/") + "/"
    parsed = set(records)
    logs = [Glob(c[0]) for c in containers_in(spec) if c[1] == LOG_SHAPE]
    held = [Glob(c[0]) for c in containers_in(spec) if c[1] != LOG_SHAPE]
    for entry in sorted(report.files, key=lambda e: e.path):
        if not entry.listed or not entry.path.startswith(prefix):
            continue
        inner = entry.path[len(prefix) :]
        if any(log.match(inner) for log in logs):
            out.not_audited.append(
                (
                    entry.path,
                    "a witness log: its chain is checked by check's validity stage and its "
                    "calls compared by witnessed-calls, not leaf by leaf",
                )
            )
            continue
        if any(container.match(inner) for container in held):
            out.not_audited.append(
                (
                    entry.path,
                    "a transcript file the spec's transcripts declare: its histories are "
                    "checked by check's validity stage and its calls compared by "
                    "witnessed-calls, not leaf by leaf",
                )
            )
            continue
        if not (inner.startswith(records_prefix) and inner.endswith(".json")):
            continue
        if inner.startswith(schemas_prefix):
            continue
        if inner in meta:
            out.not_audited.append(
                (entry.path, "the assertion spec or the case catalogue: it makes the claims")
            )
            continue
        if entry.path not in parsed:
            withheld = entry.status == "withheld"
            why = (
                "the publisher withholds it: the archive does not hold its content"
                if withheld
                else "it could not be read or parsed as JSON"
            )
            then = "give it with --withheld-dir" if withheld else "fix what check reports for it"
            out.not_audited.append((entry.path, why))
            out.findings.append(
                Finding(
                    "coverage.unread",
                    entry.path,
                    f"This record was not audited: {why}; {then}.",
                )
            )
            continue
        document = records.resolve(entry.path, "")
        out.files.append(
            _classify(
                entry.path,
                inner,
                document,
                plan.covers(entry.path, document),
                compiled,
                matched,
            )
        )
    out.excuses = [
        Excuse(e.file, e.pointer, e.reason, e.at, matched[i]) for i, e in enumerate(excuses)
    ]
    for excuse in out.excuses:
        if excuse.matched == 0:
            out.findings.append(
                Finding(
                    "coverage.unused-excuse",
                    prefix + spec_path,
                    f"This 'unasserted' entry ({excuse.file} {excuse.pointer}) excuses no "
                    "uncovered value; remove it, or correct its file or pointer.",
                    excuse.at,
                )
            )
    for f in out.files:
        for leaf in f.leaves:
            if leaf.status is LeafStatus.UNCOVERED:
                out.findings.append(
                    Finding(
                        "coverage.uncovered",
                        f.path,
                        "No assertion or catalogue cell compares this value: it can change "
                        "and check still passes; assert it, or list it under 'unasserted' "
                        "with a reason.",
                        leaf.pointer,
                    )
                )
    if not out.files:
        out.findings.append(
            Finding(
                "coverage.nothing",
                report.manifest,
                f"No record under {records_prefix} was audited: there is nothing to measure; "
                "check the archive's layout (--records).",
            )
        )
    if fail_under is not None:
        share = out.percent
        if share is None or share < fail_under:
            shown = "nothing to cover" if share is None else f"{share:g}%"
            out.findings.append(
                Finding(
                    "coverage.below-threshold",
                    report.manifest,
                    f"Coverage is {shown}, under --fail-under {fail_under:g}%; assert or "
                    "excuse the uncovered values.",
                )
            )
    return out


__all__ = ["PROVENANCE_REASON", "SCHEMA_REASON", "ancestors", "escape", "leaves", "measure"]
