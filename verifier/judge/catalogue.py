"""The case catalogue's claims: every cell's selector resolves (a count's to an array) and
every assertion a cell or case names is in the assertion spec."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Mapping
from typing import Any

from verifier.assertions import EvalError
from verifier.assertions.interface import plain
from verifier.findings import Finding
from verifier.json.pointer import resolve_pointer
from verifier.report import Selected
from verifier.values.records import Records

_CELL_GROUPS = ("counts", "outcomes", "readbacks")


def check_catalogue(
    records: Records,
    path: str,
    assertion_ids: set[str] | None,
    unread: Mapping[str, str] | None = None,
) -> list[Finding]:
    """What the case catalogue at ``path`` claims the records hold: every cell's selector
    resolves (a count's to an array), and every assertion a cell or a case names is in the
    assertion spec (``assertion_ids``; ``None`` when consistency has no spec to compare
    with; ``unread`` says why a listed file is not a record). Nothing for an absent or
    unparsable catalogue (validity reports the latter)."""
    document = records.document(path)
    cases = document.get("cases") if isinstance(document, dict) else None
    if not isinstance(cases, list):
        return []
    findings: list[Finding] = []

    def unresolved(pointer: str, label: str, message: str) -> None:
        findings.append(Finding("catalogue.unresolved", path, f"{label}: {message}.", pointer))

    def selector(cell: dict[str, Any], key: str, at: str, label: str, count: bool) -> None:
        chosen = cell.get(key)
        if not isinstance(chosen, dict):
            return  # the catalogue's schema reports a malformed cell
        file, pointer = chosen.get("file"), chosen.get("pointer")
        if not isinstance(file, str) or not isinstance(pointer, str):
            return
        if file not in records:
            why = (unread or {}).get(file, "is not a parsed record of the archive")
            unresolved(f"{at}/{key}/file", label, f"{plain(file)} {why}")
            return
        try:
            value = records.resolve(file, pointer)
        except EvalError as exc:
            unresolved(f"{at}/{key}/pointer", label, str(exc))
            return
        if not count:
            return
        if not isinstance(value, list):
            unresolved(f"{at}/{key}/pointer", label, f"{file}#{pointer} is not an array")
            return
        distinct = cell.get("distinct")
        if not isinstance(distinct, str):
            return
        for element in value:
            try:
                resolve_pointer(element, distinct)
            except EvalError as exc:
                unresolved(f"{at}/distinct", label, f"an element of {file}#{pointer}: {exc}")
                return

    def named(ids: Any, at: str, patterns: bool) -> None:
        if assertion_ids is None or not isinstance(ids, list):
            return
        for index, aid in enumerate(ids):
            if not isinstance(aid, str):
                continue
            known = (
                any(fnmatch.fnmatchcase(a, aid) for a in assertion_ids)
                if patterns
                else aid in assertion_ids
            )
            if not known:
                what = "matches no assertion" if patterns else "is not an assertion"
                findings.append(
                    Finding(
                        "catalogue.unknown-assertion",
                        path,
                        f"{aid!r} {what} of the assertion spec.",
                        f"{at}/{index}",
                    )
                )

    for here, case, cells in catalogue_cells(cases):
        for at, cell in cells:
            given = cell.get("label")
            label = given if isinstance(given, str) else at
            if "select" in cell:
                selector(cell, "select", at, label, count=False)
            else:
                selector(cell, "count", at, label, count=True)
            if "preregistered" in cell:
                selector(cell, "preregistered", at, f"{label} (preregistration)", count=False)
            named(cell.get("assertions"), f"{at}/assertions", patterns=False)
        named(case.get("assertions"), f"{here}/assertions", patterns=True)
    return findings


def select_values(records: Records, path: str, parsed: tuple[str, ...]) -> Selected:
    """What the views read of ``records`` (:class:`Selected`): the ``parsed`` records' paths,
    the case catalogue at ``path`` as parsed, and what each selector of its cells selects."""
    document = records.document(path)
    cases = document.get("cases") if isinstance(document, dict) else None
    values: dict[tuple[str, str], Any] = {}
    unresolved: dict[tuple[str, str], str] = {}
    for _, _, cells in catalogue_cells(cases if isinstance(cases, list) else []):
        for _, cell in cells:
            for key in ("select", "count", "preregistered"):
                chosen = cell.get(key)
                file = chosen.get("file") if isinstance(chosen, dict) else None
                pointer = chosen.get("pointer") if isinstance(chosen, dict) else None
                if not (isinstance(file, str) and isinstance(pointer, str) and file in records):
                    continue
                try:
                    values[file, pointer] = records.resolve(file, pointer)
                except EvalError as exc:
                    unresolved[file, pointer] = str(exc)
    return Selected(parsed, document, values, unresolved)


def catalogue_cells(
    cases: list[Any],
) -> Iterator[tuple[str, dict[str, Any], list[tuple[str, dict[str, Any]]]]]:
    """``(where, case, cells)`` for each well-formed case of a catalogue's ``cases``: the
    case's JSON pointer, the case, and ``(where, cell)`` for each of its cells."""
    for number, case in enumerate(cases):
        if not isinstance(case, dict):
            continue
        here = f"/cases/{number}"
        cells = [(f"{here}/{g}/{i}", c) for g in _CELL_GROUPS for i, c in _items(case.get(g))]
        if isinstance(case.get("acceptance"), dict):
            cells.append((f"{here}/acceptance", case["acceptance"]))
        yield here, case, cells


def _items(value: Any) -> list[tuple[int, dict[str, Any]]]:
    if not isinstance(value, list):
        return []
    return [(i, c) for i, c in enumerate(value) if isinstance(c, dict)]
