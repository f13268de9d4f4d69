"""The Pi AI message shape (the harness of the bundled archive).

``{"role": "assistant", "content": [{"type": "toolCall", "id", "name", "arguments"}]}`` makes
calls; ``{"role": "toolResult", "toolCallId", "toolName", "content", "isError"}`` answers one.
"""

from __future__ import annotations

from typing import Any

from verifier.transcripts.model import Call, Entry, Result


class ShapeError(ValueError):
    """The document is not a transcript of this shape."""


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def load(document: Any) -> list[Entry]:
    messages = document.get("messages") if isinstance(document, dict) else document
    if not isinstance(messages, list):
        raise ShapeError("no 'messages' array")
    entries: list[Entry] = []
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict) or not isinstance(msg.get("role"), str):
            raise ShapeError(f"message {i} has no role")
        role = msg["role"]
        if role == "toolResult":
            call_id = msg.get("toolCallId")
            if not isinstance(call_id, str):
                raise ShapeError(f"message {i} is a toolResult without toolCallId")
            result = Result(i, call_id, text_of(msg.get("content")), bool(msg.get("isError")))
            entries.append(Entry(i, role, True, results=(result,)))
            continue
        calls = []
        content = msg.get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "toolCall":
                    if not isinstance(block.get("id"), str):
                        raise ShapeError(f"message {i} has a toolCall without id")
                    calls.append(Call(i, block["id"], str(block.get("name", "?"))))
        entries.append(Entry(i, role, False, calls=tuple(calls)))
    return entries
