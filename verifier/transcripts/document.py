"""Reading a transcript file: JSON or JSON Lines, and where its message list sits.

A JSON file holds a message list, or an object with one under ``messages`` (Chat, Anthropic,
Pi, a request body), ``input`` (Responses) or ``contents`` (Gemini). A JSON Lines file
(``.jsonl``/``.ndjson``, or any file that is not one JSON text but whose every non-blank line
is) holds one message per line. Parsing is strict (:func:`verifier.json.parse.loads_strict`).

Numbers are not interpreted here (a transcript's calls and results are told by strings), so a
number a double cannot hold is no problem of the transcript: it keeps its literal, and a
repaired file writes every number exactly as it was written (:mod:`verifier.json.write`);
strings keep their code points (a lone surrogate is written back as its ``\\uXXXX`` escape).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from verifier.json.parse import UNREPRESENTABLE, loads_strict
from verifier.json.write import dumps

CONTAINERS = ("messages", "input", "contents")
JSONL_SUFFIXES = (".jsonl", ".ndjson")


class DocumentError(ValueError):
    """The bytes are not JSON / JSON Lines, or hold no message list."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


@dataclass(slots=True)
class Document:
    value: Any  # the parsed JSON text (JSON), or the list of line values (JSON Lines)
    messages: list[Any]
    container: str | None = None  # the member holding the list, if the text is an object
    lines: list[tuple[int, str]] = field(default_factory=list)  # JSON Lines: (number, text)

    def locate(self, index: int | None, pointer: str = "") -> tuple[int | None, str | None]:
        """(line, JSON pointer) of message ``index`` (and a part of it), for a finding."""
        if index is None or index >= len(self.messages):
            return None, None
        if self.lines:
            return self.lines[index][0], pointer or None
        base = f"/{self.container}/{index}" if self.container else f"/{index}"
        return None, base + pointer

    def dump(self, messages: list[Any]) -> bytes:
        """The document with ``messages`` in place of its list. JSON Lines keeps every line
        whose message is the original object as it was; JSON is written with two-space
        indentation."""
        if self.lines:
            raw = {id(m): text for m, (_, text) in zip(self.messages, self.lines, strict=True)}
            out = [raw.get(id(m)) or dumps(m, separators=(",", ":")) for m in messages]
            return ("\n".join(out) + "\n").encode("utf-8")
        value: Any = messages
        if self.container is not None:
            value = {**self.value, self.container: messages}
        return (dumps(value, indent=2) + "\n").encode("utf-8")


def _strict(data: bytes, line: int | None = None) -> Any:
    value, problems = loads_strict(data, keep_spelling=True)
    problems = [p for p in problems if p.code != UNREPRESENTABLE]
    if problems:
        first = problems[0]
        where = first.line if line is None else line
        raise DocumentError(first.message.rstrip("."), where)
    return value


def _lines(data: bytes) -> Document:
    values: list[Any] = []
    lines: list[tuple[int, str]] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        text = raw.rstrip(b"\r")
        values.append(_strict(text, number))
        lines.append((number, text.decode("utf-8")))
    return Document(values, values, None, lines)


def strict_value(data: bytes) -> Any:
    """One strict JSON text; raises :class:`DocumentError`."""
    return _strict(data)


def strict_lines(data: bytes) -> tuple[list[Any], list[int], list[str]]:
    """Strict JSON Lines: the values, their line numbers and their exact text."""
    doc = _lines(data)
    return doc.messages, [n for n, _ in doc.lines], [t for _, t in doc.lines]


def message_lists(value: Any, is_lines: bool = False) -> list[tuple[str, list[Any]]]:
    """Every message list a parsed file could hold, as :func:`parse` looks for one, each with
    where it is (``""``: the file itself): JSON Lines' values, a JSON array, or each of the
    object's :data:`CONTAINERS` members that is an array (``parse`` reads the first; a file
    holding more than one is read as none of them by detection)."""
    if is_lines or isinstance(value, list):
        return [("", value)]
    if isinstance(value, dict):
        return [(key, value[key]) for key in CONTAINERS if isinstance(value.get(key), list)]
    return []


def parse(data: bytes, name: str = "") -> Document:
    """Parse a transcript file; raises :class:`DocumentError`."""
    if name.lower().endswith(JSONL_SUFFIXES):
        return _lines(data)
    try:
        value = _strict(data)
    except DocumentError:
        if data.count(b"\n") and data.strip().count(b"\n") >= 1:
            try:
                return _lines(data)
            except DocumentError:
                pass
        raise
    if isinstance(value, list):
        return Document(value, value)
    if isinstance(value, dict):
        for key in CONTAINERS:
            if isinstance(value.get(key), list):
                return Document(value, value[key], key)
    raise DocumentError(
        "no message list: expected a JSON array, or an object with a "
        + ", ".join(repr(k) for k in CONTAINERS)
        + " array"
    )
