"""``transcript check`` as a library: read, detect the shape, pair, report. Never prints.

A file that cannot be parsed, or does not fit its shape, is a ``transcript.malformed`` finding;
one whose shape cannot be told (and was not given) is a finding too, as in the archive check:
``transcript.ambiguous-shape`` when it looks like several shapes, ``transcript.malformed``
when it fits none. A file that is missing or unreadable, or an unknown ``--shape``, raises
:class:`CannotRun`: the command cannot answer for it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from verifier.findings import Finding, Severity, a_or_an
from verifier.transcripts import (
    SHAPES,
    Shape,
    ShapeError,
    UndetectableShape,
    call_marks,
    detect,
)
from verifier.transcripts.containers import CONTAINERS
from verifier.transcripts.document import Document, DocumentError, parse
from verifier.transcripts.pairing import (
    EMPTY,
    EMPTY_MESSAGE,
    MALFORMED,
    Entry,
    Pairing,
    Problem,
    pair,
)
from verifier.version import __version__


class CannotRun(Exception):
    """The command cannot check this input at all (exit 2)."""


IN_FILE = ""  # the path of a transcript's findings: the file's report names the file


def finding_dict(finding: Finding) -> dict[str, Any]:
    """A finding as ``verifier/schemas/transcript-report.schema.json`` has it: without a path, which
    the file's entry gives."""
    out = finding.to_dict()
    del out["path"]
    return out


@dataclass(slots=True)
class FileReport:
    """What ``transcript check`` found in one file."""

    path: str
    shape: str | None
    shape_source: str  # given | detected | assumed | none
    messages: int = 0
    calls: int = 0
    results: int = 0
    findings: list[Finding] = field(default_factory=list)
    container: bool = False  # a harness's container: ``transcripts`` lists what it held
    transcripts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def count(self) -> int:
        """How many transcripts this file counts as (a container: those it held)."""
        return max(1, len(self.transcripts)) if self.container else 1

    @property
    def ok(self) -> bool:
        """No error (warnings and notes are listed, and fail only under ``--fail-on``)."""
        return not any(f.severity is Severity.ERROR for f in self.findings)

    def fails(self, threshold: Severity = Severity.ERROR) -> bool:
        return any(f.severity.reaches(threshold) for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "path": self.path,
            "shape": self.shape,
            "shapeSource": self.shape_source,
            "messages": self.messages,
            "calls": self.calls,
            "results": self.results,
            "ok": self.ok,
            "findings": [finding_dict(f) for f in self.findings],
        }
        if self.container:
            out["transcripts"] = self.transcripts
        return out


@dataclass(slots=True)
class TranscriptReport:
    """The result of one ``transcript check`` run over one or more files."""

    files: list[FileReport] = field(default_factory=list)
    tool_version: str = __version__
    #: the lowest severity that fails the run (``--fail-on``): the exit code and every view's
    #: verdict follow it (:attr:`passed`); ``ok`` stays "no error"
    fail_on: Severity = Severity.ERROR

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.files)

    @property
    def passed(self) -> bool:
        """The verdict, the one rule the exit code and every view follow: no finding of any
        file reaches :attr:`fail_on`."""
        return not self.fails(self.fail_on)

    @property
    def verdict(self) -> str:
        return "passed" if self.passed else "failed"

    def file_verdict(self, f: FileReport) -> str:
        """``f``'s status as the views show it: ``failed`` when it has a finding reaching
        :attr:`fail_on`."""
        return "failed" if f.fails(self.fail_on) else "passed"

    def fails(self, threshold: Severity = Severity.ERROR) -> bool:
        """Whether a finding reaches ``threshold`` (the exit code of ``--fail-on``)."""
        return any(f.fails(threshold) for f in self.files)

    @property
    def findings(self) -> int:
        return sum(len(f.findings) for f in self.files)

    @property
    def summary_line(self) -> str:
        failing = sum(
            len({x.transcript for x in f.findings}) if f.container else bool(f.findings)
            for f in self.files
        )
        return (
            f"{sum(f.count for f in self.files)} transcript(s) checked, {failing} with findings, "
            f"{self.findings} finding(s)"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "reportVersion": 1,
            "tool": {"name": "verify-evidence", "version": self.tool_version},
            "command": "transcript check",
            "ok": self.ok,
            "verdict": self.verdict,
            "failOn": self.fail_on.value,
            "summary": self.summary_line,
            "files": [f.to_dict() for f in self.files],
        }


@dataclass(slots=True)
class Loaded:
    """A transcript read onto the common model and paired."""

    document: Document
    shape: Shape
    shape_source: str
    entries: list[Entry]
    pairing: Pairing
    problems: list[Problem] = field(default_factory=list)  # the shape's own (duplicate ids)

    def findings(self) -> list[Finding]:
        """The transcript's findings; one from which no message was read is
        ``transcript.empty`` (nothing was checked, whatever shape read it)."""
        out = []
        if not self.document.messages:
            out.append(Finding(EMPTY, IN_FILE, EMPTY_MESSAGE[0].upper() + EMPTY_MESSAGE[1:] + "."))
        for p in sorted([*self.problems, *self.pairing.problems], key=Problem.sort_key):
            line, pointer = self.document.locate(p.index, p.pointer)
            out.append(
                Finding(
                    p.code,
                    IN_FILE,
                    p.message + ".",
                    pointer,
                    line,
                    index=p.index,
                    call_id=p.call_id or None,
                    tool=p.tool,
                )
            )
        return out


def shape_named(name: str) -> Shape:
    try:
        return SHAPES[name]
    except KeyError:
        known = ", ".join([*SHAPES, *CONTAINERS])
        raise CannotRun(f"unknown shape {name!r} (known: {known})") from None


STDIN = "-"  # the name that reads standard input, once


def max_bytes() -> int:
    """The most a transcript file (or standard input) may hold: the archive's default total
    (:class:`verifier.sources.safety.Limits`), so nothing is read without a bound."""
    from verifier.sources.safety import Limits

    return Limits().max_bytes


def _bounded(handle: Any, name: str, limit: int) -> bytes:
    data: bytes = handle.read(limit + 1)
    if len(data) > limit:
        raise CannotRun(f"{name} holds more than {limit} bytes (the limit); not read")
    return data


def read_bytes(path: str, limit: int | None = None) -> bytes:
    """The file's bytes, or with ``-`` standard input's, read once; at most ``limit`` bytes
    (default :func:`max_bytes`), more is :class:`CannotRun`."""
    import sys

    limit = max_bytes() if limit is None else limit
    if path == STDIN:
        try:
            return _bounded(sys.stdin.buffer, "standard input", limit)
        except OSError as exc:
            raise CannotRun(f"cannot read standard input: {exc.strerror or exc}") from None
    try:
        with open(path, "rb") as handle:
            return _bounded(handle, path, limit)
    except FileNotFoundError:
        raise CannotRun(f"{path} does not exist") from None
    except IsADirectoryError:
        raise CannotRun(f"{path} is a directory") from None
    except OSError as exc:
        raise CannotRun(f"cannot read {path}: {exc.strerror or exc}") from None


class Malformed(Exception):
    """The input is not JSON / JSON Lines, or does not fit its shape."""

    def __init__(self, finding: Finding, shape: str | None, source: str) -> None:
        super().__init__(finding.message)
        self.finding = finding
        self.shape = shape
        self.source = source


def load(data: bytes, name: str, shape: str | None = None) -> Loaded:
    """Parse and pair. Raises :class:`Malformed` for input that is not a transcript or whose
    shape cannot be told, and :class:`CannotRun` for an unknown ``shape``."""
    given = shape_named(shape) if shape is not None else None
    try:
        document = parse(data, name)
    except DocumentError as exc:
        finding = Finding(MALFORMED, IN_FILE, f"Not JSON or JSON Lines: {exc}.", line=exc.line)
        raise Malformed(finding, shape, "given" if shape else "none") from None
    if given is not None:
        chosen, source = given, "given"
    else:
        try:
            chosen, told = detect(document.messages)
        except UndetectableShape as exc:
            text = str(exc) if exc.code != MALFORMED or exc.told else _fits_nothing()
            finding = Finding(exc.code, IN_FILE, f"Not read as a transcript: {text}.")
            raise Malformed(finding, None, "none") from None
        source = "detected" if told else "assumed"
    try:
        entries = chosen.entries(document.messages)
    except ShapeError as exc:
        line, pointer = document.locate(exc.index, exc.pointer)
        finding = Finding(
            MALFORMED,
            IN_FILE,
            f"Not {a_or_an(chosen.name)} transcript: {exc}.",
            pointer,
            line,
            index=exc.index,
        )
        raise Malformed(finding, chosen.name, source) from None
    pairing = pair(entries, len(document.messages))
    return Loaded(document, chosen, source, entries, pairing, chosen.id_problems(document.messages))


def _fits_nothing() -> str:
    """The advice for a file no shape and no container reads: what ``--shape`` takes, both
    kinds (a shape reads one message list; a container, a harness's or benchmark's file of
    one or many runs), so the name it suggests is one that can read the file."""
    return (
        f"the messages fit no known shape ({', '.join(SHAPES)}) and the file is none of the "
        f"containers ({', '.join(CONTAINERS)}); if it is one of these, name it with --shape"
    )


def check_bytes(data: bytes, path: str, shape: str | None = None, leaf: bool = False) -> FileReport:
    """Check one transcript held in ``data`` (``path`` names it and tells JSON Lines); a
    harness's container is checked as every transcript it holds (``leaf``: in a tree, only
    the path to the active leaf). A named ``shape`` that reads no call and no result from a
    file another reader or shape reads some from is a ``transcript.malformed`` finding."""
    if shape is not None and shape not in CONTAINERS:
        shape_named(shape)
    report = _check_bytes(data, path, shape, leaf)
    read_as = shape or report.shape
    if read_as is not None and not report.calls and not report.results and report.ok:
        report.findings.extend(_unfit(data, path, read_as))
    return report


def _holds_traffic(shape: Shape, messages: list[Any]) -> bool:
    try:
        return any(e.calls or e.results for e in shape.entries(messages))
    except ShapeError:
        return False


def _unfit(data: bytes, path: str, shape: str) -> list[Finding]:
    """The finding for a shape named with ``--shape`` (or a spec) that read no call and no
    result from a file another reader or shape reads some from: every one is asked."""
    from verifier.transcripts.containers import claiming, parse_container
    from verifier.transcripts.document import message_lists

    parsed = parse_container(data, path)
    others = [r.name for r in claiming(parsed) if r.name != shape]
    for key, messages in message_lists(parsed.value, parsed.is_lines):
        where = f" ('{key}')" if key else ""
        others.extend(
            f"{s.name}{where}"
            for s in SHAPES.values()
            if s.name != shape and s.features(messages) and _holds_traffic(s, messages)
        )
    if not others:
        lists = message_lists(parsed.value, parsed.is_lines)
        mark = next((m for _, ms in lists if (m := call_marks(ms)) is not None), None)
        if mark is None:
            return []
        return [
            Finding(
                MALFORMED,
                IN_FILE,
                f"Not {a_or_an(shape)} transcript: read as {shape} it holds no tool call and no "
                f"result, but the file shows one ({mark}); name the shape it is in.",
            )
        ]
    return [
        Finding(
            MALFORMED,
            IN_FILE,
            f"Not {a_or_an(shape)} transcript: read as {shape} it holds no tool call and no "
            f"result, but it reads as {' and '.join(others)}; name the shape it is in.",
        )
    ]


def _check_bytes(data: bytes, path: str, shape: str | None, leaf: bool) -> FileReport:
    from verifier.transcripts.containers.run import check_container, container_of

    found = container_of(data, path, shape)
    if found is not None:
        got = check_container(found, path, leaf)
        return FileReport(
            path,
            got.shape,
            got.source,
            sum(len(c.transcript.messages) for c in got.checked),
            sum(s["calls"] for s in (c.summary() for c in got.checked)),
            sum(s["results"] for s in (c.summary() for c in got.checked)),
            got.findings,
            container=True,
            transcripts=[c.summary() for c in got.checked],
        )
    try:
        loaded = load(data, path, shape)
    except Malformed as exc:
        return FileReport(path, exc.shape, exc.source, findings=[exc.finding])
    calls = sum(len(e.calls) for e in loaded.entries)
    results = sum(len(e.results) for e in loaded.entries)
    return FileReport(
        path,
        loaded.shape.name,
        loaded.shape_source,
        len(loaded.document.messages),
        calls,
        results,
        loaded.findings(),
    )


def check_files(paths: list[str], shape: str | None = None, leaf: bool = False) -> TranscriptReport:
    """Check every file (``-``: standard input, given at most once); raises
    :class:`CannotRun` for the first that cannot be checked."""
    if paths.count(STDIN) > 1:
        raise CannotRun("standard input ('-') given more than once; it is read once")
    report = TranscriptReport()
    for path in paths:
        report.files.append(check_bytes(read_bytes(path), os.fspath(path), shape, leaf))
    return report
