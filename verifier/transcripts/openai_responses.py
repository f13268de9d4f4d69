"""OpenAI Responses API input items.

* ``function_call`` and ``custom_tool_call`` items make a call with ``call_id`` (not ``id``,
  which names the item); ``local_shell_call`` too.
* ``function_call_output`` and ``custom_tool_call_output`` answer by ``call_id``;
  ``local_shell_call_output`` by ``call_id`` or, as the API defines it, ``id``.
* A run of consecutive model-output items (``reasoning``, assistant ``message``, any ``*_call``)
  is one assistant turn: the first item of a run starts a new turn. User, system and developer
  messages, and items of unknown type, start a new turn too. Outputs of tools the verifier
  does not pair (``computer_call_output``, ``mcp_approval_response``, ...) are neutral.

The API refuses unknown members, so a synthetic output is marked with the item's own
``status: "incomplete"`` and the marker text.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from verifier.transcripts.interface import Shape, message_at, string_at, text_of
from verifier.transcripts.pairing import INTERRUPTED_MARKER, Boundary, Call, Entry, Part, Result

CALLS = MappingProxyType(
    {
        "function_call": "function_call_output",
        "custom_tool_call": "custom_tool_call_output",
        "local_shell_call": "local_shell_call_output",
    }
)
OUTPUTS = frozenset(CALLS.values())
_FEATURES = frozenset(CALLS.keys() | OUTPUTS | {"reasoning", "message"})


def _kind(item: dict[str, Any]) -> str:
    kind = item.get("type")
    if isinstance(kind, str):
        return kind
    return "message" if "role" in item else "?"


def _model_output(item: dict[str, Any], kind: str) -> bool:
    if kind == "message":
        return item.get("role") == "assistant"
    return kind == "reasoning" or kind.endswith("_call")


def _output_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return text_of(value)


class OpenAIResponses(Shape):
    name = "openai-responses"
    title = "OpenAI Responses items (function_call / function_call_output by call_id)"

    def features(self, messages: list[Any]) -> bool:
        return any(
            isinstance(m, dict)
            and m.get("type") in _FEATURES
            and (m["type"] != "message" or "role" in m)
            for m in messages
        )

    def entries(self, messages: list[Any]) -> list[Entry]:
        out: list[Entry] = []
        in_run = False
        for i in range(len(messages)):
            item = message_at(messages, i)
            kind = _kind(item)
            parts: list[Part] = []
            if kind in OUTPUTS:
                key = "call_id" if "call_id" in item or kind != "local_shell_call_output" else "id"
                call_id = string_at(item, key, i, f"a {kind} item")
                parts.append(
                    Result(
                        i,
                        0,
                        call_id,
                        None,
                        _output_text(item.get("output")),
                        interrupted=item.get("status") == "incomplete",
                    )
                )
                in_run = False
            elif _model_output(item, kind):
                if not in_run:
                    parts.append(Boundary(i, 0))
                in_run = True
                if kind in CALLS:
                    call_id = string_at(item, "call_id", i, f"a {kind} item")
                    name = item.get("name")
                    if kind == "local_shell_call":
                        name = "local_shell"
                    parts.append(Call(i, 0, call_id, name if isinstance(name, str) else "?"))
            elif kind.endswith("_output") or kind.endswith("_response"):
                in_run = False  # a tool the verifier does not pair: neutral
            else:
                parts.append(Boundary(i, 0))
                in_run = False
            out.append(Entry(i, kind if kind != "message" else str(item.get("role")), tuple(parts)))
        return out

    def synthetic(self, call: Call, messages: list[Any]) -> Any:
        made = messages[call.index]
        kind = made.get("type") if isinstance(made, dict) else None
        output_kind = CALLS.get(kind, "function_call_output") if isinstance(kind, str) else None
        out: dict[str, Any] = {"type": output_kind or "function_call_output"}
        out["id" if output_kind == "local_shell_call_output" else "call_id"] = call.id
        out["output"] = INTERRUPTED_MARKER
        out["status"] = "incomplete"
        return out


#: the registry member (verifier.transcripts.SHAPES)
SHAPE = OpenAIResponses()
