"""The interface of a transcript container: a harness's own file, read into transcripts.

A *container* is how a harness stores its runs (a Pi or Claude Code session, a SWE-agent
``.traj``, an OpenHands event list, an ATIF trajectory, an Inspect log). A reader turns one
file into one or more :class:`Transcript` values, each named (sample id and epoch, task id,
the path in a tree), each a message list in one message shape with its common-model entries.
The pairing rules stay in :func:`verifier.transcripts.pairing.pair`; a reader only maps its
format, marks its harness's own endings, and says where each message sits in the file.

A tree (Pi, Claude Code) gives one transcript per root-to-leaf path; the path holding the
active leaf (the entry written last) is the one the run continued on, the others are
abandoned branches (``active`` false), whose dangling calls are notes.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from verifier.transcripts.interface import Shape, ShapeError, string_at
from verifier.transcripts.pairing import Call, Entry, Pairing, Problem

#: (line, JSON pointer) of message ``index`` and a pointer inside it, for a finding
Locate = Callable[[int, str], tuple[int | None, str | None]]


@dataclass(slots=True)
class Transcript:
    """One history read from a container."""

    name: str  # how findings name it: "sample 3 epoch 1", "path to leaf 9f2c (active)"
    shape: Shape  # the message shape its messages are in
    messages: list[Any]
    entries: list[Entry]
    locate: Locate
    active: bool = True  # False: an abandoned branch of a tree
    meta: dict[str, Any] = field(default_factory=dict)  # sampleId, epoch, taskId, leaf, path
    problems: list[Problem] = field(default_factory=list)  # the reader's own (references)
    repair: Any = None  # what the reader needs to write a repair (None: it cannot)


class ContainerError(ShapeError):
    """The file is not this container, or is damaged (``code``: the finding it is)."""

    def __init__(
        self,
        message: str,
        code: str = "transcript.malformed",
        line: int | None = None,
        pointer: str = "",
    ) -> None:
        super().__init__(message, None, pointer)
        self.code = code
        self.line = line


@dataclass(slots=True)
class Parsed:
    """A container file as parsed: one JSON text (``value``), or JSON Lines (``value`` the
    list of line values, ``lines`` their line numbers and ``texts`` their exact text), or
    neither (``value`` ``None``: a binary container such as an Inspect ``.eval`` zip)."""

    data: bytes
    name: str
    value: Any = None
    lines: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    is_lines: bool = False
    error: str = ""  # why it is neither JSON nor JSON Lines (then ``value`` is None)
    #: a lone JSON object on one line is also a JSON Lines file of one line (standard input
    #: has no ``.jsonl`` name to tell): that reading, for the readers of JSON Lines
    one_line: Parsed | None = None


class Reader(abc.ABC):
    """One container format. Stateless; the registry holds one instance each."""

    name: str
    title: str
    #: whether it reads JSON Lines (one entry per line) rather than one JSON text
    lines: bool = False

    @abc.abstractmethod
    def claims(self, parsed: Parsed) -> bool:
        """Whether the file shows what only this format has."""

    @abc.abstractmethod
    def read(self, parsed: Parsed, leaf_only: bool = False) -> list[Transcript]:
        """The transcripts of the file (trees: every root-to-leaf path, or with
        ``leaf_only`` the active one); raises :class:`ContainerError`."""

    def write(self, parsed: Parsed, plan: list[tuple[Transcript, Pairing]]) -> bytes:
        """The file with each transcript of ``plan`` repaired (every dangling call closed by
        the explicit marker in the shape's own result form, every entry kept as it was),
        written back in the container's own form. Readers that cannot write raise
        :class:`ContainerError`."""
        raise ContainerError(f"repair does not write {self.title} files")


def obj(value: Any, what: str, line: int | None = None) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ContainerError(f"{what} is not a JSON object", line=line)
    return value


def chat_calls(calls: list[Any], i: int) -> list[Call]:
    """The calls of a chat message's ``tool_calls[]`` (SWE-agent and Inspect keep the OpenAI
    form): ``id`` the call id, the tool named by ``function.name`` or a ``function`` string
    (Inspect's ``ToolCall.function``)."""
    out = []
    for k, tc in enumerate(calls):
        pointer = f"/tool_calls/{k}"
        if not isinstance(tc, dict):
            raise ShapeError(f"message {i}: a tool call is not an object", i, pointer)
        cid = string_at(tc, "id", i, "a tool call", pointer)
        fn = tc.get("function")
        name = fn.get("name") if isinstance(fn, dict) else fn
        out.append(Call(i, k, cid, name if isinstance(name, str) else "?", pointer=pointer))
    return out


def one_history(
    name: str,
    shape: Shape,
    messages: list[Any],
    base: str,
    meta: dict[str, Any] | None = None,
    trailing: tuple[Entry, ...] = (),
    end_pointer: str | None = None,
) -> Transcript:
    """The one transcript of a container that holds a single flat history (a SWE-agent
    ``history``, OpenHands events, ATIF ``steps``) at JSON pointer ``base``: its entries read
    by ``shape`` (a :class:`ShapeError` becomes a :class:`ContainerError` naming the place),
    ``trailing`` entries after them (a harness's ending of the whole run), each message
    located at ``{base}/{index}`` and a trailing one at ``end_pointer``."""
    try:
        entries = shape.entries(messages)
    except ShapeError as exc:
        raise ContainerError(str(exc), pointer=f"{base}/{exc.index}{exc.pointer}") from None
    entries.extend(trailing)

    def locate(index: int, pointer: str) -> tuple[int | None, str | None]:
        if index < len(messages):
            return None, f"{base}/{index}{pointer}"
        return None, end_pointer

    problems = shape.id_problems(messages)
    return Transcript(
        name, shape, messages, entries, locate, True, dict(meta or {}), problems, repair=True
    )


__all__ = [
    "ContainerError",
    "Locate",
    "Parsed",
    "Reader",
    "Transcript",
    "chat_calls",
    "obj",
    "one_history",
]
