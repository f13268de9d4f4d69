"""The report's data types. The core returns these; every output format is a view of them."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from itertools import chain
from typing import Any, NamedTuple

from verifier.authenticity.interface import Verdict
from verifier.findings import Finding, Severity, Stage
from verifier.json.pointer import EvalError
from verifier.values.needs import CATALOGUE, DEFAULT_SPEC

#: the JSON report's version: 2 added the flat ``findings``, ``source``, ``manifestSha256``,
#: the files' ``expected``/``algorithm``/``actual`` and the findings' ``column``/``at``
#: (docs/report-v2.md)
REPORT_VERSION = 2


class Read(NamedTuple):
    """A value an assertion read: which file, which pointer."""

    path: str
    pointer: str

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "pointer": self.pointer}


class AssertionStatus(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"


@dataclass(frozen=True, slots=True, init=False)
class AssertionResult:
    """The outcome of one assertion of the spec."""

    id: str
    kind: str
    description: str
    status: AssertionStatus
    message: str
    #: what it read (:attr:`reads`), held flat: ``(path, pointer, path, pointer...)``. A
    #: tuple of :class:`Read` took 112 bytes more for each read, once per assertion to the
    #: end of the run (about 9 MB at 100,000 assertions, at the main process's peak)
    flat_reads: tuple[str, ...] = field(repr=False)
    finding: Finding | None = field(default=None, compare=False)  # the stage's, if not passed

    def __init__(
        self,
        id: str,
        kind: str,
        description: str,
        status: AssertionStatus,
        message: str,
        reads: Iterable[Read] = (),
        finding: Finding | None = None,
        *,
        flat_reads: tuple[str, ...] | None = None,
    ) -> None:
        """``flat_reads``: the reads already flat, in place of ``reads`` (as
        :func:`dataclasses.replace` gives them back)."""
        # the frozen dataclass's own __init__, through the slots' setters: a third of its
        # time (one result per assertion: 100k at a time)
        if flat_reads is not None and reads:
            raise TypeError("reads or flat_reads, not both")
        put = _RESULT_SLOTS
        put[0](self, id)
        put[1](self, kind)
        put[2](self, description)
        put[3](self, status)
        put[4](self, message)
        put[5](self, flat_reads if flat_reads is not None else tuple(_chain(reads)))
        put[6](self, finding)

    @property
    def reads(self) -> tuple[Read, ...]:
        """What it read, in order."""
        flat, make = self.flat_reads, tuple.__new__
        return tuple(make(Read, flat[at : at + 2]) for at in range(0, len(flat), 2))

    def __repr__(self) -> str:
        return (
            f"AssertionResult(id={self.id!r}, kind={self.kind!r}, "
            f"description={self.description!r}, status={self.status!r}, "
            f"message={self.message!r}, reads={self.reads!r}, finding={self.finding!r})"
        )

    def to_dict(self) -> dict[str, Any]:
        flat = self.flat_reads
        return {
            "id": self.id,
            "kind": self.kind,
            "description": self.description,
            "status": self.status.value,
            "message": self.message,
            "reads": [{"path": flat[at], "pointer": flat[at + 1]} for at in range(0, len(flat), 2)],
        }


_chain = chain.from_iterable
#: the setters of AssertionResult's slots, in field order (for its __init__)
_RESULT_SLOTS: tuple[Any, ...] = tuple(
    AssertionResult.__dict__[name].__set__
    for name in ("id", "kind", "description", "status", "message", "flat_reads", "finding")
)


@dataclass(frozen=True, slots=True)
class Accepted:
    """A finding the run does not count, and why: ``ignored`` (``--ignore``), ``not-selected``
    (``--select`` left its code out) or ``baseline`` (an entry of ``--baseline`` matched it)."""

    finding: Finding
    by: str

    def to_dict(self) -> dict[str, Any]:
        return {"acceptedBy": self.by, "finding": self.finding.to_dict()}


@dataclass(frozen=True, slots=True)
class Acceptance:
    """What ``--ignore``, ``--select`` and ``--baseline`` did to a run: the options, how many
    findings each accepted, how many baseline entries matched nothing (each a finding) and how
    many were of codes this run did not look for."""

    baseline: str | None = None
    ignore: tuple[str, ...] = ()
    select: tuple[str, ...] | None = None
    accepted: dict[str, int] = field(default_factory=dict)
    unmatched: int = 0
    unchecked: int = 0

    @property
    def total(self) -> int:
        return sum(self.accepted.values())

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "baseline": self.baseline,
            "ignore": list(self.ignore),
            "select": None if self.select is None else list(self.select),
            "accepted": dict(sorted(self.accepted.items())),
            "unmatchedEntries": self.unmatched,
            "uncheckedEntries": self.unchecked,
        }
        return out


class StageStatus(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    NOTHING_TO_CHECK = "nothing-to-check"
    SKIPPED = "skipped"  # not asked for (--stages)


@dataclass(slots=True)
class StageResult:
    """What one stage checked and found."""

    stage: Stage
    counts: dict[str, int] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    note: str | None = None
    skipped: bool = False
    # findings the run does not count (--ignore, --select, --baseline), kept and marked
    accepted: list[Accepted] = field(default_factory=list)
    #: False: the stage verified nothing (authenticity with only unchecked signatures); with
    #: no error it is nothing-to-check, whatever notes it lists, never passed
    checked: bool = True
    #: a run over more than one manifest (a bag of an evidence archive): each manifest's own
    #: counts, by its name (:attr:`counts` are the first manifest's, the whole source's)
    manifests: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is Severity.ERROR]

    def severity_counts(self) -> dict[str, int]:
        """How many findings of each severity the stage has (every severity named)."""
        counts = {s.value: 0 for s in Severity}
        for f in self.findings:
            counts[f.severity.value] += 1
        return counts

    @property
    def status(self) -> StageStatus:
        """``failed`` when the stage has an error; warnings and notes alone leave it
        ``passed`` (its findings and ``severities`` counts still list them)."""
        if self.skipped:
            return StageStatus.SKIPPED
        if self.errors:
            return StageStatus.FAILED
        if not self.checked:
            return StageStatus.NOTHING_TO_CHECK
        if self.findings:
            return StageStatus.PASSED
        if self.note is not None and not any(self.counts.values()):
            return StageStatus.NOTHING_TO_CHECK
        return StageStatus.PASSED

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "stage": self.stage.value,
            "status": self.status.value,
            "counts": dict(sorted(self.counts.items())),
            "severities": self.severity_counts(),
            "findings": [f.to_dict() for f in sorted(self.findings, key=Finding.sort_key)],
        }
        if self.note is not None:
            out["note"] = self.note
        if self.manifests:
            out["manifests"] = [
                {"manifest": name, "counts": dict(sorted(counts.items()))}
                for name, counts in self.manifests.items()
            ]
        if self.accepted:
            out["accepted"] = [
                a.to_dict()
                for a in sorted(self.accepted, key=lambda a: (a.finding.sort_key(), a.by))
            ]
        return out


@dataclass(frozen=True, slots=True, init=False)
class FileEntry:
    """A file the run looked at: its digest as computed, and whether the manifest lists it."""

    path: str
    sha256: str | None
    size: int | None
    listed: bool
    status: str  # ok | mismatch | missing | not-fetched | unlisted | unreadable | unsafe | ...
    expected: str | None = None  # the digest the manifest lists (hex, of ``algorithm``)
    algorithm: str | None = None  # the manifest's hashlib name (sha256, or a bag's)
    actual: str | None = None  # the digest computed in ``algorithm``, when it is not SHA-256

    def __init__(
        self,
        path: str,
        sha256: str | None,
        size: int | None,
        listed: bool,
        status: str,
        expected: str | None = None,
        algorithm: str | None = None,
        actual: str | None = None,
    ) -> None:
        # the frozen dataclass's own __init__, through the slots' setters (as
        # AssertionResult's): one entry per file of the archive, 100k at a time
        put = _FILE_SLOTS
        put[0](self, path)
        put[1](self, sha256)
        put[2](self, size)
        put[3](self, listed)
        put[4](self, status)
        put[5](self, expected)
        put[6](self, algorithm)
        put[7](self, actual)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "sha256": self.sha256,
            "size": self.size,
            "listed": self.listed,
            "status": self.status,
        }
        if self.expected is not None:
            out["expected"] = self.expected
        if self.algorithm is not None:
            out["algorithm"] = self.algorithm
        if self.actual is not None:
            out["actual"] = self.actual
        return out


#: the setters of FileEntry's slots, in field order (for its __init__)
_FILE_SLOTS: tuple[Any, ...] = tuple(FileEntry.__dict__[f.name].__set__ for f in fields(FileEntry))


NOT_CHECKED = (
    "Not checked: no signature beside the manifest and none given (--signature); who "
    "published the manifest is not verified."
)


def not_checked() -> StageResult:
    """The authenticity stage of a run that had no signature to check (never a pass)."""
    return StageResult(Stage.AUTHENTICITY, note=NOT_CHECKED)


@dataclass(frozen=True, slots=True)
class SignatureCheck:
    """One signature over the manifest and its format's verdict."""

    name: str
    verdict: Verdict

    @property
    def status(self) -> str:
        if self.verdict.verified:
            return "verified"
        if any(f.code == "signature.not-checked" for f in self.verdict.findings):
            return "not-checked"
        return "failed"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "format": self.verdict.format,
            "status": self.status,
            "method": self.verdict.method,
        }
        if self.verdict.signer is not None and self.verdict.verified:
            out["signer"] = self.verdict.signer.to_dict()
        return out


@dataclass(frozen=True, slots=True)
class Selected:
    """What the views read of the records, taken as they were judged: the parsed records'
    paths (sorted), the case catalogue as parsed (``None``: none, or not parsed), and what
    each selector of its cells selects, by ``(file, pointer)``: the value, or why none."""

    parsed: tuple[str, ...] = ()
    catalogue: Any = None
    values: Mapping[tuple[str, str], Any] = field(default_factory=dict)
    unresolved: Mapping[tuple[str, str], str] = field(default_factory=dict)

    def resolve(self, file: str, pointer: Any) -> Any:
        """What ``(file, pointer)`` selects (``file`` parsed); :class:`EvalError` if nothing."""
        why = self.unresolved.get((file, pointer)) if isinstance(pointer, str) else ""
        if why is not None:
            raise EvalError(why or "a JSON pointer must be a string")
        return self.values[file, pointer]


@dataclass(frozen=True, slots=True)
class Report:
    """The result of one verification run, built once. Every output format renders this
    (how, ``--fail-on`` among it, is the views' ``RenderSettings``, not the report's)."""

    tool_version: str
    manifest: str
    scope: list[str]
    integrity: StageResult
    validity: StageResult
    consistency: StageResult
    files: list[FileEntry] = field(default_factory=list)
    assertions: list[AssertionResult] = field(default_factory=list)
    # what the views read of the parsed records; not serialised
    selected: Selected = field(default_factory=Selected, repr=False)
    # The folder of the source that records, the assertion spec and the case catalogue name
    # files relative to ("data" in a bag, the --base folder); "" for the root. Not serialised.
    content_root: str = field(default="", repr=False)
    # The assertion spec and the case catalogue the run judged (``Options.assertions``, the
    # first of ``Options.documents``; ``None``: none), as records name them: a
    # view that shows what they say (the outcome table, the in-toto policy) takes them from
    # here, never from a default of its own. Not serialised.
    spec: str = field(default=DEFAULT_SPEC, repr=False)
    catalogue: str | None = field(default=CATALOGUE, repr=False)
    # The witness logs the spec's ``witnesses`` matched among the listed files, by their
    # paths in the source (the VSA lists them as its input attestations). Not serialised.
    witness_logs: tuple[str, ...] = field(default=(), repr=False)
    # what --ignore, --select and --baseline did (None: none was given)
    acceptance: Acceptance | None = None
    # the configuration file the run read and what it set (None: no file)
    configuration: dict[str, Any] | None = None
    # What was verified (kind, location as given or relative to the working directory, the
    # zip's or tarball's SHA-256, the git commit): the source's identity; the manifest's
    # SHA-256 as read. Set by the pipeline; serialised when set.
    source: dict[str, Any] | None = None
    manifest_sha256: str | None = None

    # Stage 0, authenticity: a signature over the manifest (its own key in the JSON report,
    # beside "stages", which keeps its three content stages in place).
    authenticity: StageResult = field(default_factory=not_checked)
    signatures: list[SignatureCheck] = field(default_factory=list)

    @property
    def checks(self) -> tuple[StageResult, ...]:
        """Every stage in the order they run: authenticity, then :attr:`stages`."""
        return (self.authenticity, *self.stages)

    @property
    def signers(self) -> list[SignatureCheck]:
        """The signatures that verified (who signed the manifest)."""
        return [c for c in self.signatures if c.verdict.verified]

    def content_path(self, path: str) -> str:
        """The path in the source of ``path`` as records and catalogues name it."""
        return f"{self.content_root}/{path}" if self.content_root else path

    @property
    def stages(self) -> tuple[StageResult, StageResult, StageResult]:
        return (self.integrity, self.validity, self.consistency)

    @property
    def findings(self) -> list[Finding]:
        return [f for s in self.checks for f in sorted(s.findings, key=Finding.sort_key)]

    @property
    def ok(self) -> bool:
        """No error (warnings and notes do not fail a run unless ``--fail-on`` says so)."""
        return not any(s.errors for s in self.checks)

    @property
    def passed(self) -> bool:
        """:meth:`verdict` at the default ``--fail-on`` (error): no counted error."""
        return not self.fails()

    def verdict(self, fail_on: Severity = Severity.ERROR) -> str:
        """The run's verdict, the one rule of the views and the exit code (:meth:`fails`):
        ``failed`` when a counted (not accepted) finding reaches ``fail_on``, else ``passed``."""
        return "failed" if self.fails(fail_on) else "passed"

    def failing(self, fail_on: Severity) -> list[Finding]:
        """The counted findings that fail the run (they reach ``fail_on``)."""
        return [f for f in self.findings if f.severity.reaches(fail_on)]

    def stage_status(self, stage: StageResult, fail_on: Severity) -> StageStatus:
        """``stage``'s status as the views show it beside the verdict: ``failed`` when a
        finding of it reaches ``fail_on`` (the verdict's rule, a stage at a time), else its
        own (the JSON report's ``stages[].status``: errors)."""
        failed = any(f.severity.reaches(fail_on) for f in stage.findings)
        return StageStatus.FAILED if failed else stage.status

    @property
    def accepted(self) -> list[Accepted]:
        """Every finding accepted (``--ignore``, ``--select``, ``--baseline``), stage by stage."""
        return [
            a
            for s in self.checks
            for a in sorted(s.accepted, key=lambda a: (a.finding.sort_key(), a.by))
        ]

    def fails(self, threshold: Severity = Severity.ERROR) -> bool:
        """Whether a finding reaches ``threshold`` (the exit code of ``--fail-on``)."""
        return any(f.severity.reaches(threshold) for s in self.checks for f in s.findings)

    @property
    def manifested_files(self) -> int:
        return sum(1 for f in self.files if f.listed)

    @property
    def summary_line(self) -> str:
        line = f"{len(self.assertions)} assertions over {self.manifested_files} manifested files"
        withheld = sum(1 for f in self.files if f.status == "withheld")
        return f"{line} ({withheld} of them withheld)" if withheld else line

    def flat_findings(self) -> list[dict[str, Any]]:
        """Every finding of every stage in one list, each naming its stage (the stages' order,
        each stage's findings sorted)."""
        return list(self.each_flat_finding())

    def each_flat_finding(self) -> Iterator[dict[str, Any]]:
        """:meth:`flat_findings`, one at a time."""
        return ({**f.to_dict(), "stage": f.stage.value} for f in self.findings)

    def to_dict(self, fail_on: Severity = Severity.ERROR) -> dict[str, Any]:
        out, lists = self.to_dict_parts(fail_on)
        for key, make in lists.items():
            out[key] = list(make())
        return out

    def to_dict_parts(
        self, fail_on: Severity = Severity.ERROR
    ) -> tuple[dict[str, Any], dict[str, Callable[[], Iterator[dict[str, Any]]]]]:
        """:meth:`to_dict` in two parts: the dict with an empty list at each key whose list
        grows with the archive (its findings, its assertions, its files), and for each such
        key what makes its items, one at a time (a large report's JSON is written as they come,
        :func:`verifier.views.clean.dumps_clean_parts`, never held whole)."""
        out: dict[str, Any] = {
            "reportVersion": REPORT_VERSION,
            "tool": {"name": "verify-evidence", "version": self.tool_version},
            "manifest": self.manifest,
            "scope": list(self.scope),
            "ok": self.ok,
            "verdict": self.verdict(fail_on),
            "failOn": fail_on.value,
            "summary": self.summary_line,
            "stages": [s.to_dict() for s in self.stages],
            "findings": [],
            "authenticity": {
                **self.authenticity.to_dict(),
                "signatures": [c.to_dict() for c in self.signatures],
            },
            "assertions": [],
            "files": [],
        }
        if self.source is not None:
            out["source"] = dict(self.source)
        if self.manifest_sha256 is not None:
            out["manifestSha256"] = self.manifest_sha256
        if self.acceptance is not None:
            out["acceptance"] = self.acceptance.to_dict()
        if self.configuration is not None:
            out["configuration"] = self.configuration
        assertions, files = self.assertions, self.files
        lists: dict[str, Callable[[], Iterator[dict[str, Any]]]] = {
            "findings": self.each_flat_finding,
            "assertions": lambda: (a.to_dict() for a in assertions),
            "files": lambda: (f.to_dict() for f in sorted(files, key=lambda f: f.path)),
        }
        return out, lists


def merge_inner(report: Report, inner: Report, folder: str) -> Report:
    """``report`` with the findings of an archive inside ``folder`` of its source (a bag's
    payload holding its own manifest: ``inner``, its integrity and authenticity), their
    paths under ``folder``; every finding of both stages names the manifest it is against
    (``Finding.manifest``), and the inner manifest's signatures are listed with the
    report's."""

    def under(path: str) -> str:
        return folder + path if path else folder.rstrip("/")

    label = under(inner.manifest)

    def moved(f: Finding) -> Finding:
        cause = f.cause
        return dataclasses.replace(
            f,
            path=under(f.path),
            at=under(f.at) if f.at is not None else None,
            manifest=label,
            cause=dataclasses.replace(cause, path=under(cause.path)) if cause else None,
        )

    def merged(outer: StageResult, stage: StageResult) -> list[Finding]:
        # a finding about the source itself (its container: source.*) is against no manifest
        findings = [
            f
            if f.manifest is not None or f.code.startswith("source.")
            else dataclasses.replace(f, manifest=report.manifest)
            for f in outer.findings
        ]
        seen = {(f.code, f.path) for f in findings if f.code.startswith("source.")}
        # the bag's run judged the files the archive lists and withholds against the
        # archive's manifest (to judge their records): the archive's run reports them
        again = {(f.code, under(f.path)) for f in stage.findings}
        findings = [f for f in findings if f.manifest != label or (f.code, f.path) not in again]
        for f in stage.findings:
            if not f.code.startswith("source."):
                findings.append(moved(f))
            elif (f.code, under(f.path)) not in seen:  # the same container read twice: once
                findings.append(dataclasses.replace(moved(f), manifest=None))
        return findings

    # integrity: the bag's manifests list every file, the archive's among them (its counts
    # are kept apart, never added: each file is counted once); authenticity: the signatures
    # of both manifests, each checked once
    integrity = dataclasses.replace(
        report.integrity,
        findings=merged(report.integrity, inner.integrity),
        manifests={
            report.manifest: dict(report.integrity.counts),
            label: dict(inner.integrity.counts),
        },
    )
    outside, within = report.authenticity, inner.authenticity
    counts = dict(outside.counts)
    for key, value in within.counts.items():
        counts[key] = counts.get(key, 0) + value
    notes = [(report.manifest, outside.note), (label, within.note)]
    authenticity = dataclasses.replace(
        outside,
        findings=merged(outside, within),
        counts=counts,
        note=" ".join(f"{name}: {note}" for name, note in notes if note is not None)
        if any(note is not None for _, note in notes)
        else None,
        # the merged stage verified something only if one of its manifests' stages did: a
        # signature listed but not checked (no trust option) leaves both nothing-to-check,
        # and their merged findings and notes must not make that "passed"
        checked=StageStatus.PASSED in (outside.status, within.status),
    )
    return dataclasses.replace(
        report,
        integrity=integrity,
        authenticity=authenticity,
        signatures=[
            *report.signatures,
            *(dataclasses.replace(s, name=under(s.name)) for s in inner.signatures),
        ],
    )
