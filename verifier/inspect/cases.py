"""A case's rule instances judged where its files were read (issue 35): in the worker that
inspected a batch, from the batch's records alone.

An instance is judged here only when every file it reads is in the batch, listed, read and
parsed: then its records are exactly what the consistency stage would give it, and so is its
result (:func:`verifier.assertions.evaluate.evaluate_items` over the same values). Any other
instance (a file missing, unlisted, unparsable, or read in another batch) is left to the
consistency stage, which judges it with every record as a written-out assertion. Only the
results travel back, as plain tuples (:data:`Compact`), with the case and the rule's place
among the rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from verifier.assertions.evaluate import evaluate_items
from verifier.findings import Finding
from verifier.plan.cases import CaseRules, instance
from verifier.plan.task import FileTask
from verifier.values.records import Records

#: one instance's result as it travels: the rule's place among the rules, the result's
#: status (its value), message, reads (flat) and finding; its id (``R@C``), kind and
#: description are its rule's, which the consistency stage has
Compact = tuple[int, str, str, tuple[str, ...], Finding | None]
#: a case's results judged in one batch
Judged = tuple[str, tuple[Compact, ...]]


def judge_batch(
    rules: CaseRules, tasks: Sequence[FileTask], found: Sequence[Any]
) -> dict[int, list[Judged]]:
    """The instances the batch's records decide, by the place of the batch's last file of
    their case (``found``: each task's :class:`~verifier.inspect.inspect.FileFacts`), all
    judged in one pass."""
    read: dict[str, dict[str, Any]] = {}  # case -> its records read here -> their values
    last: dict[str, int] = {}
    for at, (task, facts) in enumerate(zip(tasks, found, strict=True)):
        record = facts.record
        if (
            task.record is None
            or task.expected is None  # (not listed)
            or facts.error is not None
            or record is None
            or not record.parsed
        ):
            continue
        for case in rules.cases_of(task.record):
            read.setdefault(case, {})[task.record] = record.extracted
            last[case] = at
    store = Records()
    made: list[tuple[str, int]] = []
    items: list[Any] = []
    pointers: list[str] = []
    for case, values in read.items():
        for place, rule in enumerate(rules.rules):
            if all(f"{case}/{rel}" in values for rel in rule.files):
                made.append((case, place))
                items.append(instance(rule.rule, case, rule.holes))
                pointers.append(f"/rules/{rule.spec_index}")
        for path, extracted in values.items():
            store.add(path, extracted)
    if not items:
        return {}
    # (every file an instance reads is listed and read: the only ones it can name)
    listed = frozenset(store.names)
    results = evaluate_items(items, pointers, store, listed, None, rules.spec_path)
    by_case: dict[str, list[Compact]] = {}
    for (case, place), r in zip(made, results, strict=True):
        by_case.setdefault(case, []).append(
            (place, r.status.value, r.message, r.flat_reads, r.finding)
        )
    out: dict[int, list[Judged]] = {}
    for case, compact in by_case.items():
        out.setdefault(last[case], []).append((case, tuple(compact)))
    return out


__all__ = ["Compact", "Judged", "judge_batch"]
