"""The archive's transcripts go through the same checker: a hook of the validity stage.

Every parsed record whose ``recordKind`` is ``transcript`` and that holds a ``messages`` array
is read with the shape its features tell (the bundled archive's records are Pi AI messages),
exactly as ``transcript check`` detects it, and paired by
:func:`verifier.transcripts.pairing.pair`. Each problem becomes a finding of the validity stage,
pointing at the message (and part) it concerns. A history whose shape cannot be told is a
finding too, never a guessed shape: ``transcript.ambiguous-shape`` when it looks like more
than one shape, ``transcript.malformed`` when it fits none. A plain role/content history with
no tool traffic reads the same in every shape, and has nothing to pair. Records are never
read again from disk: this works on what validity parsed.
"""

from __future__ import annotations

from typing import Any

from verifier.findings import Finding
from verifier.transcripts import Shape, ShapeError, UndetectableShape, detect
from verifier.transcripts.pairing import MALFORMED, pair

RECORD_KIND = "transcript"


def shape_of(messages: list[Any]) -> Shape:
    """The shape of ``messages``, as ``transcript check`` detects it. Raises
    :class:`~verifier.transcripts.UndetectableShape`: never a guess."""
    return detect(messages)[0]


def check_transcript_records(records: dict[str, Any]) -> list[Finding]:
    """Findings for the transcript records among ``records`` (path -> parsed value)."""
    findings: list[Finding] = []
    for path in sorted(records):
        findings.extend(check_transcript_record(path, records[path]))
    return findings


def check_transcript_record(path: str, record: Any) -> list[Finding]:
    """Findings for one parsed record, if it is a transcript (none otherwise)."""
    if not isinstance(record, dict) or record.get("recordKind") != RECORD_KIND:
        return []
    messages = record.get("messages")
    if not isinstance(messages, list):
        return []  # the record's schema reports a missing or malformed messages array
    try:
        shape = shape_of(messages)
    except UndetectableShape as exc:
        return [Finding(exc.code, path, f"Not read as a transcript: {exc}.", "/messages")]
    try:
        entries = shape.entries(messages)
    except ShapeError as exc:
        pointer = f"/messages/{exc.index}{exc.pointer}" if exc.index is not None else None
        return [Finding(MALFORMED, path, f"Not a {shape.name} transcript: {exc}.", pointer)]
    return [
        Finding(p.code, path, p.message + ".", pointer=f"/messages/{p.index}{p.pointer}")
        for p in pair(entries).problems
    ]
