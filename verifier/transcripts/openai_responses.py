"""OpenAI Responses API input items.

* ``function_call`` and ``custom_tool_call`` items make a call with ``call_id`` (not ``id``,
  which names the item); ``local_shell_call`` and ``computer_call`` too (answered by
  ``computer_call_output``; where no ``computer_call`` is in the history such outputs stay
  neutral, as before).
* An ``mcp_call`` item (by its ``id``) carries its own result in ``output`` or ``error``;
  one with neither (``in_progress``) is dangling until a later ``mcp_call`` item with the same
  ``id`` carries its result: the same item as the stream finished it (``output_item.added``,
  then ``output_item.done``). A later ``mcp_call`` with the id of an MCP call already made,
  and that call's ``server_label``, ``name`` and ``arguments`` where both have them, is such a
  record (its result, if it has one), never a new call or turn; one that differs is a call of
  its own that reuses the id.
  Repair closes a dangling MCP call that way: a new ``mcp_call`` item with the call's ``id``,
  ``server_label``, ``name`` and ``arguments``, ``status: "incomplete"`` and the marker as
  its ``error``; the call item itself is not changed.
* Item ids are unique: the API refuses input that holds an item id twice ("Duplicate item
  found with id ..."). Any other item carrying an id an earlier item has (a function call's
  ``fc_`` id, a message's, a second MCP call's) is ``transcript.duplicate-id``, and is read as
  the item it is (a ``local_shell_call_output``'s ``id`` names its call, not the item).
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

from verifier.transcripts.interface import Shape, duplicate_ids, message_at, string_at, text_of
from verifier.transcripts.pairing import (
    INTERRUPTED_MARKER,
    Boundary,
    Call,
    Entry,
    Part,
    Problem,
    Result,
)

CALLS = MappingProxyType(
    {
        "function_call": "function_call_output",
        "custom_tool_call": "custom_tool_call_output",
        "local_shell_call": "local_shell_call_output",
        "computer_call": "computer_call_output",
    }
)
INLINE = "mcp_call"  # an MCP call carries its own result: ``output`` or ``error``
OUTPUTS = frozenset(CALLS.values())
_FEATURES = frozenset(CALLS.keys() | OUTPUTS | {"reasoning", "message", INLINE})


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


def _later_record(made: dict[str, list[dict[str, Any]]], item: dict[str, Any]) -> bool:
    """Whether the ``mcp_call`` ``item`` is a later state of an MCP call ``made`` with its id:
    the same server, tool and arguments where both items have them (a stream adds the item
    before its arguments are complete; a record may carry only the id and its result)."""
    key = item.get("id")
    return isinstance(key, str) and any(
        all(
            not first.get(k) or not item.get(k) or first.get(k) == item.get(k)
            for k in ("server_label", "name", "arguments")
        )
        for first in made.get(key, ())
    )


def _refers(item: dict[str, Any]) -> bool:
    """Whether the item's ``id`` names its call, not the item (a ``local_shell_call_output``
    without ``call_id``)."""
    return _kind(item) == "local_shell_call_output" and "call_id" not in item


class OpenAIResponses(Shape):
    name = "openai-responses"
    title = "OpenAI Responses items (function_call / function_call_output by call_id)"

    def features(self, messages: list[Any]) -> bool:
        return any(
            isinstance(m, dict)
            and isinstance(m.get("type"), str)
            and m["type"] in _FEATURES
            and (m["type"] != "message" or "role" in m)
            for m in messages
        )

    def entries(self, messages: list[Any]) -> list[Entry]:
        out: list[Entry] = []
        in_run = False
        # computer_call_output is paired only where the history makes computer calls (before,
        # the verifier did not pair the computer tool and kept its outputs neutral)
        computer = any(isinstance(m, dict) and m.get("type") == "computer_call" for m in messages)
        mcp_made: dict[str, list[dict[str, Any]]] = {}  # the MCP calls made so far, by id
        for i in range(len(messages)):
            item = message_at(messages, i)
            kind = _kind(item)
            parts: list[Part] = []
            if kind in OUTPUTS and (computer or kind != "computer_call_output"):
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
                was_in_run = in_run
                record = kind == INLINE and _later_record(mcp_made, item)
                if record:
                    pass  # a later record of an MCP call already made: see below
                elif not in_run:
                    parts.append(Boundary(i, 0))
                in_run = True
                if kind in CALLS:
                    call_id = string_at(item, "call_id", i, f"a {kind} item")
                    name = item.get("name")
                    if kind in ("local_shell_call", "computer_call"):
                        name = kind.removesuffix("_call")
                    given = item.get("arguments", item.get("input"))
                    label = name if isinstance(name, str) else "?"
                    parts.append(Call(i, 0, call_id, label, arguments=given))
                elif kind == INLINE:
                    call_id = string_at(item, "id", i, "an mcp_call item")
                    answer = next(
                        (item[k] for k in ("output", "error") if item.get(k) is not None), None
                    )
                    slot = 1
                    if record:  # a later record of that call: no new call, no turn
                        parts, slot = [], 0
                        in_run = was_in_run
                    else:
                        mcp_made.setdefault(call_id, []).append(item)
                        name = item.get("name")
                        label = name if isinstance(name, str) else "?"
                        parts.append(Call(i, 0, call_id, label, arguments=item.get("arguments")))
                    if answer is not None:  # its result, after the call
                        if parts:  # in the same item: the call's entry first
                            out.append(Entry(i, kind, tuple(parts)))
                        parts = [
                            Result(
                                i,
                                slot,
                                call_id,
                                None,
                                _output_text(answer),
                                item.get("error") is not None,
                                interrupted=item.get("status") == "incomplete",
                            )
                        ]
            elif kind.endswith("_output") or kind.endswith("_response"):
                in_run = False  # a tool the verifier does not pair: neutral
            else:
                parts.append(Boundary(i, 0))
                in_run = False
            out.append(Entry(i, kind if kind != "message" else str(item.get("role")), tuple(parts)))
        return out

    def id_problems(self, messages: list[Any]) -> list[Problem]:
        mcp_made: dict[str, list[dict[str, Any]]] = {}
        uses = []
        for i, item in enumerate(messages):
            key = item.get("id") if isinstance(item, dict) else None
            if not isinstance(key, str) or _refers(item):
                continue
            if _kind(item) == INLINE:
                if _later_record(mcp_made, item):
                    continue  # the same MCP call's later state, not another item
                mcp_made.setdefault(key, []).append(item)
            uses.append((key, i, "/id"))
        return duplicate_ids(
            uses,
            "item id",
            "the API refuses input holding an item id twice, and a later "
            "item with that id could stand for an earlier one",
        )

    def synthetic(self, call: Call, messages: list[Any]) -> Any:
        made = messages[call.index]
        kind = made.get("type") if isinstance(made, dict) else None
        if kind == INLINE:  # its result is a later record of the same item
            record: dict[str, Any] = {"type": INLINE, "id": call.id}
            record.update((k, made[k]) for k in ("server_label", "name", "arguments") if k in made)
            record["status"] = "incomplete"
            record["error"] = INTERRUPTED_MARKER
            return record
        output_kind = CALLS.get(kind, "function_call_output") if isinstance(kind, str) else None
        out: dict[str, Any] = {"type": output_kind or "function_call_output"}
        out["id" if output_kind == "local_shell_call_output" else "call_id"] = call.id
        out["output"] = INTERRUPTED_MARKER
        out["status"] = "incomplete"
        return out


#: the registry member (verifier.transcripts.SHAPES)
SHAPE = OpenAIResponses()
