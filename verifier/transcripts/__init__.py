"""Tool-call transcripts: one common model, one adapter per message shape, one registry.

The pairing rules live once, in :mod:`verifier.transcripts.pairing`; each module below only
maps its format onto that model and writes its own form of the explicit interruption result.
The registry's order is the order ``--shape`` lists and detection falls back through.
"""

from __future__ import annotations

from typing import Any

from verifier.registry import Plugin, Registry
from verifier.transcripts.interface import Shape, ShapeError

#: name -> adapter, each imported when first used (the CLI lists the names at start-up)
SHAPES: Registry[Shape] = Registry(
    "shape",
    Plugin("openai-chat", "verifier.transcripts.openai_chat:SHAPE"),
    Plugin("openai-responses", "verifier.transcripts.openai_responses:SHAPE"),
    Plugin("anthropic", "verifier.transcripts.anthropic:SHAPE"),
    Plugin("gemini", "verifier.transcripts.gemini:SHAPE"),
    Plugin("pydantic-ai", "verifier.transcripts.pydantic_ai:SHAPE"),
    Plugin("pi", "verifier.transcripts.pi:SHAPE"),
)


AMBIGUOUS = "transcript.ambiguous-shape"


class UndetectableShape(ValueError):
    """No shape, or more than one, fits the messages: the caller must name one. ``code`` is
    the finding it is: :data:`AMBIGUOUS` (several shapes' features) or
    ``transcript.malformed`` (no shape takes the messages)."""

    def __init__(self, message: str, code: str, told: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.told = told  # the message says why itself (not only that nothing fits)


#: what marks a tool call or result in any shape: a message's role or member, a part's
#: member, or a part's or item's ``type`` / ``part_kind`` (neutral outputs, such as a
#: ``computer_call_output`` in a history without computer calls, are left out)
_CALL_ROLES = frozenset({"tool", "function", "toolResult"})
_CALL_KEYS = frozenset(
    {
        "tool_calls",
        "function_call",
        "tool_call_id",
        "toolCallId",
        "tool_use_id",
        "functionCall",
        "functionResponse",
        "function_response",
    }
)
_CALL_KINDS = frozenset(
    {
        "tool_use",
        "tool_result",
        "toolCall",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "local_shell_call_output",
        "computer_call",
        "mcp_call",
        "tool-call",
        "tool-return",
    }
)


def _marked(obj: Any) -> str | None:
    if not isinstance(obj, dict):
        return None
    # a member that is there but empty (``"tool_calls": []``, ``null``) marks nothing
    key = next((k for k in sorted(_CALL_KEYS) if obj.get(k) not in (None, "", [], {})), None)
    if key is not None:
        return repr(key)
    kind = obj.get("type", obj.get("part_kind"))
    return repr(kind) if isinstance(kind, str) and kind in _CALL_KINDS else None


def call_marks(messages: list[Any]) -> str | None:
    """Where the messages show a tool call or result by any shape's marks (a role, a member,
    a part's type), said for a finding (``"a 'functionCall' part in message 1"``); ``None``
    when none does. Linear: each message and its parts are looked at once."""
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            continue
        if msg.get("role") in _CALL_ROLES:
            return f"a {msg['role']!r} message (message {i})"
        if (mark := _marked(msg)) is not None:
            return f"{mark} in message {i}"
        for key in ("content", "parts"):
            parts = msg.get(key)
            for part in parts if isinstance(parts, list) else ():
                if (mark := _marked(part)) is not None:
                    return f"a {mark} part in message {i}"
    return None


def featured(messages: list[Any]) -> list[Shape]:
    """Every shape whose features the messages show (detection asks each one)."""
    return [shape for shape in SHAPES.values() if shape.features(messages)]


def detect(messages: list[Any]) -> tuple[Shape, bool]:
    """The shape of ``messages`` and whether it was told by its features (``False``: assumed,
    because nothing in the history tells the shapes apart; then no shape finds a call).

    Raises :class:`UndetectableShape`.
    """
    hits = featured(messages)
    if len(hits) == 1:
        return hits[0], True
    if hits:
        names = " and ".join(shape.name for shape in hits)
        raise UndetectableShape(
            f"the messages look like {names}, and no shape is guessed; name one with --shape",
            AMBIGUOUS,
        )
    # Nothing only one shape has: a plain role/content history reads the same in every
    # shape that takes it (no calls, no results), so the first that takes it is assumed;
    # one that shows a call or a result no shape reads as a whole is not plain.
    mark = call_marks(messages)
    if mark is not None:
        raise UndetectableShape(
            f"the messages hold a tool call or result ({mark}) but fit no known shape "
            f"({', '.join(SHAPES)}) as a whole; name the one they are in with --shape",
            "transcript.malformed",
            told=True,
        )
    plain = all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in messages)
    for shape in SHAPES.values() if plain else ():
        try:
            entries = shape.entries(messages)
        except ShapeError:
            continue
        if not any(e.calls or e.results for e in entries):
            return shape, False
    raise UndetectableShape(
        "the messages fit no known shape (" + ", ".join(SHAPES) + "); name one with --shape",
        "transcript.malformed",
    )


__all__ = [
    "AMBIGUOUS",
    "SHAPES",
    "Shape",
    "ShapeError",
    "UndetectableShape",
    "call_marks",
    "detect",
    "featured",
]
