"""pydantic-ai messages (``ModelMessagesTypeAdapter`` JSON).

* A ``response`` message (``kind``) makes calls in ``tool-call`` parts (``tool_name``,
  ``args``, ``tool_call_id``); it starts a new turn.
* A ``request`` message answers them in ``tool-return`` parts (``tool_call_id``, ``content``,
  ``outcome``) or ``retry-prompt`` parts that name a ``tool_name`` (the tool asked for a
  retry). Any other part (``user-prompt``, ``system-prompt``, a ``retry-prompt`` without
  ``tool_name``, which is user feedback) starts a new turn.
* A ``tool-return`` with ``outcome: "interrupted"`` is an interruption record and must say
  the marker.

A synthetic result is a ``tool-return`` with ``outcome: "interrupted"``, ``metadata:
{"synthetic": true}`` (``metadata`` is not sent to the model) and the ``timestamp`` of the
response that made the call, never the clock. It joins the request that carries the window's
results, or the request that closed the window (before its first part), or a new request.
"""

from __future__ import annotations

from typing import Any

from verifier.transcripts.interface import Shape, ShapeError, message_at, string_at, text_of
from verifier.transcripts.pairing import INTERRUPTED_MARKER, Boundary, Call, Entry, Part, Result


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(c, str) for c in content):
        return "".join(content)
    return text_of(content)


class PydanticAI(Shape):
    name = "pydantic-ai"
    title = "pydantic-ai messages (tool-call / tool-return / retry-prompt parts)"
    part_layout = True
    parts_key = "parts"
    result_role = ("kind", "request")

    def features(self, messages: list[Any]) -> bool:
        return bool(messages) and all(
            isinstance(m, dict) and m.get("kind") in ("request", "response") for m in messages
        )

    def entries(self, messages: list[Any]) -> list[Entry]:
        out: list[Entry] = []
        for i in range(len(messages)):
            msg = message_at(messages, i)
            kind = msg.get("kind")
            raw = msg.get("parts")
            if kind not in ("request", "response"):
                raise ShapeError(f"message {i}: 'kind' is neither 'request' nor 'response'", i)
            if not isinstance(raw, list):
                raise ShapeError(f"message {i} has no 'parts' array", i)
            parts: list[Part] = []
            if kind == "response":
                parts.append(Boundary(i, 0))
                for k, part in enumerate(raw):
                    if isinstance(part, dict) and part.get("part_kind") == "tool-call":
                        pointer = f"/parts/{k}"
                        cid = string_at(part, "tool_call_id", i, "a tool-call", pointer)
                        name = string_at(part, "tool_name", i, "a tool-call", pointer)
                        parts.append(
                            Call(i, k, cid, name, pointer=pointer, arguments=part.get("args"))
                        )
            else:
                for k, part in enumerate(raw):
                    result = self._result(part, i, k)
                    parts.append(result if result is not None else Boundary(i, k))
            out.append(Entry(i, str(kind), tuple(parts)))
        return out

    def _result(self, part: Any, i: int, k: int) -> Result | None:
        if not isinstance(part, dict):
            return None
        pointer = f"/parts/{k}"
        kind = part.get("part_kind")
        tool = part.get("tool_name")
        if kind == "tool-return":
            cid = string_at(part, "tool_call_id", i, "a tool-return", pointer)
            outcome = part.get("outcome")
            metadata = part.get("metadata")
            marked = outcome == "interrupted" or (
                isinstance(metadata, dict) and metadata.get("synthetic") is True
            )
            return Result(
                i,
                k,
                cid,
                tool if isinstance(tool, str) else None,
                _content_text(part.get("content")),
                outcome in ("failed", "denied", "interrupted"),
                marked,
                pointer,
            )
        if kind == "retry-prompt" and isinstance(tool, str):
            cid = string_at(part, "tool_call_id", i, "a retry-prompt", pointer)
            return Result(i, k, cid, tool, _content_text(part.get("content")), True, False, pointer)
        return None

    def synthetic(self, call: Call, messages: list[Any]) -> Any:
        made = messages[call.index]
        out: dict[str, Any] = {
            "part_kind": "tool-return",
            "tool_name": call.name,
            "tool_call_id": call.id,
            "content": INTERRUPTED_MARKER,
            "outcome": "interrupted",
            "metadata": {"synthetic": True},
        }
        if isinstance(made, dict) and "timestamp" in made:
            out["timestamp"] = made["timestamp"]
        return out


#: the registry member (verifier.transcripts.SHAPES)
SHAPE = PydanticAI()
