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

from collections.abc import Callable, Collection, Iterable, Mapping
from collections.abc import Set as AbstractSet
from types import MappingProxyType
from typing import Any

from verifier.assertions import AssertionKind, Context, EvalError, Outcome, SpecError
from verifier.assertions.batch import Quick
from verifier.assertions.interface import plain, pointers_well_formed, quote
from verifier.findings import Finding, Stage
from verifier.json.pointer import is_pointer, pointer_problem
from verifier.plan.cases import entry_pointer, findings_of
from verifier.report import AssertionResult, AssertionStatus, FileEntry, Read, StageResult
from verifier.values.records import Records, UndeclaredRead

INTERNAL_ERROR = "assertion.internal-error"

_WHY_UNREAD = MappingProxyType(
    {
        "missing": "is listed in the manifest but missing from the archive",
        "unreadable": "is listed in the manifest but could not be read",
        "unsafe": "is listed in the manifest but was refused (an unsafe name or a link)",
        "not-regular": "is listed in the manifest but is not a regular file",
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


def _text(item: dict[str, Any], key: str, default: str) -> str:
    value = item.get(key)
    return value if isinstance(value, str) else default


class _Verdict:
    """One assertion's outcome and where its finding is filed."""

    __slots__ = ("code", "message", "path", "pointer", "status")

    def __init__(
        self, status: AssertionStatus, message: str, code: str | None, path: str, pointer: str
    ) -> None:
        self.status, self.message, self.code = status, message, code
        self.path, self.pointer = path, pointer


def _evaluate(
    kind: AssertionKind, item: dict[str, Any], ctx: Context, spec_path: str, at: str
) -> _Verdict:
    def error(message: str, code: str = "assertion.error", where: str = at) -> _Verdict:
        return _Verdict(AssertionStatus.ERROR, message, code, spec_path, where)

    def at_read(first: bool) -> tuple[str, str]:
        if ctx.reads:
            read = ctx.reads[0] if first else ctx.reads[-1]
            if is_pointer(read.pointer):
                return read.path, read.pointer
        return spec_path, at

    try:
        list(kind.needs(item))  # a kind that cannot say what it reads has a bug
        if not pointers_well_formed(kind, item):  # (one quick walk; placed only if one fails)
            for where, value in kind.pointers(item):
                problem = pointer_problem(value) if isinstance(value, str) else None
                if problem is not None:
                    return error(f"{where.lstrip('/') or 'a pointer'}: {problem}", where=at + where)
        outcome = kind.evaluate(item, ctx)
        if not isinstance(outcome, Outcome) or not isinstance(outcome.status, AssertionStatus):
            raise TypeError(f"evaluate returned {type(outcome).__name__}, not an Outcome")
    except UndeclaredRead as exc:
        return error(f"internal error in the {kind.name} kind: {exc}", INTERNAL_ERROR)
    except SpecError as exc:
        return error(str(exc), where=at + exc.at)
    except EvalError as exc:
        path, pointer = at_read(first=False)  # the read that raised it, if one did
        return _Verdict(AssertionStatus.ERROR, str(exc), None, path, pointer)
    except Exception as exc:  # a bug in the kind is a finding, never a crash and never a pass
        detail = plain(f"{type(exc).__name__}: {exc}", 200)
        return error(f"internal error in the {kind.name} kind ({detail})", INTERNAL_ERROR)
    path, pointer = at_read(first=True)
    return _Verdict(outcome.status, outcome.message, outcome.code, path, pointer)


def _unknown_kind(name: str, item: dict[str, Any]) -> str:
    """``unknown assertion kind "equalx"; did you mean "equals"? (kinds: ...)``."""
    from verifier.assertions import KINDS
    from verifier.suggest import did_you_mean

    if "kind" not in item:
        return f"no assertion kind given (kinds: {', '.join(KINDS)})"
    if not isinstance(item.get("kind"), str):
        return f"the kind must be a string (kinds: {', '.join(KINDS)})"
    hint = did_you_mean(name, KINDS, quote='"')
    return f"unknown assertion kind {quote(name)}{hint} (kinds: {', '.join(KINDS)})"


def repeated_ids(assertions: list[Any]) -> set[int]:
    """The indexes of the assertions whose id an earlier assertion already uses."""
    seen: set[str] = set()
    out: set[int] = set()
    for index, item in enumerate(assertions):
        aid = _text(item if isinstance(item, dict) else {}, "id", f"#{index}")
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
) -> tuple[StageResult, list[AssertionResult]]:
    """Evaluate the assertion spec at ``spec_path`` over ``records``; ``manifested`` is the
    set of listed files that were read, ``unread`` why each other listed file is not a
    record (:func:`unread_reasons`). ``only``: evaluate just the assertions at these indexes
    of the spec (the results are theirs, in spec order; ``coverage --mutate`` re-judges only
    the assertions that read a changed record; ``repeated``: :func:`repeated_ids` of the
    spec's assertions, if already known). ``record_count``: how many records (besides the
    spec) the archive lists or holds: with records and no spec, ``assertion.no-spec``.
    ``batch``: let the kinds find their passes in one call each (the default; ``False``
    evaluates every assertion one by one, which the tests compare it with)."""
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
        invalid = _spec_invalid(assertions, spec, spec_path, records, unread)
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
        rows, groups = _rows(
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
            _quick_passes(groups, len(rows), records) if batch else [None] * len(rows)
        )
        del groups
        _judge_rows(
            rows, quick, records, manifested, unread, spec_path, stage, results, tally, where
        )
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
) -> Finding | None:
    """The finding for a spec whose ``assertions`` is not a list, or is empty; else ``None``."""
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
    if not assertions:
        return Finding(
            "assertion.vacuous",
            spec_path,
            "The assertion spec lists no assertion, so nothing was checked; list the "
            "claims the records must agree with.",
            pointer="/assertions",
        )
    return None


def _judge_rows(
    rows: list[_Row],
    quick: list[Quick | None],
    records: Records,
    manifested: AbstractSet[str],
    unread: Mapping[str, str] | None,
    spec_path: str,
    stage: StageResult,
    results: list[AssertionResult],
    tally: list[int],
    where: Callable[[int], str],
) -> None:
    """Each row's result, in order, appended to ``results`` (its finding to the stage's),
    counted in ``tally`` (passed, failed, errors). Each row is released as its result is
    made (taken from the end of reversed lists): at a large run's peak the rows are not
    held beside every result."""
    passed = failed = errors = 0
    append, new_result, passing = results.append, AssertionResult, AssertionStatus.PASSED
    if len(rows) != len(quick):
        raise ValueError("a batch answer for every row")
    rows.reverse()
    quick.reverse()
    take_row, take_found = rows.pop, quick.pop
    while rows:
        index, item, aid, kind_name, description, kind, early = take_row()
        found = take_found()
        if found is not None:
            passed += 1
            append(new_result(aid, kind_name, description, passing, found[0], found[1], None))
            continue
        reads: tuple[Read, ...] = ()
        if early is not None:
            verdict = early
        else:
            assert kind is not None
            ctx = Context(records, manifested, unread)
            verdict = _evaluate(kind, item, ctx, spec_path, where(index))
            reads = tuple(dict.fromkeys(ctx.reads))
        status = verdict.status
        finding = None
        if status is AssertionStatus.PASSED:
            passed += 1
        else:
            if status is AssertionStatus.FAILED:
                failed += 1
            else:
                errors += 1
            code = verdict.code or (
                "assertion.failed" if status is AssertionStatus.FAILED else "assertion.error"
            )
            end = "" if verdict.message.endswith(("?", ".")) else "."
            message = f"{plain(aid)}: {verdict.message}{end}"
            finding = Finding(code, verdict.path, message, verdict.pointer)
            stage.findings.append(finding)
        append(new_result(aid, kind_name, description, status, verdict.message, reads, finding))
    tally[0] += passed
    tally[1] += failed
    tally[2] += errors


#: one assertion before it is evaluated: its index, the assertion, id, kind name,
#: description, kind (``None``: unknown) and the verdict it has already (a repeated id, an
#: unknown kind), if any
_Row = tuple[int, dict[str, Any], str, str, str, AssertionKind | None, _Verdict | None]

#: the rows still to evaluate, by kind: their places among the rows, and their assertions
_Groups = dict[AssertionKind, tuple[list[int], list[dict[str, Any]]]]


def _rows(
    assertions: list[Any],
    indexes: Iterable[int],
    repeated: Collection[int] | None,
    spec_path: str,
    seen: set[str],
    start: int,
    where: Callable[[int], str],
) -> tuple[list[_Row], _Groups]:
    """The assertions at ``indexes``, in order, with what is known of each before it is
    evaluated (an id used before, or a kind not registered, is an error already), and those
    with no verdict yet grouped by kind. ``assertions`` is the spec's array from its entry
    ``start`` on (a part of a large spec; ``repeated`` and the pointers count from the
    array's start); ``seen``: the ids used by the entries before (added to)."""
    import verifier.assertions as registry  # the registry as it is when asked

    kinds = registry.KINDS
    rows: list[_Row] = []
    groups: _Groups = {}
    count = len(assertions)
    for local in indexes:
        if not 0 <= local < count:
            continue
        item = assertions[local]
        index = start + local
        if type(item) is not dict:
            item = item if isinstance(item, dict) else {}
        aid = item.get("id")
        if type(aid) is not str:
            aid = _text(item, "id", f"#{index}")
        if repeated is not None and index in repeated:
            seen.add(aid)  # used by an earlier assertion, evaluated or not
        kind_name = item.get("kind")
        if type(kind_name) is not str:
            kind_name = _text(item, "kind", "?")
        description = item.get("description")
        if type(description) is not str:
            description = _text(item, "description", "")
        kind = kinds.get(kind_name)
        early = None
        if aid in seen:
            early = _Verdict(
                AssertionStatus.ERROR,
                f"the id {quote(aid)} is used twice in the spec",
                None,
                spec_path,
                f"{where(index)}/id",
            )
        elif kind is None:
            early = _Verdict(
                AssertionStatus.ERROR,
                _unknown_kind(kind_name, item),
                None,
                spec_path,
                f"{where(index)}/kind" if "kind" in item else where(index),
            )
        else:
            group = groups.get(kind)
            if group is None:
                group = groups[kind] = ([], [])
            group[0].append(len(rows))
            group[1].append(item)
        seen.add(aid)
        rows.append((index, item, aid, kind_name, description, kind, early))
    return rows, groups


def _quick_passes(groups: _Groups, count: int, records: Records) -> list[Quick | None]:
    """For each of ``count`` rows, its pass as the kind's batch path found it
    (:mod:`verifier.assertions.batch`), or ``None``: each kind asked once, for all its
    assertions (``groups``, from :func:`_rows`). A kind whose ``evaluate`` is not defined
    beside its ``quick`` (a subclass that changed it), or whose ``quick`` raises or answers
    out of step, has none: its assertions are evaluated one by one."""
    out: list[Quick | None] = [None] * count
    for kind, (members, items) in groups.items():
        if not _has_batch(kind):
            continue
        try:
            answers = kind.quick(items, records)
        except Exception:  # a bug in the batch path: the generic path reports what it finds
            continue
        if not isinstance(answers, list) or len(answers) != len(members):
            continue
        for at, answer in zip(members, answers, strict=True):
            out[at] = answer
    return out


def _has_batch(kind: AssertionKind) -> bool:
    for klass in type(kind).__mro__:
        if "evaluate" in vars(klass):
            return "quick" in vars(klass)
    return False
