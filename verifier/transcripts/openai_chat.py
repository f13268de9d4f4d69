"""OpenAI Chat Completions messages, with the legacy ``function_call`` pairing.

* An ``assistant`` message makes calls in ``tool_calls: [{id, type, function: {name,
  arguments}}]`` (or ``custom: {name, input}``); a ``tool`` message answers one by
  ``tool_call_id``.
* Legacy: an ``assistant`` message with ``function_call: {name, arguments}`` makes one call
  without an id (named ``#<index>.0``); a ``function`` message answers it by position and
  ``name``.
* Every other message (``system``, ``developer``, ``user``, ``assistant``) starts a new turn.

The API refuses members it does not know in a message, so a synthetic result is just
``{"role": "tool", "tool_call_id", "content": "not run: the turn was interrupted"}`` (or the
``function`` form): the marker text is the mark.
"""

from __future__ import annotations

from typing import Any

from verifier.transcripts.interface import Shape, message_at, string_at, text_of
from verifier.transcripts.pairing import INTERRUPTED_MARKER, Boundary, Call, Entry, Part, Result


def _call_name(call: dict[str, Any]) -> str:
    for key in ("function", "custom"):
        spec = call.get(key)
        if isinstance(spec, dict) and isinstance(spec.get("name"), str):
            return str(spec["name"])
    return "?"


class OpenAIChat(Shape):
    name = "openai-chat"
    title = "OpenAI Chat Completions (tool_calls / role tool; legacy function_call)"

    def features(self, messages: list[Any]) -> bool:
        return any(
            isinstance(m, dict)
            and (
                "tool_calls" in m
                or "function_call" in m
                or "tool_call_id" in m
                or m.get("role") in ("tool", "function")
            )
            for m in messages
        )

    def entries(self, messages: list[Any]) -> list[Entry]:
        out: list[Entry] = []
        for i in range(len(messages)):
            msg = message_at(messages, i)
            role = string_at(msg, "role", i, "the message")
            parts: list[Part] = []
            if role == "tool":
                call_id = string_at(msg, "tool_call_id", i, "a tool message")
                parts.append(Result(i, 0, call_id, None, text_of(msg.get("content"))))
            elif role == "function":
                name = string_at(msg, "name", i, "a function message")
                parts.append(Result(i, 0, None, name, text_of(msg.get("content"))))
            else:
                parts.append(Boundary(i, 0))
                if role == "assistant":
                    parts.extend(self._calls(msg, i))
            out.append(Entry(i, role, tuple(parts)))
        return out

    def _calls(self, msg: dict[str, Any], i: int) -> list[Call]:
        calls: list[Call] = []
        tool_calls = msg.get("tool_calls")
        if isinstance(tool_calls, list):
            for k, tc in enumerate(tool_calls):
                pointer = f"/tool_calls/{k}"
                if not isinstance(tc, dict):
                    continue
                call_id = string_at(tc, "id", i, "a tool call", pointer)
                given = tc.get("function") or tc.get("custom")
                arguments = (
                    given.get("arguments", given.get("input")) if isinstance(given, dict) else None
                )
                calls.append(
                    Call(i, k, call_id, _call_name(tc), pointer=pointer, arguments=arguments)
                )
        legacy = msg.get("function_call")
        if isinstance(legacy, dict):
            name = legacy.get("name")
            calls.append(
                Call(
                    i,
                    len(calls),
                    f"#{i}.0",
                    name if isinstance(name, str) else "?",
                    has_id=False,
                    pointer="/function_call",
                    arguments=legacy.get("arguments"),
                )
            )
        return calls

    def synthetic(self, call: Call, messages: list[Any]) -> Any:
        if not call.has_id:
            return {"role": "function", "name": call.name, "content": INTERRUPTED_MARKER}
        return {"role": "tool", "tool_call_id": call.id, "content": INTERRUPTED_MARKER}


#: the registry member (verifier.transcripts.SHAPES)
SHAPE = OpenAIChat()
