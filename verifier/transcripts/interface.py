"""The interface of a transcript shape: one adapter per message format, onto the common model.

An adapter reads a list of native messages (already parsed JSON) into :class:`Entry` values,
and knows how to write one explicit interruption result for a call in its own format. The
pairing rules (:func:`verifier.transcripts.pairing.pair`) and the repair plan
(:mod:`verifier.transcripts.repair`) are shared; adapters hold no rules.

Two layouts exist. In *message* shapes (OpenAI Chat, OpenAI Responses, Pi) every result is a
message of its own, and a synthetic result is a new message. In *part* shapes (Anthropic,
Gemini, pydantic-ai) results are parts of a message of the result role (``user``,
``request``), and a synthetic result is a new part of such a message.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable
from typing import Any

from verifier.transcripts.pairing import Call, Entry, Problem

DUPLICATE_ID = "transcript.duplicate-id"


class ShapeError(ValueError):
    """The messages are not a transcript of this shape (the message index is in the text)."""

    def __init__(self, message: str, index: int | None = None, pointer: str = "") -> None:
        super().__init__(message)
        self.index = index
        self.pointer = pointer


def text_of(content: Any) -> str:
    """The text of a content value: a string, or the ``text`` members of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def message_at(messages: list[Any], index: int) -> dict[str, Any]:
    msg = messages[index]
    if not isinstance(msg, dict):
        raise ShapeError(f"message {index} is not a JSON object", index)
    return msg


def string_at(obj: dict[str, Any], key: str, index: int, what: str, pointer: str = "") -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        raise ShapeError(f"message {index}: {what} has no {key!r} string", index, pointer)
    return value


class Shape(abc.ABC):
    """One message format. Subclasses are stateless; the registry holds one instance each."""

    name: str
    title: str
    #: results are parts of a message of the result role (Anthropic, Gemini, pydantic-ai)
    part_layout: bool = False
    #: the key that holds the native parts list of a message, in part shapes
    parts_key: str = ""
    #: part shapes: the key and its value that mark a message of the result role
    result_role: tuple[str, str] = ("role", "user")

    def features(self, messages: list[Any]) -> bool:
        """Whether the messages show something only this shape has (used for detection;
        a container's own shape is never detected: it is read only inside its container)."""
        return False

    @abc.abstractmethod
    def entries(self, messages: list[Any]) -> list[Entry]:
        """The common model of ``messages``; raises :class:`ShapeError`."""

    def id_problems(self, messages: list[Any]) -> list[Problem]:
        """An id the format says is unique (an item, event, step or message id; Anthropic's
        ``tool_use`` ids) that more than one message carries: ``transcript.duplicate-id``.
        Reading never goes by these ids, so no message is dropped; this says that a tool or a
        reader that does would see another history. Shapes whose ids may repeat have none."""
        return []

    @abc.abstractmethod
    def synthetic(self, call: Call, messages: list[Any]) -> Any:
        """The explicit interruption result for ``call``: a new message in message shapes, a
        new part in part shapes. Deterministic: nothing from the clock, no random ids."""

    # Part shapes only.

    def is_result_message(self, message: Any) -> bool:
        """Whether ``message`` has the result role and a parts list synthetic parts can join."""
        key, role = self.result_role
        return (
            isinstance(message, dict)
            and message.get(key) == role
            and isinstance(message.get(self.parts_key), list)
        )

    def result_message(self, parts: list[Any]) -> Any:
        """A new message of the result role holding ``parts``."""
        key, role = self.result_role
        return {key: role, self.parts_key: parts}


def block_calls(blocks: list[Any], index: int, block_type: str) -> list[Call]:
    """The calls made by content blocks of ``block_type`` (Anthropic ``tool_use``, Pi
    ``toolCall``): each block's ``id`` and ``name``, pointed at as ``/content/K``."""
    calls = []
    for k, block in enumerate(blocks):
        if isinstance(block, dict) and block.get("type") == block_type:
            pointer = f"/content/{k}"
            call_id = string_at(block, "id", index, f"a {block_type}", pointer)
            name = block.get("name")
            arguments = block.get("input", block.get("arguments"))  # (Anthropic, Pi)
            calls.append(
                Call(
                    index,
                    k,
                    call_id,
                    name if isinstance(name, str) else "?",
                    pointer=pointer,
                    arguments=arguments,
                )
            )
    return calls


def duplicate_ids(uses: Iterable[tuple[str, int, str]], what: str, why: str) -> list[Problem]:
    """One ``transcript.duplicate-id`` problem per id used more than once: ``uses`` are (id,
    message index, pointer) in order; the problem sits on the second use and names the
    messages of up to ten uses. ``what`` names the id (``item id``), ``why`` says why it must
    be unique."""
    where: dict[str, list[tuple[int, str]]] = {}
    for key, index, pointer in uses:
        where.setdefault(key, []).append((index, pointer))
    out = []
    for key, found in where.items():
        if len(found) < 2:
            continue
        shown = ", ".join(str(i) for i, _ in found[:10]) + (" and more" if len(found) > 10 else "")
        index, pointer = found[1]
        out.append(
            Problem(
                DUPLICATE_ID,
                index,
                0,
                key[:80],
                "",
                f"message {index}: the {what} {key[:80]!r} is carried by messages {shown}; "
                f"each was read as a message of its own, but {why}",
                pointer,
            )
        )
    return out
