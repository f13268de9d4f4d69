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

Harness containers (issue 17) are checked here too: a record whose ``$schema`` is
:data:`CONTAINER_SCHEMA` (its ``container`` member names the reader, or its features tell),
and any file the assertion spec's ``transcripts`` list declares (``{"files": GLOB, "shape":
NAME?, "leaf": BOOL?}``), read from the bytes integrity hashed, whatever its format (JSON
Lines sessions, ``.traj``, an Inspect ``.eval`` zip).
"""

from __future__ import annotations

from typing import Any

from verifier.findings import Finding, a_or_an
from verifier.schema import own as own_schemas
from verifier.transcripts import AMBIGUOUS, Shape, ShapeError, UndetectableShape, detect
from verifier.transcripts.pairing import (
    EMPTY,
    EMPTY_MESSAGE,
    MALFORMED,
    Call,
    Entry,
    Pairing,
    Problem,
    pair,
)
from verifier.values.witness import TranscriptFacts

RECORD_KIND = "transcript"
#: a record declaring this schema is a harness container (``container`` names its reader)
CONTAINER_SCHEMA = own_schemas.schema_id(own_schemas.TRANSCRIPT_CONTAINER)


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


def check_container_file(
    path: str, data: bytes, shape: str | None = None, leaf: bool = False
) -> list[Finding]:
    """Findings for an archive file the spec declares a container (``transcripts``): read
    as ``transcript check`` reads it (``shape`` a container or message shape, or detected),
    every transcript it holds checked; findings carry the archive path."""
    from dataclasses import replace

    from verifier.transcripts.check import CannotRun, check_bytes

    try:
        report = check_bytes(data, path, shape, leaf)
    except CannotRun as exc:  # an unknown shape name in the spec
        return [Finding(MALFORMED, path, f"Not read as a transcript: {exc}.")]
    if not report.findings and not report.calls and not report.results and not report.messages:
        return [Finding(MALFORMED, path, "Not read as a transcript: it holds no history.")]
    return [replace(f, path=path) for f in report.findings]


def _container_record(path: str, record: dict[str, Any]) -> list[Finding]:
    from dataclasses import replace

    from verifier.json.write import dumps
    from verifier.transcripts.containers import CONTAINERS, Parsed, claiming, readings, view
    from verifier.transcripts.containers.interface import ContainerError
    from verifier.transcripts.containers.run import check_transcripts

    body = {k: v for k, v in record.items() if k not in ("$schema", "container")}
    parsed = Parsed(b"", path, body)
    text = dumps(body, separators=(",", ":"))
    parsed.one_line = Parsed(b"", path, [body], [1], [text], True)  # one result line's form
    name = record.get("container")
    every = readings(parsed)
    if isinstance(name, str) and name in CONTAINERS:
        reader = CONTAINERS[name]
    else:
        hits = claiming(parsed)
        if len(hits) != 1 or len(every) > 1:
            what = "looks like " + " and ".join(every) if every else "fits none"
            code = AMBIGUOUS if hits else MALFORMED
            return [
                Finding(
                    code,
                    path,
                    f"Not read as a transcript container: it {what} of the containers "
                    f"({', '.join(CONTAINERS)}), and 'container' does not name one.",
                    "/container" if "container" in record else None,
                )
            ]
        reader = hits[0]
    try:
        transcripts = reader.read(view(reader, parsed))
    except ContainerError as exc:
        return [
            Finding(exc.code, path, f"Not {a_or_an(reader.title)}: {exc}.", exc.pointer or None)
        ]
    if not transcripts:
        return [Finding(MALFORMED, path, f"The {reader.title} holds no history to check.")]
    others = [r for r in every if r != reader.name]
    if others and not any(e.calls or e.results for t in transcripts for e in t.entries):
        return [
            Finding(
                MALFORMED,
                path,
                f"Not read as a transcript container: read as {reader.name} it holds no tool "
                f"call and no result, but it also reads as {' and '.join(others)}.",
                "/container" if "container" in record else None,
            )
        ]
    return [replace(f, path=path) for c in check_transcripts(transcripts, path) for f in c.findings]


def check_transcript_record(path: str, record: Any) -> list[Finding]:
    """Findings for one parsed record, if it is a transcript or a container declared by its
    ``$schema`` (none otherwise)."""
    if isinstance(record, dict) and record.get("$schema") == CONTAINER_SCHEMA:
        return _container_record(path, record)
    if not isinstance(record, dict) or record.get("recordKind") != RECORD_KIND:
        return []
    messages = record.get("messages")
    if not isinstance(messages, list):
        return []  # the record's schema reports a missing or malformed messages array
    if not messages:
        text = EMPTY_MESSAGE[0].upper() + EMPTY_MESSAGE[1:]
        return [Finding(EMPTY, path, f"{text}.", "/messages")]
    try:
        shape = shape_of(messages)
    except UndetectableShape as exc:
        return [Finding(exc.code, path, f"Not read as a transcript: {exc}.", "/messages")]
    try:
        entries = shape.entries(messages)
    except ShapeError as exc:
        pointer = f"/messages/{exc.index}{exc.pointer}" if exc.index is not None else None
        return [Finding(MALFORMED, path, f"Not {a_or_an(shape.name)} transcript: {exc}.", pointer)]
    return [
        Finding(p.code, path, p.message + ".", pointer=f"/messages/{p.index}{p.pointer}")
        for p in sorted(
            [*shape.id_problems(messages), *pair(entries, len(messages)).problems],
            key=Problem.sort_key,
        )
    ]


def call_views(entries: list[Entry], pairing: Pairing | None = None) -> list[dict[str, Any]]:
    """Each tool call of a history, in order, as plain values: its ``id``, ``name`` and
    ``arguments`` (``None`` where the shape holds none), whether the harness ended it itself
    (``ended``), and the ``result`` that answered it (``content``, ``isError``,
    ``interrupted``: the shape marks it an interruption record) or ``None``."""
    pairing = pairing if pairing is not None else pair(entries)
    ended = {call for call, _ in pairing.ended}
    out: list[dict[str, Any]] = []
    for entry in entries:
        for part in entry.parts:
            if not isinstance(part, Call):
                continue
            result = pairing.answers.get(part)
            out.append(
                {
                    "id": part.id,
                    "name": part.name,
                    "arguments": part.arguments,
                    "ended": part in ended,
                    "result": None
                    if result is None
                    else {
                        "content": result.content,
                        "isError": result.is_error,
                        "interrupted": result.interrupted,
                    },
                }
            )
    return out


def container_facts(
    path: str, data: bytes, shape: str | None = None, leaf: bool = False
) -> TranscriptFacts:
    """What a file the spec's ``transcripts`` declare holds, for the assertions that read it
    whole (``witnessed-calls``): ``{"transcripts": [{"name", "shape", "active", "calls"}]}``,
    each transcript as the checker reads it (:func:`check_container_file`), its calls as
    :func:`call_views` gives them; none when it is no transcript (the checker's findings say
    why)."""
    from verifier.transcripts.check import CannotRun, Malformed, load
    from verifier.transcripts.containers.run import check_container, container_of

    transcripts: list[dict[str, Any]] = []
    try:
        found = container_of(data, path, shape)
        if found is not None:
            for checked in check_container(found, path, leaf).checked:
                t = checked.transcript
                transcripts.append(
                    {
                        "name": t.name,
                        "shape": t.shape.name,
                        "active": t.active,
                        "calls": call_views(t.entries, checked.pairing),
                    }
                )
        else:
            loaded = load(data, path, shape)
            transcripts.append(
                {
                    "name": path,
                    "shape": loaded.shape.name,
                    "active": True,
                    "calls": call_views(loaded.entries, loaded.pairing),
                }
            )
    except (CannotRun, Malformed):
        pass
    return TranscriptFacts(transcripts=transcripts)
