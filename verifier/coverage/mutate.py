"""``verify-evidence coverage --mutate``: would the spec notice if a compared value changed?

For each covered leaf (:class:`LeafStatus.COVERED`) one mutant: the value replaced by the
first of a few values of the same JSON type (:mod:`verifier.coverage.candidates`) that the
validity stage's own code accepts (:func:`verifier.record.check.process_record`: the mutated
record's bytes parsed strictly, validated against its declared schema). The mutant is then
judged against the unmutated archive: *killed* when an assertion that passed no longer does,
or a transcript check or a catalogue cell gains a finding; otherwise *survived* (a
``coverage.survived`` finding naming the value tried and the schema rule that allowed it).

Two judges, one verdict (``tests/unit/test_mutate.py`` checks they agree on every mutant of
the bundled archive):

* the fast judge (default) re-runs only what the changed bytes can change: that record's
  per-file inspection, then the consistency stage and the catalogue check over the baseline's
  extracted values with that one record's replaced;
* the reference (``full``): the listed files are copied once into a scratch folder (under a
  ``tempfile.mkdtemp``, removed afterwards; the audited source is only ever read), and per
  mutant the mutated record is written there, its manifest line rewritten so integrity passes,
  and the whole check runs on the copy.

Mutants are spread over an executor (:mod:`verifier.execute`: ``Options.executor``, local
processes by default when there are two workers and two mutants) and come back in leaf order,
so the report is the same whatever ran them. What a mutant's judgement needs travels as one
picklable context (:class:`_Spec`: the audit run, the options, the bytes read, the scratch
copy, the deadline), sent to each worker once; each worker builds its engine from it on first
use. ``max_mutants`` picks leaves with a ``random.Random(seed)``, and ``time_budget`` stops
starting mutants once it has passed (a wall-clock deadline: a worker may be another
machine).
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, replace
from typing import Any

from verifier.assertions import kind_named
from verifier.assertions.interface import plain
from verifier.coverage.candidates import candidates, placeholder, unmutable
from verifier.coverage.report import (
    CoverageReport,
    LeafStatus,
    Mutant,
    MutantOutcome,
    Mutation,
    killed_by,
)
from verifier.coverage.rules import governing
from verifier.coverage.scratch import Scratch
from verifier.execute import create
from verifier.execute.interface import BATCH_WEIGHT
from verifier.findings import Finding
from verifier.json.pointer import EvalError, Glob, resolve_pointer
from verifier.json.write import dumps
from verifier.judge.catalogue import check_catalogue
from verifier.judge.consistency import check_consistency, repeated_ids, unread_reasons
from verifier.pipeline import Options, Run, open_location
from verifier.plan.records import RecordPlan
from verifier.record.check import process_record
from verifier.report import AssertionResult, Report
from verifier.schema.bundle import is_schema_path
from verifier.values.records import Records


def _shallow(node: Any) -> Any:
    return dict(node) if isinstance(node, dict) else list(node)


def _set(document: Any, pointer: str, value: Any) -> Any:
    """A copy of ``document`` with ``value`` at ``pointer`` (which resolves): only the
    containers on the way down are copied (no recursion, whatever the nesting)."""
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
    out = _shallow(document)
    node = out
    for token in tokens[:-1]:
        key: Any = token if isinstance(node, dict) else int(token)
        node[key] = _shallow(node[key])
        node = node[key]
    last = tokens[-1]
    if isinstance(node, dict):
        node[last] = value
    else:
        node[int(last)] = value
    return out


def shown(value: Any) -> str:
    return plain(dumps(value), 80)


@dataclass(frozen=True, slots=True)
class _Target:
    path: str  # archive path
    pointer: str


class _Engine:
    """Everything a mutant's judgement needs, built once per process from a :class:`_Spec`."""

    def __init__(
        self,
        checked: Run,
        options: Options,
        data: dict[str, bytes],
        scratch: Scratch | None,
        deadline: float | None,
    ) -> None:
        report = checked.report
        self.prefix = report.content_root + "/" if report.content_root else ""
        self.options = options
        self.data = data
        self.scratch = scratch
        self.deadline = deadline
        records_prefix = options.records_dir.strip("/") + "/"

        def is_record(path: str) -> bool:
            return path.startswith(records_prefix) and path.endswith(".json")

        self.plan = RecordPlan(
            self.prefix,
            options.records_dir,
            options.schemas_dir,
            options.assertions,
            options.documents,
            options.whole,
        )
        self.plan.prepare(
            {n: b for n, b in data.items() if self.plan.early(n)},
            [f.path for f in report.files if f.listed],  # (the cases of the spec's rules)
        )
        prep = self.plan.bundle
        assert prep is not None
        self.docs = prep.validators.docs if prep.validators is not None else {}
        self.ids = prep.schemas
        cut = len(self.prefix)
        self.records = checked.records.within(report.content_root)
        self.listed = {
            f.path[cut:] for f in report.files if f.listed and f.path.startswith(self.prefix)
        }
        self.unread = unread_reasons(
            report.files, self.prefix, self.records, is_record, options.records_dir
        )
        self.spec = options.assertions
        self.spec_present = self.spec in self.records or any(
            f.path == self.prefix + self.spec for f in report.files
        )
        self.catalogues = [d for d in options.documents if d != self.spec]
        self._index_readers(self.records.document(self.spec))
        self.before, self.before_catalogue = self._consistency(self.records, None)
        self.assertion_ids = (
            {a.id for a in self.before} if self.records.document(self.spec) else None
        )

    def _index_readers(self, spec: Any) -> None:
        """Which assertions (by index in the spec) declare a read of which files: only they
        can see a change to one record (any other read is an internal error, whatever the
        record holds)."""
        self.exact: dict[str, list[int]] = {}
        self.globs: list[tuple[Glob, int]] = []
        self.unknown: list[int] = []  # what they read cannot be said: re-judged every time
        items = spec.get("assertions") if isinstance(spec, dict) else None
        self.repeated = repeated_ids(items) if isinstance(items, list) else set()
        for index, item in enumerate(items if isinstance(items, list) else ()):
            name = item.get("kind") if isinstance(item, dict) else None
            kind = kind_named(name)
            try:
                needs = list(kind.needs(item)) if kind is not None else []
            except Exception:  # a kind's bug: check reports it; it is re-judged every time
                self.unknown.append(index)
                continue
            for need in needs:
                if need.glob:
                    self.globs.append((Glob(need.file), index))
                else:
                    self.exact.setdefault(need.file, []).append(index)

    def readers(self, path: str) -> list[int]:
        """The indexes of the assertions that may read the record at ``path``."""
        found = {*self.exact.get(path, ()), *self.unknown}
        found.update(index for glob, index in self.globs if glob.match(path))
        return sorted(found)

    def _consistency(
        self, records: Records, only: list[int] | None
    ) -> tuple[list[AssertionResult], list[Finding]]:
        """The assertions' results (all, or those at ``only``) and the catalogue's findings."""
        _, results = check_consistency(
            records, self.listed, self.spec, self.spec_present, self.unread, only, self.repeated
        )
        if only is None:
            ids = {a.id for a in results} if records.document(self.spec) else None
        else:
            ids = self.assertion_ids
        found: list[Finding] = []
        for catalogue in self.catalogues:
            found.extend(check_catalogue(records, catalogue, ids, self.unread))
        return results, found

    def wants(self, inner: str) -> Any:
        return self.plan.wants(inner)

    def run(self, target: _Target) -> Mutant | None:
        """One mutant, or ``None`` when the time budget had passed before it started."""
        if self.deadline is not None and time.time() >= self.deadline:
            return None
        inner = target.path[len(self.prefix) :]
        prep = self.plan.bundle
        assert prep is not None
        wants = self.wants(inner)
        original_result, document = process_record(
            prep, inner, self.data[target.path], wants, keep=True
        )
        try:
            value = resolve_pointer(document, target.pointer)
        except EvalError as exc:  # the report came from another read of the archive
            return self._skip(target, None, f"the value is not there to change ({exc})")
        why = unmutable(value)
        if why is not None:
            return self._skip(target, value, why)
        name = document.get("$schema") if isinstance(document, dict) else None
        schema = self.ids.get(name) if isinstance(name, str) else None
        rules = governing(self.docs, self.ids, schema or "", document, target.pointer)
        tried: list[str] = []
        for candidate in candidates(value, rules.enum_members(value)):
            try:
                data = (dumps(_set(document, target.pointer, candidate), indent=2) + "\n").encode()
            except (TypeError, ValueError):
                continue
            result, _ = process_record(prep, inner, data, wants)
            if not result.parsed or result.findings:
                tried.append(shown(candidate))
                continue
            if self.scratch is not None:
                by = self.scratch.judge(target.path, data)
            else:
                only = self.readers(inner)
                changed = self.records.replaced(inner, result.extracted)
                after, catalogue = self._consistency(changed, only)
                by = killed_by(
                    [self.before[i] for i in only],
                    after,
                    [*result.transcript, *catalogue],
                    [*original_result.transcript, *self.before_catalogue],
                )
            outcome = MutantOutcome.KILLED if by else MutantOutcome.SURVIVED
            unstated = placeholder(document, target.pointer)
            if outcome is MutantOutcome.SURVIVED and unstated is not None:
                # nothing pins a value the source does not give; its relations were tried
                why = f"{unstated}; {shown(candidate)} went unnoticed, as only its relations are"
                return self._skip(target, value, why + " asserted")
            return Mutant(
                target.path, target.pointer, outcome, value, candidate, rules.describe(), by
            )
        listed = ", ".join(tried) if tried else "none of its type"
        reason = f"no schema-valid alternative: the schema refused {listed} ({rules.describe()})"
        return self._skip(target, value, reason)

    @staticmethod
    def _skip(target: _Target, value: Any, why: str) -> Mutant:
        return Mutant(target.path, target.pointer, MutantOutcome.SKIPPED, value, rule=why)


class _Spec:
    """The context of a mutation run: what :class:`_Engine` is built from, picklable and sent
    to each worker once. The engine built from it is kept on this object (in the process
    that built it: it is never pickled), so each process builds it once."""

    def __init__(
        self,
        checked: Run,
        options: Options,
        data: dict[str, bytes],
        scratch: Scratch | None,
        deadline: float | None,
    ) -> None:
        self.state = (checked, replace(options, progress=None), data, scratch, deadline)
        self.built: _Engine | None = None

    def __getstate__(self) -> object:
        return self.state

    def __setstate__(self, state: Any) -> None:
        self.state = state
        self.built = None

    def engine(self) -> _Engine:
        if self.built is None:
            self.built = _Engine(*self.state)
        return self.built


def _batch(spec: _Spec, indexes: list[tuple[int, _Target]]) -> list[tuple[int, Mutant | None]]:
    engine = spec.engine()
    return [(i, engine.run(target)) for i, target in indexes]


def _read(location: str | os.PathLike[str], options: Options, names: list[str]) -> dict[str, bytes]:
    """The bytes of ``names`` in the source, read once (never written)."""
    out: dict[str, bytes] = {}
    with open_location(location, options) as source:
        for name in names:
            try:
                with source.open(name) as stream:
                    out[name] = stream.read()
            except OSError:
                continue  # a file check could not read either: not mutated, said below
    return out


def select(count: int, max_mutants: int | None, seed: int) -> list[int]:
    """The indexes of the covered leaves to mutate: all, or ``max_mutants`` of them picked
    by ``random.Random(seed)``, in leaf order."""
    if max_mutants is None or max_mutants >= count:
        return list(range(count))
    return sorted(random.Random(seed).sample(range(count), max_mutants))


def mutate(
    location: str | os.PathLike[str],
    options: Options | None,
    report: CoverageReport,
    *,
    checked: Run | None = None,
    seed: int = 0,
    max_mutants: int | None = None,
    time_budget: float | None = None,
    workers: int | None = None,
    full: bool = False,
) -> None:
    """Mutate every covered leaf of ``report`` (within the bounds), fill ``report.mutation``
    and add the findings. ``checked``: the audit run ``report`` was measured on (run again
    if not given). Raises :class:`UsageError` if the archive cannot be read at all."""
    from verifier.coverage.checked import audit_options, audit_run

    options = options or Options()
    checked = checked or audit_run(location, options)
    run_options = audit_options(options)
    count = options.worker_count() if workers is None else max(1, workers)
    targets = [
        _Target(f.path, leaf.pointer)
        for f in report.files
        for leaf in f.leaves
        if leaf.status is LeafStatus.COVERED
    ]
    chosen = select(len(targets), max_mutants, seed)
    mutation = Mutation(seed, max_mutants, time_budget, workers=count)
    mutation.not_run = len(targets) - len(chosen)
    report.mutation = mutation
    prefix = checked.report.content_root + "/" if checked.report.content_root else ""
    wanted = {targets[i].path for i in chosen}
    early = [
        f.path
        for f in checked.report.files
        if f.listed
        and f.path.startswith(prefix)
        and (
            is_schema_path(f.path[len(prefix) :], options.schemas_dir)
            or f.path[len(prefix) :] in {options.assertions, *options.documents}
        )
    ]
    names = sorted({*early, *wanted})
    deadline = None if time_budget is None else time.time() + time_budget
    scratch = Scratch.make(location, options, run_options, checked) if full and chosen else None
    done: dict[int, Mutant | None] = {}
    try:
        data = scratch.data if scratch is not None else _read(location, options, names)
        runnable = [(i, targets[i]) for i in chosen if targets[i].path in data]
        for i in chosen:
            if targets[i].path not in data:
                why = "the record could not be read again from the source"
                done[i] = _Engine._skip(targets[i], None, why)
        spec = _Spec(checked, run_options, data, scratch, deadline)
        done.update(_spread(spec, runnable, count, options))
    finally:
        if scratch is not None:
            scratch.remove()
    mutation.mutants = [m for i in chosen if (m := done.get(i)) is not None]
    mutation.not_run += sum(1 for i in chosen if done.get(i) is None)
    report.findings.extend(_findings(mutation, checked.report))


def _spread(
    spec: _Spec, runnable: list[tuple[int, _Target]], workers: int, options: Options
) -> list[tuple[int, Mutant | None]]:
    """Every mutant judged, one per batch, on ``options.executor`` (``auto``: local
    processes for two mutants or more with two workers or more, else this process)."""
    name = options.executor
    if name == "auto":
        name = "processes" if workers > 1 and len(runnable) > 1 and os.name == "posix" else "inline"
    if name == "inline" or not runnable:
        return _batch(spec, runnable)
    with create(name, min(workers, len(runnable)), options.scheduler) as executor:
        return list(executor.map(_batch, spec, runnable, weight=lambda _: BATCH_WEIGHT))


def _findings(mutation: Mutation, checked: Report) -> list[Finding]:
    out: list[Finding] = []
    for m in mutation.mutants:
        if m.outcome is MutantOutcome.SURVIVED:
            out.append(
                Finding(
                    "coverage.survived",
                    m.path,
                    f"Changed from {shown(m.original)} to {shown(m.tried)}, which the schema "
                    f"allows ({m.rule}), and check still passes: nothing compares this value "
                    "closely enough to notice; assert it exactly.",
                    m.pointer,
                )
            )
        elif m.outcome is MutantOutcome.SKIPPED:
            out.append(
                Finding("coverage.not-mutated", m.path, f"Not mutated: {m.rule}.", m.pointer)
            )
    if mutation.not_run:
        bounds = []
        if mutation.max_mutants is not None:
            bounds.append(f"--max-mutants {mutation.max_mutants}")
        if mutation.time_budget is not None:
            bounds.append(f"--time-budget {mutation.time_budget:g}")
        out.append(
            Finding(
                "coverage.mutation-incomplete",
                checked.manifest,
                f"{mutation.not_run} covered value(s) were not mutated within "
                f"{' and '.join(bounds) or 'the bounds'}: the mutation score is of the "
                f"{len(mutation.mutants)} tried; raise the bounds (--max-mutants all) to try "
                "them all.",
            )
        )
    return out


__all__ = ["mutate", "select"]
