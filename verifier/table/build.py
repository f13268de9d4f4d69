"""The per-case outcome table as data, built from a verification report and the case catalogue.

The catalogue holds selectors only; every value here is what they selected of the records
the report's stages worked on, taken as they were judged (:attr:`Report.selected`). A cell
is *unverified* when its file has any finding, when one of the assertions that establish it
did not pass, or when its selector resolves to nothing; the table then says so, and the
command exits 1. Nothing here aggregates cases: there is no
success rate, no pass count and no merged verdict per case.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from verifier.assertions.interface import EvalError, resolve_pointer
from verifier.findings import Finding, Severity, Stage
from verifier.json.numbers import canonical
from verifier.json.write import dumps
from verifier.report import AssertionStatus, Report, StageStatus
from verifier.values.needs import CATALOGUE

DEFAULT_CATALOGUE = CATALOGUE
NOT_RECORDED = "not recorded"


@dataclass(frozen=True, slots=True)
class Cell:
    """One labelled value and where it came from."""

    label: str
    value: Any
    text: str  # the value as shown (acceptance results upper-cased)
    path: str
    pointer: str
    sha256: str | None
    how: str  # "value" | "count" | "distinct count" | "assertion" (the assertion's verdict)
    problems: tuple[str, ...] = ()
    assertions: tuple[tuple[str, str], ...] = ()  # (id, status) of the establishing assertions
    #: what would have made it unverified but was accepted (``--ignore``, ``--select``,
    #: ``--baseline``): the run passes over it, and the cell says so, never verified
    accepted: tuple[str, ...] = ()
    evidence: str | None = None  # readbacks: the evidence item
    preregistered: bool | None = None  # readbacks: the record's own declaration, if any

    @property
    def verified(self) -> bool:
        """Nothing is wrong with it, and nothing wrong was accepted."""
        return not self.problems and not self.accepted

    @property
    def reasons(self) -> tuple[str, ...]:
        """Why it is not verified: its problems, then what was accepted."""
        return self.problems + self.accepted

    @property
    def failing(self) -> bool:
        """A problem that was not accepted: it fails the table."""
        return bool(self.problems)

    def shown(self, as_count: bool = False) -> str:
        """``label: value`` (``label value`` for counts), with a readback's declarations."""
        text = f"{self.label} {self.text}" if as_count else f"{self.label}: {self.text}"
        if self.preregistered is False:
            text += " (not preregistered)"
        elif self.preregistered is True:
            text += " (preregistered)"
        return text

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "label": self.label,
            "value": self.value,
            "text": self.text,
            "source": {"path": self.path, "pointer": self.pointer, "sha256": self.sha256},
            "how": self.how,
            "verified": self.verified,
            "problems": list(self.problems),
            "accepted": list(self.accepted),
            "assertions": [{"id": i, "status": s} for i, s in self.assertions],
        }
        if self.evidence is not None:
            out["evidence"] = self.evidence
        if self.preregistered is not None or self.evidence is not None:
            out["preregistered"] = self.preregistered
        return out


@dataclass(frozen=True, slots=True)
class CaseRow:
    id: str
    title: str
    kind: str
    evidence: tuple[str, ...]
    counts: tuple[Cell, ...]
    outcomes: tuple[Cell, ...]
    acceptance: Cell | None
    readbacks: tuple[Cell, ...]
    limits: tuple[str, ...]
    assertions: tuple[tuple[str, str], ...]  # covering assertions: (id, status)
    files: tuple[tuple[str, str | None], ...]  # evidence files behind the row: (path, sha256)
    #: the row's own text (title, kind, limits, evidence) is the catalogue's: when the
    #: catalogue failed its integrity or validity check, why (and what of that was accepted)
    problems: tuple[str, ...] = ()
    accepted: tuple[str, ...] = ()
    catalogue: str = ""  # where the row's text comes from: ``path#/cases/N``

    @property
    def cells(self) -> tuple[Cell, ...]:
        acceptance = (self.acceptance,) if self.acceptance else ()
        return self.counts + self.outcomes + acceptance + self.readbacks

    @property
    def described(self) -> bool:
        """Whether its title, kind, limits and evidence come from a verified catalogue."""
        return not self.problems and not self.accepted

    @property
    def catalogue_note(self) -> str:
        """What every view puts beside the row's catalogue text; ``""`` when verified."""
        if self.problems:
            return "from an unverified catalogue"
        return "from an unverified catalogue, accepted" if self.accepted else ""

    @property
    def verified(self) -> bool:
        return self.described and all(c.verified for c in self.cells)

    @property
    def failing(self) -> bool:
        return bool(self.problems) or any(c.failing for c in self.cells)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "kind": self.kind,
            "evidence": list(self.evidence),
            "counts": [c.to_dict() for c in self.counts],
            "outcomes": [c.to_dict() for c in self.outcomes],
            "acceptance": self.acceptance.to_dict() if self.acceptance else None,
            "readbacks": [c.to_dict() for c in self.readbacks],
            "limits": list(self.limits),
            "assertions": [{"id": i, "status": s} for i, s in self.assertions],
            "files": [{"path": p, "sha256": d} for p, d in self.files],
            "catalogue": {
                "source": self.catalogue,
                "verified": self.described,
                "problems": list(self.problems),
                "accepted": list(self.accepted),
            },
        }


@dataclass(slots=True)
class OutcomeTable:
    tool_version: str
    catalogue: str
    report: Report
    cases: list[CaseRow] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # catalogue-level problems
    fail_on: Severity = Severity.ERROR  # the lowest severity that fails it (--fail-on)
    generated_at: str | None = None  # when the table was made (UTC; SOURCE_DATE_EPOCH), for HTML

    @property
    def ok(self) -> bool:
        return (
            not self.report.fails(self.fail_on)
            and not self.problems
            and not any(c.failing for c in self.cases)
        )

    def status_line(self) -> str:
        """The verdict first, counted as ``check`` counts it: the findings that failed the
        run (errors, or down to ``--fail-on``) and, beside them, the warnings and notes that
        did not."""
        stages = ", ".join(f"{s.stage.value} {s.status.value}" for s in self.report.stages)
        findings = self.report.findings
        failing = severity_counts(f for f in findings if f.severity.reaches(self.fail_on))
        besides = severity_counts(f for f in findings if not f.severity.reaches(self.fail_on))
        marked = sum(1 for row in self.cases for c in row.cells if not c.verified)
        if self.ok:
            head = "Verification passed" + (f" ({besides})" if besides else "")
            if marked:  # every one accepted
                head += f"; {marked} marked cell{'s' if marked != 1 else ''} accepted, not verified"
        elif not failing:
            head = "VERIFICATION INCOMPLETE: some cells could not be established"
            head += f" ({besides})" if besides else ""
        else:
            also = f"; {besides} besides" if besides else ""
            head = f"VERIFICATION FAILED ({failing}{also})"
            if marked:  # said only when a view has marked some
                head += f"; {marked} marked cell{'s are' if marked != 1 else ' is'} unverified"
        return f"{head}: {stages}; {self.report.summary_line}; {self.signed_line()}."

    def signed_line(self) -> str:
        """Who published the manifest, as the authenticity stage established it."""
        signers = self.report.signers
        if signers:
            signer = signers[0].verdict.signer
            assert signer is not None
            return f"manifest signed by {signer.line()} ({signers[0].verdict.method})"
        status = self.report.authenticity.status
        if status is StageStatus.FAILED:
            return "manifest signature failed"
        return "manifest signature not checked"

    def to_dict(self) -> dict[str, Any]:
        return {
            "tableVersion": 1,
            "tool": {"name": "verify-evidence", "version": self.tool_version},
            "catalogue": self.catalogue,
            "verification": {
                "ok": self.ok,
                "status": self.status_line(),
                "stages": {s.stage.value: s.status.value for s in self.report.stages},
                "findings": [f.to_dict() for f in self.report.findings],
            },
            "problems": list(self.problems),
            "cases": [c.to_dict() for c in self.cases],
        }


def severity_counts(findings: Iterable[Finding]) -> str:
    """``2 errors, 1 note``: how many findings of each severity, errors first; ``""`` for
    none."""
    counts = {s: 0 for s in Severity}
    for f in findings:
        counts[f.severity] += 1
    return ", ".join(f"{n} {s.value}{'s' if n != 1 else ''}" for s, n in counts.items() if n)


def _show(value: Any) -> str:
    if isinstance(value, str):
        return value
    return dumps(value, sort_keys=True)  # numbers exactly as written, never Infinity


class _Builder:
    def __init__(self, report: Report, catalogue: str, spec: str) -> None:
        self.report = report
        self.selected = report.selected
        self.parsed = frozenset(report.selected.parsed)
        self.digests = {f.path: f.sha256 for f in report.files}
        # each file's problems, and what was accepted, as (stage, line)
        self.file_problems: dict[str, list[tuple[Stage, str]]] = {}
        self.file_accepted: dict[str, list[tuple[Stage, str]]] = {}
        # a file's integrity status is accepted when every integrity finding on it was
        counted_integrity = {f.path for f in report.integrity.findings}
        accepted_integrity = {a.finding.path for a in report.integrity.accepted}
        for f in report.files:
            if f.status == "ok":
                continue
            if f.path in accepted_integrity and f.path not in counted_integrity:
                line = (Stage.INTEGRITY, f"the file is {f.status}, accepted")
                self.file_accepted.setdefault(f.path, []).append(line)
            else:
                line = (Stage.INTEGRITY, f"the file is {f.status}")
                self.file_problems.setdefault(f.path, []).append(line)
        for finding in report.findings:
            # an assertion's own findings mark the cells it reads; warnings and notes do not
            # make a value unverified
            if finding.code.startswith("assertion.") or finding.severity is not Severity.ERROR:
                continue
            self.file_problems.setdefault(finding.path, []).append((finding.stage, _at(finding)))
        # what would have marked a cell, accepted (--ignore, --select, --baseline): said
        accepted_assertions: dict[tuple[str, str, str | None, str], str] = {}
        for taken in report.accepted:
            finding = taken.finding
            if finding.code.startswith("assertion."):
                accepted_assertions[_key(finding)] = taken.by
            elif finding.severity is Severity.ERROR:
                line = (finding.stage, f"{_at(finding)}, accepted ({taken.by})")
                self.file_accepted.setdefault(finding.path, []).append(line)
        self.status = {a.id: a.status.value for a in report.assertions}
        self.messages = {a.id: a.message for a in report.assertions}
        self.reads = {a.id: a.reads for a in report.assertions}
        counted = {_key(f) for f in report.findings}
        #: the assertions whose failure was accepted, not counted: by what
        self.assertion_accepted = {
            a.id: accepted_assertions[_key(a.finding)]
            for a in report.assertions
            if a.finding is not None
            and _key(a.finding) in accepted_assertions
            and _key(a.finding) not in counted
        }
        # every cell's selector comes from the catalogue, every establishing assertion from
        # the spec: a cell is no more verified than they are
        self.catalogue = self._document(report.content_path(catalogue), "the catalogue")
        self.spec = self._document(report.content_path(spec), "the assertion spec")

    def _document(self, path: str, what: str) -> tuple[list[str], list[str]]:
        """The problems and accepted problems of the document at ``path`` that make what it
        says unverified (its integrity and validity: its own entries' findings, such as a
        selector that resolves to nothing, mark their own cells), each naming it."""
        own = (Stage.INTEGRITY, Stage.VALIDITY)
        problems = [p for stage, p in self.file_problems.get(path, []) if stage in own]
        accepted = [p for stage, p in self.file_accepted.get(path, []) if stage in own]
        return (
            [f"{what} {path}: {p}" for p in dict.fromkeys(problems)],
            [f"{what} {path}: {p}" for p in dict.fromkeys(accepted)],
        )

    def verdict(self, spec: dict[str, Any]) -> Cell:
        """A cell that shows an assertion's own verdict (``{"label", "assertion": ID}``, such
        as whether a witness agrees with the transcript): ``yes`` when it passed, else ``no``
        or ``not evaluated``, and then marked with why."""
        aid = spec["assertion"]
        status = self.status.get(aid, "missing") if isinstance(aid, str) else "missing"
        problems = list(self.catalogue[0])
        accepted = list(self.catalogue[1]) + list(self.spec[1])
        if status == AssertionStatus.PASSED.value:
            text = "yes"
        else:
            text = "no" if status == AssertionStatus.FAILED.value else "not evaluated"
            why = self.messages.get(aid, "it is not in the assertion spec")
            line = f"assertion {aid} {status}: {why}"
            if aid in self.assertion_accepted:
                accepted.append(f"{line}, accepted ({self.assertion_accepted[aid]})")
            else:
                problems.append(line)
        problems += self.spec[0]
        where = self.report.content_path(self.report.spec)  # (the verdict is the spec's)
        return Cell(
            label=spec["label"],
            value=status == AssertionStatus.PASSED.value,
            text=text,
            path=where,
            pointer="",
            sha256=self.digests.get(where),
            how="assertion",
            problems=tuple(dict.fromkeys(problems)),
            assertions=((str(aid), status),),
            accepted=tuple(dict.fromkeys(accepted)),
        )

    def cell(self, spec: Any, upper: bool = False, readback: bool = False) -> Cell:
        if not isinstance(spec, dict) or not isinstance(spec.get("label"), str):
            raise EvalError(f"malformed value {spec!r}")
        if "assertion" in spec and not readback:
            return self.verdict(spec)
        label = spec["label"]
        how = "value"
        selector = spec.get("select")
        if selector is None:
            selector = spec.get("count")
            how = "distinct count" if "distinct" in spec else "count"
        named = selector.get("file", "") if isinstance(selector, dict) else ""
        path = self.report.content_path(named) if isinstance(named, str) and named else ""
        pointer = selector.get("pointer", "") if isinstance(selector, dict) else ""
        problems = list(dict.fromkeys(p for _, p in self.file_problems.get(path, [])))
        accepted = list(dict.fromkeys(p for _, p in self.file_accepted.get(path, [])))
        problems += self.catalogue[0]
        accepted += self.catalogue[1]
        value: Any = None
        try:
            if path not in self.parsed:
                raise EvalError(f"{named or '(no file)'} is not a parsed record of the archive")
            value = self.selected.resolve(named, pointer)
            if how != "value":
                if not isinstance(value, list):
                    raise EvalError(f"{path}#{pointer} is not an array")
                if how == "distinct count":
                    distinct = spec["distinct"]
                    value = len({canonical(resolve_pointer(v, distinct)) for v in value})
                else:
                    value = len(value)
        except EvalError as exc:
            problems.append(str(exc))
            value = None
        ids = spec.get("assertions", [])
        statuses: list[tuple[str, str]] = []
        for aid in ids if isinstance(ids, list) else []:
            status = self.status.get(aid, "missing")
            statuses.append((aid, status))
            if status == "missing":
                problems.append(f"assertion {aid} is not in the assertion spec")
            elif status != AssertionStatus.PASSED.value and aid in self.assertion_accepted:
                by = self.assertion_accepted[aid]
                accepted.append(f"assertion {aid} {status}, accepted ({by})")
            elif status != AssertionStatus.PASSED.value:
                problems.append(f"assertion {aid} {status}")
        if statuses:
            problems += self.spec[0]
            accepted += self.spec[1]
        text = "?" if value is None and problems else _show(value)
        if upper and isinstance(value, str):
            text = value.upper()
        preregistered: bool | None = None
        evidence = spec.get("evidence") if readback else None
        if readback and isinstance(spec.get("preregistered"), dict):
            sel = spec["preregistered"]
            try:
                file = sel.get("file")
                where = self.report.content_path(file) if isinstance(file, str) else None
                declared = (
                    self.selected.resolve(file, sel["pointer"])
                    if where is not None and where in self.parsed
                    else resolve_pointer({}, sel["pointer"])
                )
            except (EvalError, KeyError) as exc:
                problems.append(f"preregistration declaration: {exc}")
                declared = None
            preregistered = declared if isinstance(declared, bool) else None
        return Cell(
            label=label,
            value=value,
            text=text,
            path=path,
            pointer=pointer,
            sha256=self.digests.get(path),
            how=how,
            problems=tuple(problems),
            assertions=tuple(statuses),
            accepted=tuple(dict.fromkeys(accepted)),
            evidence=evidence if isinstance(evidence, str) else None,
            preregistered=preregistered,
        )

    def row(self, case: dict[str, Any], where: str = "") -> CaseRow:
        counts = tuple(self.cell(v) for v in case.get("counts", []))
        outcomes = tuple(self.cell(v) for v in case.get("outcomes", []))
        acc_spec = case.get("acceptance")
        acceptance = self.cell(acc_spec, upper=True) if acc_spec is not None else None
        readbacks = tuple(self.cell(v, readback=True) for v in case.get("readbacks", []))
        patterns = [p for p in case.get("assertions", []) if isinstance(p, str)]
        covering = sorted(
            aid for aid in self.status if any(fnmatch.fnmatchcase(aid, p) for p in patterns)
        )
        files = {c.path for c in (*counts, *outcomes, *readbacks) if c.path}
        if acceptance and acceptance.path:
            files.add(acceptance.path)
        for aid in covering:
            files.update(r.path for r in self.reads[aid])
        return CaseRow(
            id=str(case.get("id", "?")),
            title=str(case.get("title", "?")),
            kind=str(case.get("kind", "?")),
            evidence=tuple(str(e) for e in case.get("evidence", [])),
            counts=counts,
            outcomes=outcomes,
            acceptance=acceptance,
            readbacks=readbacks,
            limits=tuple(str(x) for x in case.get("limits", [])),
            assertions=tuple((aid, self.status[aid]) for aid in covering),
            files=tuple((p, self.digests.get(p)) for p in sorted(files)),
            problems=tuple(self.catalogue[0]),
            accepted=tuple(self.catalogue[1]),
            catalogue=where,
        )


def _at(finding: Finding) -> str:
    """``code at path#pointer``: a finding as a cell's problem names it."""
    where = finding.path + (f"#{finding.pointer}" if finding.pointer else "")
    return f"{finding.code} at {where}"


def _key(finding: Finding) -> tuple[str, str, str | None, str]:
    """A finding's identity across the copies acceptance and cascades make of it."""
    return (finding.code, finding.path, finding.pointer, finding.message)


def _no_cases(report: Report, catalogue: str, document: Any) -> str:
    """Why a catalogue gives no cases: not a file the manifest lists, not read as a record
    (its digest failed, or it is not JSON), or no ``cases`` array."""
    path = report.content_path(catalogue)
    entry = next((f for f in report.files if f.path == path), None)
    if entry is None or not entry.listed:
        return f"{catalogue} is not a file the manifest lists"
    if document is None and entry.status != "ok":
        return f"{catalogue} did not pass its integrity check ({entry.status})"
    if document is None:
        return f"{catalogue} could not be parsed as JSON"
    return f"{catalogue} has no 'cases' array"


def build_table(report: Report, fail_on: Severity = Severity.ERROR) -> OutcomeTable:
    """The table for ``report``'s archive, from the case catalogue and the assertion spec the
    run judged (:attr:`Report.catalogue`, :attr:`Report.spec`) and the values its cells
    select (:attr:`Report.selected`); findings of ``fail_on`` or above fail it
    (``--fail-on``). A problem of the catalogue or of the assertion spec marks every cell it
    stands behind."""
    catalogue = report.catalogue or DEFAULT_CATALOGUE
    spec = report.spec
    table = OutcomeTable(report.tool_version, catalogue, report, fail_on=fail_on)
    document = report.selected.catalogue
    cases = document.get("cases") if isinstance(document, dict) else None
    if not isinstance(cases, list):
        table.problems.append(_no_cases(report, catalogue, document))
        return table
    builder = _Builder(report, catalogue, spec)
    for index, case in enumerate(cases):
        if not isinstance(case, dict):
            table.problems.append(f"{catalogue}#/cases/{index} is not an object")
            continue
        try:
            table.cases.append(builder.row(case, f"{catalogue}#/cases/{index}"))
        except (EvalError, KeyError, TypeError, AttributeError) as exc:
            table.problems.append(f"{catalogue}#/cases/{index}: {exc}")
    return table
