"""Evaluating assertions: each one's verdict from its kind, the kinds' batch passes, and the
results in order. The consistency stage runs it over the spec in the main process; a worker
runs it over one case's rule instances, from the records it has just read
(:mod:`verifier.inspect.cases`). Either way the same assertion over the same records comes to
the same result."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from verifier.assertions.batch import Quick
from verifier.assertions.interface import (
    AssertionKind,
    Context,
    EvalError,
    Outcome,
    SpecError,
    plain,
    pointers_well_formed,
    quote,
)
from verifier.findings import Finding, Stage
from verifier.json.pointer import is_pointer, pointer_problem
from verifier.report import AssertionResult, AssertionStatus, Read, StageResult
from verifier.values.records import Records, UndeclaredRead

INTERNAL_ERROR = "assertion.internal-error"


def text_of(item: dict[str, Any], key: str, default: str) -> str:
    value = item.get(key)
    return value if isinstance(value, str) else default


class Verdict:
    """One assertion's outcome and where its finding is filed."""

    __slots__ = ("code", "message", "path", "pointer", "status")

    def __init__(
        self, status: AssertionStatus, message: str, code: str | None, path: str, pointer: str
    ) -> None:
        self.status, self.message, self.code = status, message, code
        self.path, self.pointer = path, pointer


def evaluate(
    kind: AssertionKind, item: dict[str, Any], ctx: Context, spec_path: str, at: str
) -> Verdict:
    def error(message: str, code: str = "assertion.error", where: str = at) -> Verdict:
        return Verdict(AssertionStatus.ERROR, message, code, spec_path, where)

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
        return Verdict(AssertionStatus.ERROR, str(exc), exc.code, path, pointer)
    except Exception as exc:  # a bug in the kind is a finding, never a crash and never a pass
        detail = plain(f"{type(exc).__name__}: {exc}", 200)
        return error(f"internal error in the {kind.name} kind ({detail})", INTERNAL_ERROR)
    path, pointer = at_read(first=True)
    return Verdict(outcome.status, outcome.message, outcome.code, path, pointer)


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


def judge_rows(
    rows: list[Row],
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
            verdict = evaluate(kind, item, ctx, spec_path, where(index))
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
Row = tuple[int, dict[str, Any], str, str, str, AssertionKind | None, Verdict | None]


#: the rows still to evaluate, by kind: their places among the rows, and their assertions
Groups = dict[AssertionKind, tuple[list[int], list[dict[str, Any]]]]


def rows_of(
    assertions: list[Any],
    indexes: Iterable[int],
    repeated: Collection[int] | None,
    spec_path: str,
    seen: set[str],
    start: int,
    where: Callable[[int], str],
) -> tuple[list[Row], Groups]:
    """The assertions at ``indexes``, in order, with what is known of each before it is
    evaluated (an id used before, or a kind not registered, is an error already), and those
    with no verdict yet grouped by kind. ``assertions`` is the spec's array from its entry
    ``start`` on (a part of a large spec; ``repeated`` and the pointers count from the
    array's start); ``seen``: the ids used by the entries before (added to)."""
    import verifier.assertions as registry  # the registry as it is when asked

    kinds = registry.KINDS
    rows: list[Row] = []
    groups: Groups = {}
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
            aid = text_of(item, "id", f"#{index}")
        if repeated is not None and index in repeated:
            seen.add(aid)  # used by an earlier assertion, evaluated or not
        kind_name = item.get("kind")
        if type(kind_name) is not str:
            kind_name = text_of(item, "kind", "?")
        description = item.get("description")
        if type(description) is not str:
            description = text_of(item, "description", "")
        kind = kinds.get(kind_name)
        early = None
        if aid in seen:
            early = Verdict(
                AssertionStatus.ERROR,
                f"the id {quote(aid)} is used twice in the spec",
                None,
                spec_path,
                f"{where(index)}/id",
            )
        elif kind is None:
            early = Verdict(
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


def quick_passes(groups: Groups, count: int, records: Records) -> list[Quick | None]:
    """For each of ``count`` rows, its pass as the kind's batch path found it
    (:mod:`verifier.assertions.batch`), or ``None``: each kind asked once, for all its
    assertions (``groups``, from :func:`rows_of`). A kind whose ``evaluate`` is not defined
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


def evaluate_items(
    items: list[Any],
    pointers: list[str],
    records: Records,
    manifested: AbstractSet[str],
    unread: Mapping[str, str] | None,
    spec_path: str,
    batch: bool = True,
) -> list[AssertionResult]:
    """The results of ``items`` (assertions with string ids of their own, none used twice),
    in order, each written at its place among ``pointers`` in the spec; each finding is in
    its result."""

    def where(index: int) -> str:
        return pointers[index]

    rows, groups = rows_of(items, range(len(items)), None, spec_path, set(), 0, where)
    quick: list[Quick | None] = (
        quick_passes(groups, len(rows), records) if batch else [None] * len(rows)
    )
    out: list[AssertionResult] = []
    scratch = StageResult(Stage.CONSISTENCY)
    judge_rows(rows, quick, records, manifested, unread, spec_path, scratch, out, [0, 0, 0], where)
    return out
