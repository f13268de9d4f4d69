"""The Pi AI message shape (the harness of the bundled archive).

``{"role": "assistant", "content": [{"type": "toolCall", "id", "name", "arguments"}]}`` makes
calls; ``{"role": "toolResult", "toolCallId", "toolName", "content", "isError"}`` answers one.
Every other message starts a new turn. A synthetic result carries ``details: {"synthetic":
true}`` (``details`` is Pi's free-form member) and ``isError: true``; its timestamp, if any, is
copied from the assistant message that made the call.
"""

from __future__ import annotations

from typing import Any

from verifier.transcripts.interface import (
    Shape,
    ShapeError,
    block_calls,
    message_at,
    string_at,
    text_of,
)
from verifier.transcripts.pairing import INTERRUPTED_MARKER, Boundary, Call, Entry, Part, Result


def _synthetic_mark(msg: dict[str, Any]) -> bool:
    details = msg.get("details")
    return isinstance(details, dict) and details.get("synthetic") is True


class Pi(Shape):
    name = "pi"
    title = "Pi AI messages (toolCall / toolResult)"

    def features(self, messages: list[Any]) -> bool:
        for msg in messages:
            if not isinstance(msg, dict):
                continue
            if msg.get("role") == "toolResult":
                return True
            content = msg.get("content")
            if isinstance(content, list) and any(
                isinstance(b, dict) and b.get("type") == "toolCall" for b in content
            ):
                return True
        return False

    def entries(self, messages: list[Any]) -> list[Entry]:
        out: list[Entry] = []
        for i in range(len(messages)):
            msg = message_at(messages, i)
            role = string_at(msg, "role", i, "the message")
            parts: list[Part] = []
            if role == "toolResult":
                call_id = string_at(msg, "toolCallId", i, "a toolResult")
                name = msg.get("toolName")
                parts.append(
                    Result(
                        i,
                        0,
                        call_id,
                        name if isinstance(name, str) else None,
                        text_of(msg.get("content")),
                        msg.get("isError") is True,
                        _synthetic_mark(msg),
                    )
                )
            else:
                parts.append(Boundary(i, 0))
                content = msg.get("content")
                if role == "assistant" and isinstance(content, list):
                    parts.extend(block_calls(content, i, "toolCall"))
            out.append(Entry(i, role, tuple(parts)))
        return out

    def synthetic(self, call: Call, messages: list[Any]) -> Any:
        made = messages[call.index]
        out: dict[str, Any] = {
            "role": "toolResult",
            "toolCallId": call.id,
            "toolName": call.name,
            "content": [{"type": "text", "text": INTERRUPTED_MARKER}],
            "details": {"synthetic": True},
            "isError": True,
        }
        if isinstance(made, dict) and "timestamp" in made:
            out["timestamp"] = made["timestamp"]
        return out


def load(document: Any) -> list[Entry]:
    """The entries of a Pi transcript record (``{"messages": [...]}``) or message list."""
    messages = document.get("messages") if isinstance(document, dict) else document
    if not isinstance(messages, list):
        raise ShapeError("no 'messages' array")
    return Pi().entries(messages)


__all__ = ["Pi", "ShapeError", "load"]


#: the registry member (verifier.transcripts.SHAPES)
SHAPE = Pi()
