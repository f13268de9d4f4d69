"""The pipeline, one way: plan -> inspect each file -> judge -> report.

1. **Plan** (:mod:`verifier.plan`): find and parse the manifests, walk their scope, read the
   schemas and the documents (the assertion spec, the case catalogue) into the schema bundle
   and the need index, and make one small, picklable task per file.
2. **Inspect** (:mod:`verifier.inspect`): a pure function from a task (and the context: the
   source's opener and the bundle) to that file's facts, run by an executor
   (:mod:`verifier.execute`): here, or in worker processes that open the files themselves; a
   source read in one pass (a tarball, git) is inspected here, as it streams.
3. **Judge** (:mod:`verifier.judge`): the facts reduced into the stages' results; hints ask
   for more tasks (the files they compare against), never read.

Each stage reports its own findings; a later stage never hides an earlier one (a record whose
digest mismatched is still parsed and checked, and both findings are reported).
"""

from __future__ import annotations

import gc
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from verifier import __version__
from verifier.errors import UsageError
from verifier.execute import create
from verifier.execute.inline import InlineExecutor
from verifier.inspect import inspect as inspecting
from verifier.inspect.digest import Digest, _digest_bytes
from verifier.inspect.inspect import FileFacts, InspectContext
from verifier.inspect.schemas import is_schema_path
from verifier.judge.catalogue import check_catalogue
from verifier.judge.consistency import check_consistency, unread_reasons
from verifier.judge.hints import Hinter, index_names
from verifier.judge.integrity import IntegrityOutcome, judge_manifest
from verifier.judge.merge import _algorithms_note, _all_listed, _merge
from verifier.judge.records import Records
from verifier.judge.validity import check_validity
from verifier.model import AssertionResult, Read, Report, Stage, StageResult
from verifier.plan.entries import ManifestPlan, plan_manifest
from verifier.plan.locate import (
    DEFAULT_MANIFEST,
    base_folder,
    find_manifest,
    read_manifest,
    read_member,
)
from verifier.plan.needs import CATALOGUE
from verifier.plan.plan import FileTask, Plan, weight
from verifier.plan.records import RecordPlan
from verifier.plan.spec import DEFAULT_SPEC
from verifier.sources import Kind, Limits, Source, SourceError, open_source
from verifier.sources.bagit import decode_name
from verifier.sources.openers import LiveOpener

STAGES = ("integrity", "validity", "consistency")


@dataclass(frozen=True, slots=True)
class Options:
    """What to verify and how. The CLI fills this; the library API takes it directly."""

    manifest: str | None = None  # a path (or a name inside an archive); default manifest.sha256
    scope: tuple[str, ...] | None = None  # folders looked in for unlisted files
    schemas_dir: str = "schemas"
    records_dir: str = "evidence"
    assertions: str = DEFAULT_SPEC
    base: str | None = None  # the folder the manifest's names are relative to
    rev: str | None = None  # read this commit of the git repository at the location
    limits: Limits = field(default_factory=Limits)
    hints: bool = True
    workers: int | None = None  # processes for per-file work; None: one per available core
    # where each file is inspected: "auto" (processes when the archive is large enough),
    # or a name of verifier.execute.EXECUTORS; ``scheduler``: a Dask scheduler address
    executor: str = "auto"
    scheduler: str | None = None
    stages: frozenset[str] = frozenset({"integrity", "validity", "consistency"})
    progress: Any = None  # called with (stage, done, total); the CLI draws a progress bar
    # Records kept whole (besides the assertion spec), for views: the case catalogue.
    # Every other record keeps only the values the assertions and these documents select.
    documents: tuple[str, ...] = (CATALOGUE,)
    # Glob patterns of records kept whole all the same (``verify-evidence coverage`` walks
    # every leaf of every record); they are read where they are read, like any record.
    whole: tuple[str, ...] = ()

    def worker_count(self) -> int:
        from verifier.parallel import default_workers

        return self.workers if self.workers is not None else default_workers()


@dataclass(slots=True)
class Run:
    """A report and what the audit record adds to it: the source's identity, the manifest's
    digest and per-file facts a source knows (git blob ids). ``read_processes``: how many
    processes read the archive's files (1: this one alone; more: forked workers read
    batches too); the report is the same either way, this says which path ran."""

    report: Report
    source: dict[str, Any]
    manifest_sha256: str
    base: str
    details: dict[str, dict[str, str]]
    read_processes: int = 1
    #: what each inspection pass ran on (``executor``, ``workers``; ``serial`` with
    #: ``onePass``: a source read in one pass in this process, a compressed tarball say)
    executors: list[dict[str, Any]] = field(default_factory=list)


def check_options(options: Options) -> None:
    """Refuse options that cannot run (:class:`UsageError`), before anything is read."""
    unknown = options.stages - set(STAGES)
    if unknown or "integrity" not in options.stages:
        raise UsageError(
            "--stages takes integrity, validity and consistency, and always includes "
            "integrity (it is the one read of every file)"
        )


def _under(prefix: str, path: str) -> str:
    return f"{prefix}/{path}" if prefix else path


def _rebase(stage: StageResult, prefix: str) -> None:
    stage.findings[:] = [replace(f, path=_under(prefix, f.path)) for f in stage.findings]


def _rebase_assertions(results: list[AssertionResult], prefix: str) -> list[AssertionResult]:
    return [
        replace(
            r,
            reads=tuple(Read(_under(prefix, x.path), x.pointer) for x in r.reads),
            finding=replace(r.finding, path=_under(prefix, r.finding.path)) if r.finding else None,
        )
        for r in results
    ]


class _Facts:
    """What the main process keeps of the files inspected: digests, read errors, and each
    record's result; a document's or schema's bytes only until the plan has parsed them."""

    def __init__(self) -> None:
        self.digests: dict[str, Digest] = {}
        self.errors: dict[str, str] = {}
        self.records: dict[str, Any] = {}  # record path inside the content root -> result
        self.held: dict[str, bytes] = {}
        self.pids: set[int] = set()  # the processes that read files
        self.executors: list[dict[str, Any]] = []  # what each inspection pass ran on

    def known(self, name: str) -> bool:
        return name in self.digests or name in self.errors

    def add(self, task: FileTask, facts: FileFacts) -> None:
        if facts.error is not None:
            self.errors[facts.name] = facts.error
            return
        assert facts.digest is not None
        self.digests[facts.name] = Digest(*facts.digest)
        if facts.record is not None and task.record is not None:
            self.records[task.record] = facts.record
        if facts.data is not None:
            self.held[facts.name] = facts.data


def _inspect_all(
    source: Source,
    bundle: Any,
    tasks: list[FileTask],
    facts: _Facts,
    options: Options,
    here: bool = False,
) -> None:
    """Inspect ``tasks`` and add their facts. ``here``: in this process (the plan's early
    files). A source without an opener is read here in one pass; otherwise the executor the
    options name runs the tasks (``auto``: worker processes when the work is large enough
    to pay for them)."""
    if not tasks:
        return
    total = len(tasks)
    progress = options.progress
    opener = None if here else source.opener()
    if opener is None:
        by_name = {t.name: t for t in tasks}
        context = InspectContext(None, bundle)
        facts.pids.add(os.getpid())
        done = 0
        for name, stream in source.read_many(by_name):
            done += 1
            if progress is not None and done % 1000 == 0:
                progress("integrity", done, total)
            task = by_name[name]
            if isinstance(stream, OSError):
                facts.add(task, FileFacts(name, None, stream.strerror or str(stream), None))
                continue
            facts.add(task, inspecting.inspect(context, task, stream))
        if not here:
            facts.executors.append({"executor": "serial", "workers": 1, "onePass": True})
        return
    name = _executor_name(options, tasks)
    executor = (
        InlineExecutor()
        if name == "inline"
        else create(name, options.worker_count(), options.scheduler)
    )
    context = InspectContext(LiveOpener(source) if name == "inline" else opener, bundle)
    done = 0

    def advance(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None:
            progress("integrity", done, total)

    with executor:
        results: Iterator[FileFacts] = executor.map(
            inspecting.inspect_batch, context, tasks, weight=weight, progress=advance
        )
        for task, found in zip(tasks, results, strict=True):
            facts.add(task, found)
    described = executor.describe()
    facts.executors.append(described)
    served = getattr(executor, "served", None)
    if served:
        facts.pids.update(served)
    else:
        facts.pids.add(os.getpid())


def _executor_name(options: Options, tasks: list[FileTask]) -> str:
    if options.executor != "auto":
        return options.executor
    from verifier.parallel import worth_it  # STAND-IN thresholds, until execute has its own

    workers = options.worker_count()
    if worth_it(len(tasks), sum(t.size for t in tasks), workers):
        return "processes"
    return "inline"


def run_source(source: Source, root: str, options: Options = Options()) -> Run:
    """Verify an open source. Raises :class:`UsageError` if it cannot run at all."""
    check_options(options)
    # The run builds millions of objects and no reference cycles worth collecting; the
    # cyclic collector's full passes over them cost about a third of a large run.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _run_source(source, root, options)
    finally:
        if enabled:
            gc.enable()


def _task(
    source: Source,
    records: RecordPlan,
    parse: bool,
    name: str,
    algorithms: tuple[str, ...],
    expected: str | None,
    variants: bool,
) -> FileTask:
    role = "other"
    inner = None
    if parse and records.parsed(name):
        if records.early(name):
            inner = records.inner(name)
            role = "document" if inner is not None else "schema"
        else:
            inner = records.inner(name)
            role = "record" if inner is not None else "other"
    wants = records.wants(inner) if role == "record" and inner is not None else ()
    return FileTask(
        name,
        source.locate(name),
        source.size_hint(name),
        role,
        inner,
        expected,
        variants,
        algorithms,
        wants,
    )


def _run_source(source: Source, root: str, options: Options) -> Run:
    layout = source.layout()
    base = base_folder(source, options)
    found, refused = find_manifest(source, root, options)
    reached = found is not None
    label, data, rel = found or (options.manifest or layout.manifest, b"", None)
    preread = {name: read_member(source, name) for name in layout.preread}
    if rel is not None:
        preread[rel] = data
    source.take_layout_files(preread)
    content = layout.content_root or base
    prefix = content + "/" if content else ""
    stages = options.stages
    parse = bool(stages & {"validity", "consistency"})
    records = RecordPlan(
        prefix,
        options.records_dir,
        options.schemas_dir,
        options.assertions,
        options.documents,
        options.whole,
        validate="validity" in stages,
        consistency="consistency" in stages,
    )

    if not reached:
        scope: list[str] | None = []
    elif options.scope is not None:
        scope = [s.strip("/") or "." for s in options.scope]
    else:
        scope = [layout.payload] if layout.payload else None
    decode = decode_name if layout.percent_encoded_names else None
    payload_manifests = (layout.manifest, *layout.payload_manifests) if reached else ()
    payload_algorithms = {layout.algorithm(m) for m in payload_manifests} - {"sha256"}
    tag_algorithms = {layout.algorithm(m) for m in layout.tag_manifests} - {"sha256"}
    payload_prefix = (layout.payload or "") + "/"
    algorithm = layout.algorithm(layout.manifest)

    # 1. plan: every manifest's entries and scope, then one task per file
    plans = [
        plan_manifest(
            source,
            label,
            data,
            rel,
            scope,
            base=base,
            allow_empty=layout.payload is not None or not reached,
            decode_name=decode,
            algorithm=algorithm,
            parsed=source.parse_manifest(label, data) if reached else None,
            name_manifest=len(payload_manifests) > 1,
        )
    ]
    digest_of_manifest = hashlib.sha256(data).hexdigest()
    del data
    for other in (*payload_manifests[1:], *layout.tag_manifests):
        tag = other in layout.tag_manifests
        more = preread[other] if other in preread else read_member(source, other)
        plans.append(
            plan_manifest(
                source,
                other,
                more,
                other,
                [] if tag else scope,
                base="" if tag else base,
                allow_empty=not tag,
                decode_name=decode,
                algorithm=layout.algorithm(other),
                parsed=source.parse_manifest(other, more),
                name_manifest=len(layout.tag_manifests) > 1 if tag else True,
            )
        )

    def by_place(name: str) -> set[str]:
        """The further algorithms a file is hashed with by where it is: a bag's payload files
        with every payload manifest's, its tag files with the tag manifests'."""
        if layout.payload is not None and name.startswith(payload_prefix):
            return payload_algorithms
        return tag_algorithms

    extra: dict[str, set[str]] = {}  # name -> the algorithms besides SHA-256 it is hashed with
    expected: dict[str, str] = {}
    order: list[str] = []
    for plan in plans:
        for name in plan.files():
            if name not in extra:
                extra[name] = set(by_place(name))
                if name not in preread:
                    order.append(name)
            if plan.algorithm != "sha256":
                extra[name].add(plan.algorithm)
        if plan.algorithm == "sha256":
            for name, kind in plan.kinds.items():
                if kind is Kind.FILE:
                    expected.setdefault(name, plan.wanted[name])

    def algorithms(name: str) -> tuple[str, ...]:
        found = extra.get(name)
        return tuple(sorted(found if found is not None else by_place(name)))

    facts = _Facts()
    for name, held in preread.items():
        facts.digests[name] = _digest_bytes(held, False, None, algorithms(name))
        if parse and records.parsed(name):
            facts.held[name] = held

    def task(name: str) -> FileTask:
        return _task(
            source, records, parse, name, algorithms(name), expected.get(name), name in expected
        )

    early = [task(n) for n in order if parse and records.parsed(n) and records.early(n)]
    _inspect_all(source, records.bundle, early, facts, options, here=True)
    early_bytes, facts.held = facts.held, {}
    records.prepare(early_bytes)
    del early_bytes
    early_names = {t.name for t in early}
    work = Plan(plans, records, early, [task(n) for n in order if n not in early_names])

    # 2. inspect every other file
    _inspect_all(source, records.bundle, work.tasks, facts, options)
    facts.held.clear()
    work.tasks.clear()

    # 3. judge
    def judge(plan: ManifestPlan) -> IntegrityOutcome:
        return judge_manifest(plan, facts.digests, facts.errors, source, source.explain_missing)

    integrity = judge(plans[0])
    if integrity.problems and options.hints and algorithm == "sha256":
        names = index_names(source)
        more_tasks = [task(n) for n in names if not facts.known(n)]
        _inspect_all(source, records.bundle, more_tasks, facts, options)
        facts.held.clear()
        first = plans[0]
        hinter = Hinter(source, facts.digests, names, first.wanted, first.relative, base, rel)
        findings = integrity.stage.findings
        for problem, index in integrity.problems.items():
            hint = hinter.hint(problem)
            if hint:
                findings[index] = replace(findings[index], hint=hint)
        integrity.stage.note = hinter.base_note()
    if not reached and not source.complete():
        integrity.stage.note = (
            f"The manifest {label} was not reached: the source was not read to its end."
        )
    for plan in plans[1 : len(payload_manifests)]:
        _merge(integrity, judge(plan))
    if not source.payload_in_every_manifest():
        _all_listed(integrity)
    for plan in plans[max(1, len(payload_manifests)) :]:
        _merge(integrity, judge(plan))
    if layout.algorithms:
        checked = [*payload_manifests, *layout.tag_manifests]
        note = _algorithms_note(layout, checked) if checked else None
        if note is not None:
            old = integrity.stage.note
            integrity.stage.note = f"{old} {note}" if old else note
    integrity.stage.findings.extend(source.check_layout(preread, integrity.files))
    integrity.stage.findings.extend(source.findings())
    integrity.stage.findings.extend(refused)
    preread.clear()

    results = dict(records.results)
    results.update(facts.records)
    store = Records()
    for path, value in records.kept.items():
        store.add(path, results[path].extracted, document=value)
    assert records.bundle is not None
    return _judge_records(
        source,
        options,
        integrity,
        plans[0],
        records,
        results,
        store,
        label,
        base,
        digest_of_manifest,
        content,
        prefix,
        facts,
    )


def _judge_records(
    source: Source,
    options: Options,
    integrity: IntegrityOutcome,
    first: ManifestPlan,
    records: RecordPlan,
    results: dict[str, Any],
    store: Records,
    label: str,
    base: str,
    manifest_sha256: str,
    content: str,
    prefix: str,
    facts: _Facts,
) -> Run:
    """Validity and consistency from the records' results, and the report."""
    assert records.bundle is not None
    stages = options.stages
    listed = {p[len(prefix) :] for p in integrity.listed if p.startswith(prefix)}
    validity = check_validity(records.bundle, results, store)
    spec_present = options.assertions in results or any(
        f.path == prefix + options.assertions for f in integrity.files
    )
    if "consistency" in stages:
        unread = unread_reasons(
            integrity.files, prefix, validity.records, records.is_record, options.records_dir
        )
        # every record the manifest lists (read or not) or the run read
        held = {
            f.path[len(prefix) :] for f in integrity.files if f.listed and f.path.startswith(prefix)
        } | set(results)
        record_count = sum(
            1
            for p in held
            if p != options.assertions
            and records.is_record(p)
            and not is_schema_path(p, options.schemas_dir)
        )
        consistency, assertions = check_consistency(
            validity.records,
            listed,
            options.assertions,
            spec_present,
            unread,
            record_count=record_count,
        )
        ids = {a.id for a in assertions} if validity.records.document(options.assertions) else None
        for catalogue in options.documents:
            if catalogue != options.assertions:
                consistency.findings.extend(
                    check_catalogue(validity.records, catalogue, ids, unread)
                )
    else:
        consistency, assertions = StageResult(Stage.CONSISTENCY, skipped=True), []
        consistency.note = "Not run (--stages)."
    if content:
        _rebase(validity.stage, content)
        _rebase(consistency, content)
        assertions = _rebase_assertions(assertions, content)
    report = Report(
        tool_version=__version__,
        manifest=label,
        scope=first.scope,
        integrity=integrity.stage,
        validity=validity.stage,
        consistency=consistency,
        files=integrity.files,
        assertions=assertions,
        records=validity.records.rebased(content),
        content_root=content,
    )
    details = {f.path: d for f in integrity.files if (d := source.details(f.path))}
    return Run(
        report,
        source.identity(),
        manifest_sha256,
        base,
        details,
        read_processes=max(1, len(facts.pids)),
        executors=facts.executors,
    )


def verify_source(source: Source, root: str, options: Options = Options()) -> Report:
    return run_source(source, root, options).report


def open_location(location: str | os.PathLike[str], options: Options) -> Source:
    """The source at ``location`` as ``options`` say to read it (``--rev``, the limits, a
    named manifest or base, which rule out reading it as a bag). Raises :class:`UsageError`
    if it cannot be opened at all."""
    try:
        return open_source(
            location,
            rev=options.rev,
            limits=options.limits,
            manifest=options.manifest,
            bag=False if options.manifest or options.base else None,
        )
    except SourceError as exc:
        raise UsageError(str(exc)) from None


def run(location: str | os.PathLike[str] = ".", options: Options = Options()) -> Run:
    """Open the source at ``location`` and verify it; the source is closed afterwards."""
    with open_location(location, options) as source:
        return run_source(source, os.fspath(location), options)


def verify(root: str | os.PathLike[str] = ".", options: Options = Options()) -> Report:
    """Verify the archive at ``root`` (a folder, a zip, a tarball, ``REPO@REV``, a bag).
    Raises :class:`UsageError` if it cannot run at all."""
    return run(root, options).report


__all__ = [
    "DEFAULT_MANIFEST",
    "Options",
    "Run",
    "UsageError",
    "open_location",
    "read_manifest",
    "run",
    "run_source",
    "verify",
    "verify_source",
]
