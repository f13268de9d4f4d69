"""The judge step, in order: integrity (every manifest of the layout, with hints where a listed
file does not match), then validity and consistency from the records' results, into the
report. Judges read nothing of the source: they are given its files' facts and what the
pipeline took of the source itself (:class:`verifier.inspect.seen.SourceFacts`); what hints
compare against is inspected by the pipeline first, as extra tasks, when :func:`wants_hints`
says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from verifier.findings import Finding, Stage
from verifier.inspect.gather import Facts
from verifier.inspect.seen import SourceFacts
from verifier.judge.cascade import link_causes, relate_entries
from verifier.judge.catalogue import check_catalogue, select_values
from verifier.judge.consistency import check_consistency, unread_reasons
from verifier.judge.hints import Hinter
from verifier.judge.integrity import IntegrityOutcome, ReadListed, judge_manifest
from verifier.judge.merge import _algorithms_note, _all_listed, _merge
from verifier.judge.validity import check_validity
from verifier.plan.entries import ManifestPlan
from verifier.plan.plan import Plan
from verifier.record.check import judged_form
from verifier.report import AssertionResult, FileEntry, Read, Report, SignatureCheck, StageResult
from verifier.schema.bundle import is_schema_path
from verifier.values.needs import CATALOGUE
from verifier.values.records import Records
from verifier.version import __version__

Signed = tuple[StageResult, list[SignatureCheck]]  # the authenticity stage, its signatures

if TYPE_CHECKING:
    from verifier.plan.options import Options
    from verifier.plan.records import RecordPlan


def judge_first(plan: Plan, facts: Facts, seen: SourceFacts) -> IntegrityOutcome:
    """The report's manifest, judged alone (before hints and the layout's other manifests),
    with the files its withheld list withholds reported as withheld."""
    withheld = plan.withheld
    if withheld is None:
        return _judge(plan.manifests[0], facts, seen)
    out = _judge(plan.manifests[0], facts, seen, withheld.files)
    findings = out.stage.findings
    if withheld.adopted:  # (the archive's run reports on its list)
        _apart(out, plan.adopted, plan.adopted_manifest)
        return out
    findings.extend(withheld.findings)
    supplied = getattr(plan.supplied, "names", {})
    for entry in out.files:
        if entry.path in supplied:
            findings.append(
                Finding(
                    "withheld.supplied",
                    entry.path,
                    "Withheld from the archive, read from --withheld-dir: checked against the "
                    "digest the manifest committed to, and every stage ran on it.",
                )
            )
        elif entry.path in withheld.files and entry.status != "withheld":
            findings.append(
                Finding(
                    "withheld.present",
                    entry.path,
                    "The withheld list names this file, yet the archive holds it: it was "
                    "checked as any listed file.",
                )
            )
    return out


def _apart(out: IntegrityOutcome, adopted: frozenset[str], manifest: str) -> None:
    """The bag's judgement of the files it does not list that the archive in its payload
    lists and withholds: their findings are against the archive's manifest (kept for the
    records' judgement until the archive's own run reports them), not counted as the bag's."""
    if not adopted:
        return
    stage = out.stage
    stage.findings[:] = [
        replace(f, manifest=manifest, line=None, at=None) if f.path in adopted else f
        for f in stage.findings
    ]
    counts = stage.counts
    for entry in out.files:
        if entry.path in adopted:
            counts["listed"] -= 1
            counts["ok"] -= entry.status == "ok"
            counts["bytes"] -= entry.size or 0
            if entry.status == "withheld":
                counts["withheld"] -= 1
    if counts.get("withheld") == 0:
        del counts["withheld"]


def _judge(
    manifest: ManifestPlan,
    facts: Facts,
    seen: SourceFacts,
    withheld: Mapping[str, str] | None = None,
) -> IntegrityOutcome:
    # without a layout's own rules, a listed file that is absent is missing
    explain = seen.explain_missing
    if withheld:
        explain = _withheld(withheld, explain)
    return judge_manifest(manifest, facts.digests, facts.errors, seen.walk_errors, explain)


def _withheld(
    files: Mapping[str, str], otherwise: Callable[[str, int], Finding | None] | None
) -> Callable[[str, int], Finding | None]:
    """A listed file that is absent: withheld when the withheld list names it."""

    def explain(name: str, line: int) -> Finding | None:
        reason = files.get(name)
        if reason is None:
            return otherwise(name, line) if otherwise is not None else None
        shown = reason if len(reason) <= 200 else reason[:200] + "..."
        return Finding(
            "manifest.withheld",
            name,
            f"Withheld by the publisher ({shown}): the manifest commits to its SHA-256, but "
            "nothing about its content was checked; verify it with --withheld-dir when you "
            "are given it.",
            line=line,
        )

    return explain


def wants_hints(plan: Plan, first: IntegrityOutcome, hints: bool) -> bool:
    """Whether hints are to compare against the source's other files (extra tasks): a listed
    file is missing or mismatched, hints are on, and the manifest is a SHA-256 one."""
    return bool(first.problems and hints and plan.manifests[0].algorithm == "sha256")


def judge_integrity(
    plan: Plan,
    facts: Facts,
    seen: SourceFacts,
    first: IntegrityOutcome,
    names: list[str],
    older: Mapping[str, str] | None = None,
) -> IntegrityOutcome:
    """The integrity stage: ``first`` with its hints (from ``names``' facts and the ``older``
    versions looked up for its problems), the layout's other payload manifests and its tag
    manifests merged in, and the source's findings (``seen``: what the judge knows of the
    source, taken once every file was read)."""
    layout = plan.layout
    if names:
        manifest = plan.manifests[0]
        hinter = Hinter(
            manifest.kinds,
            seen.complete,
            facts.digests,
            names,
            manifest.wanted,
            manifest.relative,
            plan.base,
            plan.rel,
            older,
        )
        findings = first.stage.findings
        for problem, index in first.problems.items():
            hint = hinter.hint(problem)
            if hint:
                findings[index] = replace(findings[index], hint=hint)
        first.stage.note = hinter.base_note()
    if not plan.reached and not seen.complete:
        first.stage.note = (
            f"The manifest {plan.label} was not reached: the source was not read to its end."
        )
    withheld = plan.withheld.files if plan.withheld is not None else None
    for manifest in plan.manifests[1 : plan.payload_count]:
        _merge(first, _judge(manifest, facts, seen, withheld), manifest.label)
    if not seen.every_manifest:  # (BagIt before 1.0: in at least one payload manifest)
        _all_listed(first)
    for manifest in plan.manifests[plan.payload_count :]:
        _merge(first, _judge(manifest, facts, seen), manifest.label)
    if layout.algorithms:
        payload = (layout.manifest, *layout.payload_manifests) if plan.reached else ()
        checked = [*payload, *layout.tag_manifests]
        note = _algorithms_note(layout, checked) if checked else None
        if note is not None:
            old = first.stage.note
            first.stage.note = f"{old} {note}" if old else note
    adopted = plan.adopted  # (the bag's layout rules are over the files it lists)
    layout_files = [f for f in first.files if f.path not in adopted] if adopted else first.files
    first.stage.findings.extend(seen.check_layout(layout_files))
    # a finding about the source as a whole (damage before its first entry) names the source
    # as given, so that no view shows an empty path (SourceFacts)
    first.stage.findings.extend(seen.findings)
    first.stage.findings.extend(plan.refused)
    return first


def judge_records(
    plan: Plan, facts: Facts, integrity: IntegrityOutcome, options: Options, signed: Signed
) -> tuple[Report, Records]:
    """Validity and consistency from the records' results; the report (``signed``: its
    authenticity stage and signatures) and the records the stages kept, by its paths."""
    records = plan.records
    judged_apart = facts.judged_cases()  # (the instances the workers judged)
    results: dict[str, Any] = dict(records.results)
    results.update(facts.records.items())  # (in the order they came)
    facts.records.clear()  # read from ``results`` from here on
    store = Records()
    for path in records.kept_paths():  # first; each document itself added once unpacked
        store.add(path, judged_form(results[path]).extracted)
    assert records.bundle is not None
    content, prefix = plan.content, plan.prefix
    stages = options.stages
    # the listed files read, inside the content root: made only if something asks
    listed = ReadListed(integrity.files, prefix)
    validity = check_validity(records.bundle, results, store)
    if "validity" in stages:
        validity.stage.findings.extend(unmatched_containers(records, listed))
        validity.stage.findings.extend(unmatched_checkpoints(records, listed))
    spec_present = options.assertions in results or any(
        f.path == prefix + options.assertions for f in integrity.files
    )
    # the records besides the spec: counted only when there is no spec (what its finding
    # says); with one, the sets of every name are not built at the run's peak
    record_count = (
        _record_count(integrity.files, prefix, results, records, options)
        if "consistency" in stages and not spec_present
        else 0
    )
    # every record's result is in the stage or the store now: the results are dropped before
    # the assertions' results are made (the run's peak). The documents go in as they are
    # held: a packed one is unpacked when read, a large spec's assertions a part at a time
    results.clear()
    for path, value in records.held().items():
        store.add(path, document=value)
    if "consistency" in stages:
        unread = unread_reasons(
            integrity.files, prefix, validity.records, records.is_record, options.records_dir
        )
        consistency, assertions = check_consistency(
            validity.records,
            listed,
            options.assertions,
            spec_present,
            unread,
            record_count=record_count,
            cases=records.case_rules,
            judged=judged_apart,
        )
        ids = (
            {a.id for a in assertions}
            if validity.records.has_document(options.assertions)
            else None
        )
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
    kept = validity.records.rebased(content)
    judged = options.documents[0] if options.documents else None
    report = Report(
        tool_version=__version__,
        manifest=plan.label,
        scope=plan.manifests[0].scope,
        integrity=integrity.stage,
        validity=validity.stage,
        consistency=consistency,
        files=integrity.files,
        assertions=assertions,
        selected=select_values(validity.records, judged or CATALOGUE, tuple(kept)),
        content_root=content,
        spec=options.assertions,
        catalogue=judged,
        witness_logs=witness_logs(records, integrity.files, content),
        manifest_sha256=plan.manifest_sha256 or None,  # (a baseline's entries need it)
        authenticity=signed[0],
        signatures=signed[1],
    )
    if "consistency" in stages:  # an assertion's finding on a record names its spec entry
        relate_entries(report, kept, report.content_path(options.assertions))
    link_causes(report, kept)  # a finding caused by an earlier one names it (cascade control)
    return report, kept


def _record_count(
    files: list[FileEntry],
    prefix: str,
    results: dict[str, Any],
    records: RecordPlan,
    options: Options,
) -> int:
    """How many records the manifest lists (read or not) or the run read, besides the spec
    and the schemas."""
    held = {f.path[len(prefix) :] for f in files if f.listed and f.path.startswith(prefix)}
    return sum(
        1
        for p in held | set(results)
        if p != options.assertions
        and records.is_record(p)
        and not is_schema_path(p, options.schemas_dir)
    )


def unmatched_containers(records: Any, listed: AbstractSet[str]) -> list[Finding]:
    """A ``transcripts`` or ``witnesses`` entry of the spec that matches no listed file
    checked nothing: a finding, never a silent pass."""
    from verifier.json.pointer import Glob
    from verifier.witness import LOG_SHAPE

    out = []
    for pattern, shape, _, pointer in records.containers:
        glob = Glob(pattern)
        if not any(glob.match(p) for p in listed if p != records.spec_path):
            log = shape == LOG_SHAPE
            out.append(
                Finding(
                    "chain.unmatched-pattern" if log else "transcript.unmatched-pattern",
                    records.spec_path,
                    f"The {'witnesses' if log else 'transcripts'} entry {pattern!r} matches no "
                    f"file the manifest lists, so no {'log' if log else 'container'} was "
                    "checked for it.",
                    pointer,
                )
            )
    return out


def witness_logs(records: Any, files: list[FileEntry], content: str) -> tuple[str, ...]:
    """The listed files the spec's ``witnesses`` match, by their paths in the source."""
    from verifier.json.pointer import Glob
    from verifier.witness import LOG_SHAPE

    globs = [Glob(c[0]) for c in records.containers if c[1] == LOG_SHAPE]
    if not globs:
        return ()
    cut = len(content) + 1 if content else 0
    return tuple(
        sorted(
            f.path
            for f in files
            if f.listed
            and (not content or f.path.startswith(content + "/"))
            and any(g.match(f.path[cut:]) for g in globs)
        )
    )


def unmatched_checkpoints(records: Any, listed: AbstractSet[str]) -> list[Finding]:
    """A ``--checkpoint`` that no witness log of the spec is checked against (it names a
    file that is not one, or the spec names no log) checked nothing: a finding."""
    from verifier.json.pointer import Glob
    from verifier.witness import LOG_SHAPE

    kept = records.witness.checkpoints
    if not kept:
        return []
    globs = [Glob(c[0]) for c in records.containers if c[1] == LOG_SHAPE]
    logs = {p for p in listed if p != records.spec_path and any(g.match(p) for g in globs)}
    out = []
    for checkpoint in kept:
        if (checkpoint.file is None and logs) or checkpoint.file in logs:
            continue
        what = (
            f"names {checkpoint.file!r}, which is not a witness log the spec's 'witnesses' "
            "match among the manifest's files"
            if checkpoint.file is not None
            else "applies to every witness log, and the spec's 'witnesses' match none"
        )
        out.append(
            Finding(
                "chain.checkpoint-unmatched",
                records.spec_path,
                f"The --checkpoint {checkpoint.source} {what}, so it was checked against "
                "nothing; name the log with 'file' (a path inside the content root).",
                "/witnesses" if globs else None,
            )
        )
    return out


def _under(prefix: str, path: str) -> str:
    return f"{prefix}/{path}" if prefix else path


def _rebase(stage: StageResult, prefix: str) -> None:
    stage.findings[:] = [replace(f, path=_under(prefix, f.path)) for f in stage.findings]


def _rebase_assertions(results: list[AssertionResult], prefix: str) -> list[AssertionResult]:
    return [
        AssertionResult(
            r.id,
            r.kind,
            r.description,
            r.status,
            r.message,
            (Read(_under(prefix, x.path), x.pointer) for x in r.reads),
            replace(r.finding, path=_under(prefix, r.finding.path)) if r.finding else None,
        )
        for r in results
    ]
