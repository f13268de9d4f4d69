"""Findings at a JSON pointer given the line and column of that pointer in the bytes they are
about (:func:`verifier.json.positions.positions`): used where the bytes are in hand (a record's
own parse and validation findings, in the worker that hashed and parsed them) and by
:mod:`verifier.inspect.locate` for the findings judged later."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from verifier.findings import Finding
from verifier.json.positions import positions


def unplaced(finding: Finding) -> bool:
    """A finding at a pointer that has no line yet (nor one in another file)."""
    return finding.pointer is not None and finding.line is None and finding.at is None


def with_position(finding: Finding, placed: Mapping[str, tuple[int, int]]) -> Finding:
    """``finding`` with the line and column of its pointer, when ``placed`` has them."""
    pointer = finding.pointer
    where = placed.get(pointer) if unplaced(finding) and pointer is not None else None
    if where is None:
        return finding
    line, column = where
    return replace(finding, line=line, column=column)


def place_in(data: bytes, findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` about ``data``, each at a pointer given its line and column; the rest as
    they are. Scans ``data`` only when one of them needs it."""
    pointers = {f.pointer for f in findings if unplaced(f) and f.pointer is not None}
    if not pointers:
        return list(findings)
    placed = {p: (at.line, at.column) for p, at in positions(data, pointers).items()}
    return [with_position(f, placed) for f in findings]


def place_each(contents: Mapping[str, bytes], findings: Sequence[Finding]) -> list[Finding]:
    """``findings`` about several files, each placed in its own file's bytes (``contents``:
    path -> bytes); a finding about a file not in ``contents`` is kept as it is."""
    paths = {f.path for f in findings if unplaced(f) and f.path in contents}
    if not paths:
        return list(findings)
    placed: dict[str, dict[str, tuple[int, int]]] = {}
    for path in sorted(paths):
        pointers = {f.pointer for f in findings if f.path == path and f.pointer is not None}
        found = positions(contents[path], pointers)
        placed[path] = {p: (at.line, at.column) for p, at in found.items()}
    return [with_position(f, placed.get(f.path, {})) for f in findings]


__all__ = ["place_each", "place_in", "unplaced", "with_position"]
