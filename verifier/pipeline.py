"""The pipeline: source -> integrity -> validity -> consistency -> report.

Each stage reports its own findings; a later stage never hides an earlier one (a record whose
digest mismatched is still parsed and checked, and both findings are reported).

Any source location works (a folder, a zip, a tarball, ``REPO@REV``, a BagIt bag): the
source registry (:func:`verifier.sources.open_source`) picks the reader, and its layout says
where the manifest and the records are.
"""

from __future__ import annotations

import errno
import gc
import hashlib
import os
from dataclasses import dataclass, field, replace
from typing import Any

from verifier import __version__
from verifier.errors import UsageError
from verifier.inspect.record import RecordResult, process_record
from verifier.inspect.schemas import Prepared, is_schema_path, prepare_validity
from verifier.judge.catalogue import check_catalogue
from verifier.judge.consistency import check_consistency, unread_reasons
from verifier.judge.integrity import ALGORITHM_LABELS, FileReader, IntegrityOutcome, check_integrity
from verifier.judge.records import Records
from verifier.judge.validity import check_validity
from verifier.model import AssertionResult, FileEntry, Finding, Read, Report, Stage, StageResult
from verifier.plan.manifest import normalize_name
from verifier.plan.needs import CATALOGUE, Need, NeedIndex, selectors_in
from verifier.plan.spec import DEFAULT_SPEC, needs_of
from verifier.sources import (
    DirectorySource,
    Kind,
    Layout,
    Limits,
    Source,
    SourceError,
    open_source,
)
from verifier.sources.bagit import decode_name
from verifier.sources.directory import NotRegularError, read_regular

DEFAULT_MANIFEST = "manifest.sha256"
WEAK_ALGORITHMS = frozenset({"md5", "sha1"})
MAX_MANIFEST_BYTES = 256 * 1024 * 1024  # a million lines of long names fit in a quarter of it


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


def _relative_inside(path: str, root: str) -> str | None:
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    if rel == os.curdir or rel.startswith(os.pardir + os.sep) or rel == os.pardir:
        return None
    return rel.replace(os.sep, "/")


class ManifestRefused(Exception):
    """The manifest is inside the archive but not a regular file within it (a link, a FIFO, a
    device), or over :data:`MAX_MANIFEST_BYTES`: a finding, never read."""

    def __init__(self, label: str, why: str) -> None:
        super().__init__(why)
        self.label = label


def read_manifest(
    root: str, options: Options, source: Source | None = None
) -> tuple[str, bytes, str | None]:
    """The manifest's label, bytes and path relative to the root (``None`` if outside).

    A manifest inside the root is archive content: it must be a regular file reached through
    real folders (``source`` checks every segment), opened without following a link and
    without blocking (a FIFO is never waited on), and at most :data:`MAX_MANIFEST_BYTES`
    (and ``--max-bytes``); otherwise :class:`ManifestRefused`. A manifest outside the root is
    the caller's own file: it must be a regular file too, or the command cannot run
    (:class:`UsageError`); a missing manifest is a :class:`UsageError` either way."""
    path = options.manifest or os.path.join(root, DEFAULT_MANIFEST)
    rel = _relative_inside(path, root)
    label = rel if rel is not None else path
    limit = min(MAX_MANIFEST_BYTES, options.limits.max_bytes)
    if rel is not None and source is not None:
        kind = source.kind(rel)
        if kind is Kind.LINK:
            raise ManifestRefused(label, f"{label} is, or goes through, a symbolic link")
        if kind is Kind.OTHER:
            raise ManifestRefused(label, f"{label} is a special file (a FIFO, device or socket)")
    try:
        # inside the root, the very name kind() checked (not "link/.." spelt in ``path``)
        where = path if rel is None else os.path.join(root, *rel.split("/"))
        data = read_regular(where, limit, follow=rel is None)
    except FileNotFoundError:
        raise UsageError(f"no manifest: {path} does not exist") from None
    except IsADirectoryError:
        raise UsageError(f"the manifest {path} is a directory") from None
    except NotRegularError as exc:
        if rel is not None:
            raise ManifestRefused(label, f"{label}: {exc}") from None
        raise UsageError(f"the manifest {path}: {exc}") from None
    except OSError as exc:
        if rel is not None and exc.errno == errno.ELOOP:
            raise ManifestRefused(label, f"{label} is a symbolic link") from None
        raise UsageError(f"cannot read the manifest {path}: {exc.strerror or exc}") from None
    return label, data, rel


def _read_member(source: Source, name: str) -> bytes:
    try:
        with source.open(name) as stream:
            return stream.read()
    except OSError as exc:
        raise UsageError(
            f"cannot read {name} in {source.description}: {exc.strerror or exc}"
        ) from None


def _refused(label: str, why: str) -> Finding:
    return Finding(
        "manifest.refused",
        label,
        f"The manifest was not read: {why}. Replace it with a regular file of the archive.",
    )


def _manifest(
    source: Source, root: str, options: Options
) -> tuple[tuple[str, bytes, str | None] | None, list[Finding]]:
    """Find and read the manifest: a name inside the source, or (for a folder, or when no such
    name is inside an archive) a local file. ``None``: reading the source stopped (at a limit
    or at damage, each a finding of its own) before the manifest was reached, or the manifest
    is not a regular file of the archive (the finding returned beside it)."""
    if isinstance(source, DirectorySource):
        try:
            return read_manifest(root, options, source), []
        except ManifestRefused as exc:
            return None, [_refused(exc.label, str(exc))]
    name = options.manifest or source.layout().manifest
    member = normalize_name(name.replace(os.sep, "/"))
    kind = source.kind(member) if member is not None else Kind.MISSING
    if member is not None and kind is Kind.FILE:
        try:
            with source.open(member) as stream:
                return (member, stream.read(), member), []
        except OSError as exc:  # damage in the archive's bytes: a finding, not exit 2
            if not source.complete():
                return None, []  # the source's own finding says where reading stopped
            why = exc.strerror or str(exc)
            return None, [
                Finding(
                    "source.unreadable",
                    member,
                    f"The manifest could not be read: {why}; nothing was checked against it. "
                    "Re-create or re-download the archive.",
                )
            ]
    if member is not None and kind in (Kind.LINK, Kind.OTHER):
        what = "a link" if kind is Kind.LINK else "a special file"
        return None, [_refused(member, f"{member} is {what}")]
    if options.manifest and os.path.isfile(options.manifest):
        return read_manifest(root, options), []
    if not source.complete() or source.name == "bag":
        return None, []  # a finding says why: a limit, damage, or a bag without its manifest
    raise UsageError(f"no manifest: {source.description} holds no {name}")


def _base(source: Source, options: Options) -> str:
    if options.base is None or options.base.strip("/") in ("", "."):
        return ""
    base = normalize_name(options.base.strip("/"))
    if base is None:
        raise UsageError(f"--base {options.base}: not a relative folder inside the source")
    if source.kind(base) is not Kind.DIRECTORY:
        raise UsageError(f"--base {options.base}: no such folder in {source.description}")
    return base


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


def _rank(entry: FileEntry) -> int:
    """Which of two entries for one file the report keeps: a listed one over an unlisted one,
    and a problem over "ok" (a file one manifest's digest matches and another's does not)."""
    if not entry.listed:
        return 0
    return 1 if entry.status == "ok" else 2


def _merge(into: IntegrityOutcome, other: IntegrityOutcome) -> None:
    """One integrity outcome for several manifests: every finding, one entry per file, and
    counts over files (a file two manifests list is one file)."""
    into.stage.findings.extend(other.stage.findings)
    at = {f.path: i for i, f in enumerate(into.files)}
    for entry in other.files:
        i = at.get(entry.path)
        if i is None:
            at[entry.path] = len(into.files)
            into.files.append(entry)
        elif _rank(entry) > _rank(into.files[i]):
            into.files[i] = entry
    into.listed |= other.listed
    listed = [f for f in into.files if f.listed]
    into.stage.counts.update(
        listed=len(listed),
        ok=sum(1 for f in listed if f.status == "ok"),
        bytes=sum(f.size or 0 for f in listed),
    )


def _all_listed(outcome: IntegrityOutcome) -> None:
    """BagIt before 1.0: a payload file listed in any payload manifest is listed."""
    listed = {f.path for f in outcome.files if f.listed}
    outcome.stage.findings[:] = [
        f
        for f in outcome.stage.findings
        if not (f.code == "manifest.unlisted" and f.path in listed)
    ]


def _label(algorithm: str) -> str:
    return ALGORITHM_LABELS.get(algorithm, algorithm.upper())


def _algorithms_note(layout: Layout, checked: list[str]) -> str:
    """Which manifests were checked with which algorithm, and a word on weak ones."""
    named = ", ".join(f"{m} ({_label(layout.algorithm(m))})" for m in checked)
    note = f"Checked {len(checked)} manifest{'s' if len(checked) != 1 else ''}: {named}."
    payload = {layout.algorithm(m) for m in (layout.manifest, *layout.payload_manifests)}
    if payload and payload <= WEAK_ALGORITHMS:
        weak = " and ".join(_label(a) for a in sorted(payload))
        verb = "is" if len(payload) == 1 else "are"
        note += (
            f" The payload's integrity rests on {weak} alone, which {verb} broken for "
            "collisions: whoever prepared the bag could have made two files with one digest."
        )
    return note


class RecordProcessor:
    """The validity and consistency stages' part of each record's one read (an
    :class:`verifier.integrity.Processor`).

    Schemas are read first and compiled. The assertion spec and the documents (the case
    catalogue) are read next, in this process, and parsed to learn which values each record
    must yield (:class:`verifier.records.Need`); every other record is then parsed, validated
    and reduced to those values wherever it was read. The documents are parsed once, here:
    worker processes start before that, so their memory does not hold them.
    """

    def __init__(
        self, prefix: str, is_record: Any, options: Options, validate: bool, consistency: bool
    ) -> None:
        self.prefix = prefix
        self.is_record = is_record
        self.schemas_dir = options.schemas_dir
        self.spec_path = options.assertions
        self.documents = {options.assertions, *options.documents}
        self.whole = options.whole
        self.validate = validate
        self.consistency = consistency
        self.prep = Prepared(validate, options.schemas_dir)
        self.early_records: dict[str, bytes] = {}
        self.results: dict[str, RecordResult] = {}
        self.kept: dict[str, Any] = {}  # documents kept whole
        self.index: NeedIndex | None = None

    def _inner(self, name: str) -> str | None:
        if not name.startswith(self.prefix):
            return None
        inner = name[len(self.prefix) :]
        if is_schema_path(inner, self.schemas_dir) or not self.is_record(inner):
            return None
        return inner

    def early(self, name: str) -> bool:
        inner = name[len(self.prefix) :] if name.startswith(self.prefix) else None
        return inner is not None and (
            is_schema_path(inner, self.schemas_dir) or inner in self.documents
        )

    def prepare(self, early: dict[str, bytes]) -> None:
        inner = {n[len(self.prefix) :]: b for n, b in early.items() if n.startswith(self.prefix)}
        self.prep = prepare_validity(inner, self.schemas_dir, self.validate)
        for name, data in early.items():
            path = self._inner(name)
            if path is not None:
                self.early_records[path] = data

    def plan(self) -> NeedIndex:
        """Check the documents (strictly, as every record) and index what they select
        (once)."""
        if self.index is None:
            for path in sorted(self.early_records):
                data = self.early_records.pop(path)
                result, value = process_record(self.prep, path, data, (), keep=True)
                self.results[path] = result
                if value is not None:
                    self.kept[path] = value
            needs: list[Need] = []
            if self.consistency:
                needs.extend(needs_of(self.kept.get(self.spec_path)))
            for path, value in self.kept.items():
                if path != self.spec_path:
                    needs.extend(selectors_in(value))
            needs.extend(Need(pattern, "", glob=True) for pattern in self.whole)
            self.index = NeedIndex(needs)
        return self.index

    def share(self) -> NeedIndex:
        return self.plan()

    def receive(self, index: NeedIndex) -> None:
        self.index = index

    def process(self, name: str, data: bytes) -> RecordResult | None:
        path = self._inner(name)  # a kept file that is not early: a record
        if path is None:
            return None
        return process_record(self.prep, path, data, self.plan().wants(path))[0]

    def records(self, processed: dict[str, Any]) -> tuple[dict[str, RecordResult], Records]:
        """Every record's result (archive paths inside the content root), and the store
        holding the documents kept whole."""
        self.plan()
        results = dict(self.results)
        cut = len(self.prefix)
        for name, result in processed.items():
            if isinstance(result, RecordResult):
                results[name[cut:]] = result
        store = Records()
        for path, value in self.kept.items():
            store.add(path, results[path].extracted, document=value)
        return results, store


def run_source(source: Source, root: str, options: Options = Options()) -> Run:
    """Verify an open source. Raises :class:`UsageError` if it cannot run at all."""
    # The run builds millions of objects and no reference cycles worth collecting; the
    # cyclic collector's full passes over them cost about a third of a large run.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _run_source(source, root, options)
    finally:
        if enabled:
            gc.enable()


def _run_source(source: Source, root: str, options: Options) -> Run:
    layout = source.layout()
    base = _base(source, options)
    found, refused = _manifest(source, root, options)
    reached = found is not None
    label, data, rel = found or (options.manifest or layout.manifest, b"", None)
    preread = {name: _read_member(source, name) for name in layout.preread}
    if rel is not None:
        preread[rel] = data
    source.take_layout_files(preread)
    content = layout.content_root or base
    prefix = content + "/" if content else ""
    records_prefix = options.records_dir.strip("/") + "/"

    def is_record(path: str) -> bool:
        return path.startswith(records_prefix) and path.endswith(".json")

    parse = bool(options.stages & {"validity", "consistency"})

    def keep(path: str) -> bool:
        if not parse or not path.startswith(prefix):
            return False
        inner = path[len(prefix) :]
        return is_record(inner) or is_schema_path(inner, options.schemas_dir)

    if not reached:
        scope: list[str] | None = []
    elif options.scope is not None:
        scope = [s.strip("/") or "." for s in options.scope]
    else:
        scope = [layout.payload] if layout.payload else None
    decode = decode_name if layout.percent_encoded_names else None
    processor = RecordProcessor(
        prefix,
        is_record,
        options,
        validate="validity" in options.stages,
        consistency="consistency" in options.stages,
    )
    payload_manifests = (layout.manifest, *layout.payload_manifests) if reached else ()
    payload_algorithms = tuple(
        sorted({layout.algorithm(m) for m in payload_manifests} - {"sha256"})
    )
    tag_algorithms = tuple(sorted({layout.algorithm(m) for m in layout.tag_manifests} - {"sha256"}))
    payload_prefix = (layout.payload or "") + "/"

    def algorithms(name: str) -> tuple[str, ...]:
        """The further algorithms a file is hashed with: its manifests' (a bag's payload
        files are in every payload manifest, its tag files in the tag manifests)."""
        if layout.payload is not None and name.startswith(payload_prefix):
            return payload_algorithms
        return tag_algorithms

    reader = FileReader(
        source,
        keep,
        preread,
        workers=options.worker_count(),
        progress=options.progress,
        processor=processor,
        algorithms=algorithms if payload_algorithms or tag_algorithms else None,
    )
    several = len(payload_manifests) > 1
    algorithm = layout.algorithm(layout.manifest)
    integrity, used_scope = check_integrity(
        source,
        label,
        data,
        rel,
        scope,
        keep,
        base=base,
        reader=reader,
        allow_empty=layout.payload is not None or not reached,
        decode_name=decode,
        hints=options.hints and algorithm == "sha256",
        algorithm=algorithm,
        parsed=source.parse_manifest(label, data) if reached else None,
        explain_missing=source.explain_missing,
        name_manifest=several,
    )
    if not reached and not source.complete():
        integrity.stage.note = (
            f"The manifest {label} was not reached: the source was not read to its end."
        )

    def check_also(
        name: str, in_scope: list[str] | None, where: str, empty_ok: bool, named: bool
    ) -> None:
        """Check one more manifest of the layout (a bag's) and merge its findings."""
        data = preread[name] if name in preread else _read_member(source, name)
        out, _ = check_integrity(
            source,
            name,
            data,
            name,
            in_scope,
            keep,
            base=where,
            reader=reader,
            allow_empty=empty_ok,
            decode_name=decode,
            hints=False,
            algorithm=layout.algorithm(name),
            parsed=source.parse_manifest(name, data),
            explain_missing=source.explain_missing,
            name_manifest=named,
        )
        _merge(integrity, out)

    for other in payload_manifests[1:]:
        check_also(other, scope, base, True, True)
    if not source.payload_in_every_manifest():
        _all_listed(integrity)
    for tag in layout.tag_manifests:
        check_also(tag, [], "", False, len(layout.tag_manifests) > 1)
    if layout.algorithms:
        checked = [*payload_manifests, *layout.tag_manifests]
        note = _algorithms_note(layout, checked) if checked else None
        if note is not None:
            old = integrity.stage.note
            integrity.stage.note = f"{old} {note}" if old else note
    integrity.stage.findings.extend(source.check_layout(preread, integrity.files))
    integrity.stage.findings.extend(source.findings())
    integrity.stage.findings.extend(refused)

    if not reader.prepared:
        processor.prepare({})
    results, store = processor.records(reader.processed)
    listed = {p[len(prefix) :] for p in integrity.listed if p.startswith(prefix)}
    stages = options.stages
    unknown = stages - {"integrity", "validity", "consistency"}
    if unknown or "integrity" not in stages:
        raise UsageError(
            "--stages takes integrity, validity and consistency, and always includes "
            "integrity (it is the one read of every file)"
        )
    validity = check_validity(processor.prep, results, store)
    spec_present = options.assertions in results or any(
        f.path == prefix + options.assertions for f in integrity.files
    )
    if "consistency" in stages:
        unread = unread_reasons(
            integrity.files, prefix, validity.records, is_record, options.records_dir
        )
        # every record the manifest lists (read or not) or the run read
        held = {
            f.path[len(prefix) :] for f in integrity.files if f.listed and f.path.startswith(prefix)
        } | set(results)
        record_count = sum(
            1
            for p in held
            if p != options.assertions
            and is_record(p)
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
        scope=used_scope,
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
        hashlib.sha256(data).hexdigest(),
        base,
        details,
        read_processes=max(1, len(reader.readers)),
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
