"""Harness containers: one reader per format, one registry (``--shape`` takes these names too).

Detection never guesses: each reader claims a file only by what its format alone has (a Pi
``session`` header, Claude Code ``uuid``/``parentUuid`` lines with a ``message``, a SWE-agent
``history`` beside ``trajectory``, OpenHands events with ``action``/``observation``, ATIF
``schema_version`` and ``steps``, an Inspect log's ``eval`` and ``samples``, an OpenHands
``output.jsonl``'s lines with ``instance_id`` and ``history``, a tau-bench result list's runs
with ``task_id`` and ``traj``). Every reader and every message shape is asked
(:func:`readings`): two answers (two containers, a container and a message list a shape's
features show, two message lists) are
``transcript.ambiguous-shape``; a file no reader claims is read as a bare message list.
"""

from __future__ import annotations

from verifier.registry import Plugin, Registry
from verifier.transcripts.containers.interface import ContainerError, Parsed, Reader, Transcript

CONTAINERS: Registry[Reader] = Registry(
    "container",
    Plugin("pi-session", "verifier.transcripts.containers.pi_session:READER"),
    Plugin("claude-code", "verifier.transcripts.containers.claude_code:READER"),
    Plugin("swe-agent", "verifier.transcripts.containers.swe_agent:READER"),
    Plugin("openhands", "verifier.transcripts.containers.openhands:READER"),
    Plugin("atif", "verifier.transcripts.containers.atif:READER"),
    Plugin("inspect", "verifier.transcripts.containers.inspect_log:READER"),
    Plugin("openhands-output", "verifier.transcripts.containers.results:OPENHANDS_OUTPUT"),
    Plugin("tau-bench", "verifier.transcripts.containers.results:TAU_BENCH"),
)


def view(reader: Reader, parsed: Parsed) -> Parsed:
    """The reading of the file ``reader`` takes: a reader of JSON Lines reads a lone JSON
    object on one line as a JSON Lines file of that line (:attr:`Parsed.one_line`)."""
    if reader.lines and not parsed.is_lines and parsed.one_line is not None:
        return parsed.one_line
    return parsed


def claiming(parsed: Parsed) -> list[Reader]:
    """The readers that claim the file (by features only their format has), each asked about
    the reading it takes (:func:`view`)."""
    return [r for r in CONTAINERS.values() if r.claims(view(r, parsed))]


def readings(parsed: Parsed) -> list[str]:
    """Every way the file can be read, each reader and shape asked: the containers that claim
    it, and for each message list it holds (:func:`~verifier.transcripts.document.message_lists`)
    the message shapes whose features it shows (a list no shape shows anything of counts once
    when there are several lists: which one to read is not told). More than one is ambiguous.
    """
    from verifier.transcripts import featured
    from verifier.transcripts.document import message_lists

    out = [r.name for r in claiming(parsed)]
    lists = message_lists(parsed.value, parsed.is_lines)
    for key, messages in lists:
        where = f" ('{key}')" if key else ""
        shapes = featured(messages)
        out.extend(f"{shape.name}{where}" for shape in shapes)
        if not shapes and len(lists) > 1:
            out.append(f"a message list{where}")
    return out


def parse_container(data: bytes, name: str) -> Parsed:
    """The file as one JSON text or JSON Lines (strict); ``error`` says why it is neither. A
    lone JSON object on one line is both (``one_line``): without a ``.jsonl`` name, as on
    standard input, nothing tells which, so every reader is asked about the form it reads."""
    from verifier.transcripts.document import DocumentError, strict_lines, strict_value

    if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        return Parsed(data, name, error="a zip file")
    if not name.lower().endswith((".jsonl", ".ndjson")):
        try:
            parsed = Parsed(data, name, strict_value(data))
        except DocumentError as exc:
            first = str(exc)
            if data.strip().count(b"\n") < 1:
                return Parsed(data, name, error=first)
        else:
            if isinstance(parsed.value, dict) and b"\n" not in data.strip():
                try:  # the same bytes as one line: read alike (strict either way)
                    values, lines, texts = strict_lines(data)
                    parsed.one_line = Parsed(data, name, values, lines, texts, True)
                except DocumentError:
                    pass
            return parsed
    else:
        first = ""
    try:
        values, lines, texts = strict_lines(data)
    except DocumentError as exc:
        return Parsed(data, name, error=first or str(exc))
    return Parsed(data, name, values, lines, texts, True)


__all__ = [
    "CONTAINERS",
    "ContainerError",
    "Parsed",
    "Reader",
    "Transcript",
    "claiming",
    "parse_container",
    "readings",
    "view",
]
