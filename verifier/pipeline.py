"""The pipeline, one way: plan -> inspect -> judge -> locate -> report (:func:`_run_plan`).

1. **Plan** (:mod:`verifier.plan`): find and parse the manifests, walk their scope, read the
   schemas and the documents (the assertion spec, the case catalogue) into the schema bundle
   and the need index, and make one small, picklable task per file.
2. **Inspect** (:mod:`verifier.inspect`): a pure function from a task (and the context: the
   source's opener and the bundle) to that file's facts, run by an executor
   (:mod:`verifier.execute`): here, or in worker processes that open the files themselves; a
   source read in one pass (a tarball, git) is inspected here, as it streams. Hints ask for
   more tasks (the files they compare against) through the plan; what the judge needs of the
   source itself is taken last (:class:`verifier.inspect.seen.SourceFacts`).
3. **Judge** (:mod:`verifier.judge`): the facts reduced into the stages' results; it is never
   given the source.
4. **Locate** (:func:`verifier.inspect.locate.place_findings`): the line and column of the
   findings' pointers, in the files that have findings.
5. **Report**: a frozen :class:`~verifier.report.Report`, which the views render with their
   settings.

Each stage reports its own findings; a later stage never hides an earlier one (a record whose
digest mismatched is still parsed and checked, and both findings are reported).
"""

from __future__ import annotations

import gc
import hashlib
import os
from dataclasses import dataclass, field, replace
from typing import Any

from verifier.errors import UsageError
from verifier.inspect.digest import _digest_bytes
from verifier.inspect.gather import Facts, inspect_all
from verifier.inspect.history import index_names, older_versions
from verifier.inspect.locate import place_findings
from verifier.inspect.seen import SourceFacts, layout_facts, read_facts
from verifier.judge.authenticity import judge_authenticity
from verifier.judge.integrity import IntegrityOutcome
from verifier.judge.report import judge_first, judge_integrity, judge_records, wants_hints
from verifier.manifest import normalize_name
from verifier.plan.build import build_plan
from verifier.plan.locate import DEFAULT_MANIFEST, read_manifest
from verifier.plan.options import Options, check_options
from verifier.plan.phases import announce
from verifier.plan.plan import Plan
from verifier.plan.withheld import Adopted, adopted
from verifier.report import Report, merge_inner
from verifier.sources import Kind, Source, SourceError, open_source
from verifier.sources.bagit import PAYLOAD, BagSource
from verifier.sources.capabilities import FileDetails
from verifier.sources.subtree import SubtreeSource
from verifier.values.records import Records


@dataclass(slots=True)
class Run:
    """A report and what the audit record adds to it: the source's identity, the manifest's
    digest and per-file facts a source knows (git blob ids). ``read_processes``: how many
    processes read the archive's files (1: this one alone; more: forked workers read
    batches too); the report is the same either way, this says which path ran."""

    report: Report
    #: what the stages kept of the parsed records, by the report's paths (a coverage audit
    #: reads them; the report's views read :attr:`Report.selected`)
    records: Records
    source: dict[str, Any]
    manifest_sha256: str
    base: str
    details: dict[str, dict[str, str]]
    read_processes: int = 1
    #: what each inspection pass ran on (``executor``, ``workers``; ``serial`` with
    #: ``onePass``: a source without worker reads, read in one pass in this process: a
    #: compressed tarball; git commits, folders, zips and plain tarballs are read by workers)
    executors: list[dict[str, Any]] = field(default_factory=list)

    @property
    def executor(self) -> dict[str, Any]:
        """What the run's main inspection pass ran on (the executor's ``describe()``)."""
        return self.executors[0] if self.executors else {"executor": "inline", "workers": 1}


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


def _run_source(source: Source, root: str, options: Options) -> Run:
    inner = _archive_in_bag(source, options)
    if inner is None:
        return _run_one(source, root, options)
    # A bag whose payload is an evidence archive: the bag's manifests, then the archive's
    # own manifest and its signatures (its records are the bag's payload: validity and
    # consistency are the bag run's), the findings marked with their manifest; what is
    # accepted is chosen once, over both. The archive is planned first: the files its
    # withheld list withholds are withheld in the bag's run too (and supplied to it).
    bare = replace(options, ignore=frozenset(), select=None, baseline=None)
    subtree, name = inner
    within = replace(bare, stages=frozenset({"integrity"}), progress=None, manifest=name)
    plan = build_plan(subtree, root, within)
    try:
        adopt = adopted(plan.withheld, plan.manifests[0], subtree.prefix) if plan.reached else None
        # --manifest and --signature name the inner manifest's; a trust anchor expects its
        # signature there (a bag's own manifest is checked against it only if signed)
        trust = replace(options.trust, signature=None, expected_elsewhere=True)
        outer = _run_one(source, root, replace(bare, manifest=None, trust=trust), adopt=adopt)
        # one read per file: the archive's files are checked against its manifest with the
        # digests of the bytes the bag's manifests were checked against
        known = _payload_digests(outer.report, subtree.prefix)
        archive = _run_plan(plan.supplied or subtree, root, within, plan, known)
    finally:
        plan.close_walk()
        if plan.supplied is not None:
            plan.supplied.close()
    inner_report = archive.report
    # the archive's manifest and withheld list were read twice: as payload files of the bag,
    # then as the archive's (the withheld list only when it was readable)
    twice = {name: archive.manifest_sha256}
    if plan.withheld is not None and plan.withheld.data:
        twice[plan.withheld.path] = hashlib.sha256(plan.withheld.data).hexdigest()
    for path, digest in twice.items():
        read = known.get(path)
        if read is not None and read[0] != digest:
            inner_report = _manifest_changed(inner_report, path)
    outer.report = _accept(merge_inner(outer.report, inner_report, subtree.prefix), options)
    outer.executors += archive.executors
    return outer


def _payload_digests(report: Report, prefix: str) -> dict[str, tuple[str, int]]:
    """The SHA-256 and size of each file of the bag's payload its run read, by its name in
    the payload (``prefix``: the payload folder, ``data/``)."""
    return {
        entry.path[len(prefix) :]: (entry.sha256, entry.size)
        for entry in report.files
        if entry.path.startswith(prefix) and entry.sha256 is not None and entry.size is not None
    }


def _manifest_changed(report: Report, name: str) -> Report:
    """``report`` with a ``manifest.changed`` finding: the archive's manifest (or withheld
    list) was read twice (as a payload file of the bag, then as the archive's) and the two
    reads differ."""
    from verifier.findings import Finding

    finding = Finding(
        "manifest.changed",
        name,
        "Changed while the bag was read: the bag's manifests were checked against other "
        "bytes than the archive's run read; check the bag again once nothing writes to it.",
    )
    integrity = replace(report.integrity, findings=[*report.integrity.findings, finding])
    return replace(report, integrity=integrity)


def _archive_in_bag(source: Source, options: Options) -> tuple[SubtreeSource, str] | None:
    """The bag's payload as an archive of its own, when it holds its manifest (the default
    name, or ``--manifest``'s); ``None``: not a bag, or a bag of anything else."""
    if not isinstance(source, BagSource):
        return None
    # --manifest names the payload's manifest, or (naming one of the bag's own) the default
    for given in (options.manifest, DEFAULT_MANIFEST):
        name = normalize_name(given.replace(os.sep, "/")) if given else None
        if name is not None and source.container.kind(f"{PAYLOAD}/{name}") is Kind.FILE:
            return SubtreeSource(source.container, PAYLOAD), name
    return None


def _accept(report: Report, options: Options) -> Report:
    if options.ignore or options.select is not None or options.baseline is not None:
        from verifier.accept.apply import accept
        from verifier.values.selection import Selection

        return accept(report, Selection(options.ignore, options.select), options.baseline)
    return report


def _run_one(source: Source, root: str, options: Options, adopt: Adopted | None = None) -> Run:
    # 1. plan: the manifests, their scope, the files in order
    announce(options.progress, "manifest")
    plan = build_plan(source, root, options, adopt)
    try:
        # (with the files --withheld-dir supplies read from there, as if the archive held them)
        return _run_plan(plan.supplied or source, root, options, plan)
    finally:
        plan.close_walk()  # (taken by then, unless the run ended early)
        if plan.supplied is not None:
            plan.supplied.close()


def _run_plan(
    source: Source,
    root: str,
    options: Options,
    plan: Plan,
    known: dict[str, tuple[str, int]] | None = None,
) -> Run:
    # 1. plan, finished: the signatures judged over the bytes the plan read (dropped then),
    # the schemas and documents read into the bundle and what every record must yield
    signed = judge_authenticity(
        plan.signatures, plan.signature_findings, plan.signed, options.trust, plan.label
    )
    plan.signed = b""
    facts = Facts(plan.expected_of())
    done = _finish_plan(plan, source, facts, options)
    # 2. inspect every other file, wherever the executor runs it, then what hints compare
    # against (extra tasks the first judgement asks for) and what the judge needs of the source
    seen, first, names, older = _inspect(plan, source, facts, options, done, known)
    # 3. judge (never given the source): integrity, then validity and consistency
    integrity = judge_integrity(plan, facts, seen, first, names, older)
    # every file's entry is made: its digest is not read again (a tenth of the facts held at
    # the run's peak, which the consistency stage reaches)
    facts.digests.clear()
    facts.errors.clear()
    plan.drop_listings()  # (nor what the manifests list: the file entries say it now)
    announce(options.progress, "assertions")
    report, kept = judge_records(plan, facts, integrity, options, signed)
    # 4. locate: line and column of pointers, in files with findings
    place_findings(report, source)
    # 5. the report, for the views (the commands render it)
    return _run_of(_accept(report, options), kept, source, root, plan, facts)


def _finish_plan(plan: Plan, source: Source, facts: Facts, options: Options) -> set[str]:
    """The plan's own reads judged into facts (the manifest, a layout's files), then its early
    files (schemas, documents) read and the records' plan made from them; the names read."""
    _digest_preread(plan, facts)
    announce(options.progress, "schemas")
    done = _early(plan, source, facts, options)
    plan.records.pack()  # nothing reads the documents until they are judged
    return done


def _inspect(
    plan: Plan,
    source: Source,
    facts: Facts,
    options: Options,
    done: set[str],
    known: dict[str, tuple[str, int]] | None,
) -> tuple[SourceFacts, IntegrityOutcome, list[str], dict[str, str]]:
    """Every file not ``done`` inspected into ``facts`` (each task made as the executor takes
    it: the workers read the first batches while later ones are made). When the report's
    manifest has a missing or mismatched file (its first judgement says so), the files hints
    compare against are inspected too, and the older versions of those files looked up.
    Returns what the judge needs of the source, that first judgement, the hints' files and
    the older versions."""
    records = plan.records
    announce(options.progress, "records")
    cases = records.case_rules
    inspect_all(
        source, records.bundle, plan.rest(source, done), facts, options, known=known, cases=cases
    )
    seen = layout_facts(source, plan)
    first = judge_first(plan, facts, seen)
    names = index_names(source) if wants_hints(plan, first, options.hints) else []
    older: dict[str, str] = {}
    if names:
        extra = list(plan.tasks(source, (n for n in names if not facts.known(n))))
        inspect_all(source, records.bundle, extra, facts, options, known=known, cases=cases)
        facts.held.clear()
        older = older_versions(source, first.problems, plan.manifests[0].wanted)
    records.forget_needs()  # no task is made after this
    return read_facts(source, seen), first, names, older


def _run_of(
    report: Report, kept: Records, source: Source, root: str, plan: Plan, facts: Facts
) -> Run:
    """The run: the report with the source's identity, and what the audit record adds."""
    per_file = source.capability(FileDetails)
    details = (
        {f.path: d for f in report.files if (d := per_file.details(f.path))}
        if per_file is not None
        else {}
    )
    identity = source.identity()
    report = replace(
        report, source={**identity, "location": portable(identity.get("location"), root)}
    )
    return Run(
        report,
        kept,
        identity,
        plan.manifest_sha256,
        plan.base,
        details,
        read_processes=max(1, len(facts.pids)),
        executors=facts.executors,
    )


def _early(plan: Plan, source: Source, facts: Facts, options: Options) -> set[str]:
    """Inspect the schemas and documents here and prepare the records' plan from them (the
    bundle, what every record must yield); the names inspected. When another process walks
    the scope meanwhile, the listed early files are read while it runs; if its walk then
    meets early files the manifest does not list (an unlisted schema), this is done again
    with every early file, as if the walk had come first."""
    if plan.streams_walk:  # no early file: the walk is taken as the files are read
        _prepare(plan, source, facts, options, [])
        return set()
    if plan.walking is not None:
        names = plan.listed_early_names(source)
        _prepare(plan, source, facts, options, names)
        plan.finish_walk(source)
        final = plan.early_names()
        if final == names:
            return set(names)
        for name in names:  # (documents and schemas leave no record result)
            facts.digests.pop(name, None)
            facts.errors.pop(name, None)
        plan.records = plan.records.fresh()
        names = final
    else:
        names = plan.early_names()
    _prepare(plan, source, facts, options, names)
    return set(names)


def _prepare(plan: Plan, source: Source, facts: Facts, options: Options, names: list[str]) -> None:
    records = plan.records
    inspect_all(source, records.bundle, list(plan.tasks(source, names)), facts, options, here=True)
    held, facts.held = facts.held, {}
    # parsed once; each document's bytes dropped as it is parsed, its strings shared
    records.prepare(held, plan.manifests[0].wanted)


def _digest_preread(plan: Plan, facts: Facts) -> None:
    """The digests of the files the plan read itself (the manifest, a layout's own files);
    a record's bytes are held for its parse. The manifest's bytes are dropped then (a tenth
    of a large run's memory): digested and parsed, nothing reads them again."""
    for name, data in plan.preread.items():
        facts.digests[name] = _digest_bytes(data, False, None, plan.algorithms(name))
        if plan.parse and plan.records.parsed(name):
            facts.held[name] = data
    if plan.rel is not None and plan.rel not in plan.layout.preread:
        plan.preread.pop(plan.rel, None)


def portable(location: Any, root: str) -> str:
    """A source's location as the report names it: as given when relative, relative to the
    working directory when under it, else its last component (no machine's absolute path
    in a machine format)."""
    text = os.fspath(location) if isinstance(location, str | os.PathLike) else root
    if not os.path.isabs(text):
        return text
    try:
        rel = os.path.relpath(text)
    except ValueError:
        rel = os.pardir
    if rel != os.pardir and not rel.startswith(os.pardir + os.sep):
        return rel.replace(os.sep, "/")
    return os.path.basename(text.rstrip("/" + os.sep)) or text


def verify_source(source: Source, root: str, options: Options = Options()) -> Report:
    return run_source(source, root, options).report


def open_location(location: str | os.PathLike[str], options: Options) -> Source:
    """The source at ``location`` as ``options`` say to read it (``--rev``, the limits, a
    named manifest, read as a bag only when it is in the bag's payload, or a base, which
    rules out reading it as a bag). Raises :class:`UsageError`
    if it cannot be opened at all."""
    try:
        return open_source(
            location,
            rev=options.rev,
            limits=options.limits,
            manifest=options.manifest,
            bag=False if options.base else None,
        )
    except SourceError as exc:
        raise UsageError(str(exc)) from None


def run(location: str | os.PathLike[str] = ".", options: Options = Options()) -> Run:
    """Open the source at ``location`` and verify it; the source is closed afterwards."""
    check_options(options)  # before the source is opened (a zip's or tarball's index read)
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
