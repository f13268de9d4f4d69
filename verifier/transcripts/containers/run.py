"""Checking and repairing a container: every transcript it holds, each paired on its own.

Findings name their transcript (``transcript``, and the message text starts with its name).
On an abandoned branch a dangling call is a note (``transcript.abandoned-dangling-call``), and
a problem the active path has too is reported once, on the active path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from verifier.findings import Finding, a_or_an
from verifier.transcripts.containers.interface import Parsed, Reader, Transcript
from verifier.transcripts.pairing import (
    ABANDONED,
    DANGLING,
    EMPTY,
    EMPTY_MESSAGE,
    Pairing,
    Problem,
    pair,
)


@dataclass(slots=True)
class Checked:
    transcript: Transcript
    pairing: Pairing
    findings: list[Finding] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        t = self.transcript
        out: dict[str, Any] = {
            "name": t.name,
            "shape": t.shape.name,
            "active": t.active,
            "messages": len(t.messages),
            "calls": sum(len(e.calls) for e in t.entries),
            "results": sum(len(e.results) for e in t.entries),
            "ended": len(self.pairing.ended),
            "findings": len(self.findings),
        }
        for key in ("sampleId", "epoch", "taskId", "leaf"):
            value = t.meta.get(key)
            if key == "sampleId" and key in t.meta:
                ok = value is None or (
                    isinstance(value, (str, int)) and not isinstance(value, bool)
                )
                out[key] = value if ok else str(value)
            elif key == "epoch" and key in t.meta:
                out[key] = value if isinstance(value, int) and not isinstance(value, bool) else None
            elif isinstance(value, str):
                out[key] = value
        return out


def _place(p: Problem, t: Transcript) -> tuple[int | None, str | None]:
    return (p.line, None) if p.line is not None else t.locate(p.index, p.pointer)


def _key(p: Problem, t: Transcript) -> tuple[Any, ...]:
    line, pointer = _place(p, t)
    return (p.code, line, pointer, p.call_id)


def findings_of(t: Transcript, problems: list[Problem], path: str) -> list[Finding]:
    out = []
    for p in problems:
        line, pointer = _place(p, t)
        code = ABANDONED if (p.code == DANGLING and not t.active) else p.code
        out.append(
            Finding(
                code,
                path,
                f"{t.name}: {p.message}.",
                pointer,
                line,
                index=p.index if p.line is None and p.index >= 0 else None,
                call_id=p.call_id or None,
                tool=p.tool or None,
                transcript=t.name,
            )
        )
    return out


_NOT_READ = frozenset({"transcript.malformed", "transcript.unreadable-member"})


def _empty(t: Transcript, path: str) -> list[Finding]:
    """``transcript.empty`` for a run from which no message (and no entry) was read and that
    has no finding saying why (a run not read is ``transcript.malformed`` or
    ``transcript.unreadable-member``): nothing in it was checked. It is placed at its history
    (the pointer its first message would have, without the index)."""
    if t.messages or t.entries or any(p.code in _NOT_READ for p in t.problems):
        return []
    line, pointer = t.locate(0, "")
    if pointer is not None and pointer.endswith("/0"):
        pointer = pointer[:-2]
    return [Finding(EMPTY, path, f"{t.name}: {EMPTY_MESSAGE}.", pointer, line, transcript=t.name)]


def check_transcripts(transcripts: list[Transcript], path: str) -> list[Checked]:
    """Pair each transcript; abandoned paths report only what the active path does not. A
    run from which no message was read is ``transcript.empty``."""
    out: list[Checked] = []
    seen: set[tuple[Any, ...]] = set()
    ordered = sorted(transcripts, key=lambda t: not t.active)  # active paths first
    for t in ordered:
        pairing = pair(t.entries, len(t.messages))
        problems = sorted([*t.problems, *pairing.problems], key=Problem.sort_key)
        if not t.active:
            problems = [p for p in problems if _key(p, t) not in seen]
        else:
            seen.update(_key(p, t) for p in problems)
        out.append(Checked(t, pairing, [*_empty(t, path), *findings_of(t, problems, path)]))
    order = {id(t): k for k, t in enumerate(transcripts)}
    out.sort(key=lambda c: order[id(c.transcript)])
    return out


def chosen(checked: list[Checked]) -> list[Checked]:
    """The transcripts repair works on: every one that is not an abandoned branch."""
    return [c for c in checked if c.transcript.active]


__all__ = ["Checked", "Parsed", "Reader", "check_transcripts", "chosen", "findings_of"]


@dataclass(slots=True)
class Found:
    """A file a container reader takes: the reader, the parsed file, how it was told."""

    reader: Reader | None
    parsed: Parsed
    source: str  # given | detected | none
    finding: Finding | None = None  # why it could not be told (ambiguous), when reader is None


@dataclass(slots=True)
class ContainerResult:
    """What checking a container found (``check`` builds its file report from this)."""

    shape: str | None
    source: str
    checked: list[Checked]
    findings: list[Finding]


def container_of(data: bytes, path: str, shape: str | None) -> Found | None:
    """The container reader for the file: the one named (``shape``), else the one whose
    features it shows; ``None`` when the file is to be read as a bare message list."""
    from verifier.transcripts import SHAPES
    from verifier.transcripts.containers import (
        CONTAINERS,
        claiming,
        parse_container,
        readings,
        view,
    )

    if shape is not None and shape in SHAPES:
        return None
    parsed = parse_container(data, path)
    if shape is not None:
        return Found(CONTAINERS[shape], view(CONTAINERS[shape], parsed), "given")
    hits = claiming(parsed)
    every = readings(parsed)
    if len(every) > 1:
        names = " and ".join(every)
        finding = Finding(
            "transcript.ambiguous-shape",
            "",
            f"Not read as a transcript: the file looks like {names}, and no format is guessed; "
            "name one with --shape.",
        )
        return Found(None, parsed, "none", finding)
    if len(hits) == 1:
        return Found(hits[0], view(hits[0], parsed), "detected")
    return None


def check_container(found: Found, path: str, leaf: bool = False) -> ContainerResult:
    from verifier.transcripts.containers.interface import ContainerError

    if found.reader is None:
        assert found.finding is not None
        return ContainerResult(None, "none", [], [found.finding])
    reader, parsed = found.reader, found.parsed
    try:
        if parsed.value is None and reader.name != "inspect":
            raise ContainerError(f"not JSON or JSON Lines: {parsed.error or 'empty'}")
        if reader.lines != parsed.is_lines and parsed.value is not None:
            want = "JSON Lines" if reader.lines else "one JSON text"
            raise ContainerError(f"the file is not {want}")
        transcripts = reader.read(parsed, leaf)
    except ContainerError as exc:
        finding = Finding(
            exc.code, "", f"Not {a_or_an(reader.title)} file: {exc}.", exc.pointer or None, exc.line
        )
        return ContainerResult(reader.name, found.source, [], [finding])
    if not transcripts:
        finding = Finding(
            "transcript.malformed", "", f"The {reader.title} file holds no history to check."
        )
        return ContainerResult(reader.name, found.source, [], [finding])
    checked = check_transcripts(transcripts, "")
    findings = [f for c in checked for f in c.findings]
    return ContainerResult(reader.name, found.source, checked, findings)


__all__ += ["ContainerResult", "Found", "check_container", "container_of"]
