"""Line and column for the findings at a JSON pointer that the judges made (an assertion's,
a catalogue cell's): a second, bounded read of only the files that have such findings,
checked against the digest the first read computed. A record's own findings (its parse, its
schema, its transcript) are placed where it was parsed, from the bytes in hand
(:mod:`verifier.record.check`), without a second read.

Why a second read, against the pipeline's "one read per file" rule: that rule exists so that
the bytes hashed are the bytes parsed and judged. Keeping every record's bytes until the end
of the run in case a finding needs placing would cost the memory the one-way pipeline freed
(a 100k-record archive's records are dropped as each is parsed, in whichever worker parsed
it), and a position-aware parse of every file would slow the clean run that needs none. So
the files that have findings, and only those, are read again once the report is judged, and
each re-read's SHA-256 must equal the one the judged read computed (``FileEntry.sha256``):
bytes that changed in between (a file rewritten during the run) get no position at all, never
a position from other bytes. The proof of "the bytes hashed are the bytes judged" is
untouched; positions are only ever computed on bytes with that same digest.

Bounded: at most :data:`MAX_FILES` files and :data:`MAX_TOTAL_BYTES` bytes are read again, a
file over :data:`MAX_FILE_BYTES` is not, and each read stops one byte past the size the first
read saw. Past a bound, findings keep their path and pointer and have no line (as before).
The scan itself is :func:`verifier.json.positions.positions` (one forward pass, no recursion).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace

from verifier.findings import Finding
from verifier.json.positions import positions
from verifier.record.place import unplaced, with_position
from verifier.report import Report
from verifier.sources.interface import Source, Stream

MAX_FILES = 20_000
MAX_FILE_BYTES = 64 << 20
MAX_TOTAL_BYTES = 1 << 30


def _wanted(report: Report) -> dict[str, set[str]]:
    """path -> the pointers to place in it, for files the report knows a digest of."""
    sizes = {f.path: f.size for f in report.files if f.sha256 is not None}
    wanted: dict[str, set[str]] = {}
    budget = MAX_TOTAL_BYTES
    places = [(f.path, f.pointer) for f in report.findings if unplaced(f)]
    # the spec entry an assertion's finding on a record came from (Finding.related)
    places += [
        (f.related.path, f.related.pointer)
        for f in report.findings
        if f.related is not None and f.related.line is None
    ]
    for path, pointer in places:
        if pointer is None:
            continue
        size = sizes.get(path)
        if size is None or size > MAX_FILE_BYTES:
            continue
        if path not in wanted:
            if len(wanted) >= MAX_FILES or size > budget:
                continue
            budget -= size
            wanted[path] = set()
        wanted[path].add(pointer)
    return wanted


def place_findings(report: Report, source: Source) -> int:
    """Give the findings at a pointer their line and column (in place, stage by stage);
    returns how many files were read again."""
    wanted = _wanted(report)
    if not wanted:
        return 0
    digests = {f.path: (f.sha256, f.size or 0) for f in report.files}
    placed: dict[str, dict[str, tuple[int, int]]] = {}
    for name, stream in source.read_many(sorted(wanted)):
        if isinstance(stream, OSError) or name not in wanted:
            if not isinstance(stream, OSError):
                stream.close()
            continue
        sha256, size = digests[name]
        try:
            with stream:
                data = _read(stream, size + 1)
        except OSError:
            continue
        if hashlib.sha256(data).hexdigest() != sha256:
            continue  # not the bytes judged: no position rather than a wrong one
        placed[name] = {p: (at.line, at.column) for p, at in positions(data, wanted[name]).items()}
        del data
    if not placed:
        return 0
    for stage in report.stages:
        stage.findings[:] = [_placed(f, placed) for f in stage.findings]
    report.assertions[:] = [
        a if a.finding is None else replace(a, finding=_placed(a.finding, placed))
        for a in report.assertions
    ]
    return len(placed)


def _read(stream: Stream, limit: int) -> bytes:
    """At most ``limit`` bytes of ``stream`` (short reads continued)."""
    parts: list[bytes] = []
    left = limit
    while left > 0:
        chunk = stream.read(min(left, 1 << 20))
        if not chunk:
            break
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _placed(finding: Finding, placed: dict[str, dict[str, tuple[int, int]]]) -> Finding:
    finding = with_position(finding, placed.get(finding.path, {}))
    related = finding.related
    if related is not None and related.line is None:
        where = placed.get(related.path, {}).get(related.pointer)
        if where is not None:
            finding = replace(finding, related=replace(related, line=where[0], column=where[1]))
    return finding


__all__ = ["MAX_FILES", "MAX_FILE_BYTES", "MAX_TOTAL_BYTES", "place_findings"]
