"""Anthropic Messages.

* An ``assistant`` message makes calls in ``tool_use`` blocks (``id``, ``name``, ``input``),
  several for parallel calls; it starts a new turn.
* A ``user`` message answers them in ``tool_result`` blocks (``tool_use_id``, ``content``,
  ``is_error``) placed before any other block; the first other block (text, image, ...) starts
  a new turn, so a ``tool_result`` after text is misplaced. A string ``content`` is text.
* ``tool_use`` ids are unique: the API refuses a history in which two ``tool_use`` blocks
  share an id, so a reused one is ``transcript.duplicate-id`` (both calls are still read and
  paired in order).
* Server tools (``server_tool_use`` and their ``*_tool_result`` blocks) are answered inside
  the assistant message and are not paired.

The API refuses unknown members in blocks, so a synthetic result is a ``tool_result`` block
with ``is_error: true`` and the marker text. It joins the user message that carries the
window's results, or the user message that closed the window (before its first block); where
there is none, or that message's content is a string, a new user message holds it (the API
joins consecutive user messages into one turn).
"""

from __future__ import annotations

from typing import Any

from verifier.transcripts.interface import (
    Shape,
    block_calls,
    duplicate_ids,
    message_at,
    string_at,
    text_of,
)
from verifier.transcripts.pairing import (
    INTERRUPTED_MARKER,
    Boundary,
    Call,
    Entry,
    Part,
    Problem,
    Result,
)


class Anthropic(Shape):
    name = "anthropic"
    title = "Anthropic Messages (tool_use / tool_result blocks)"
    part_layout = True
    parts_key = "content"

    def features(self, messages: list[Any]) -> bool:
        for msg in messages:
            content = msg.get("content") if isinstance(msg, dict) else None
            if isinstance(content, list) and any(
                isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result")
                for b in content
            ):
                return True
        return False

    def entries(self, messages: list[Any]) -> list[Entry]:
        out: list[Entry] = []
        for i in range(len(messages)):
            msg = message_at(messages, i)
            role = string_at(msg, "role", i, "the message")
            content = msg.get("content")
            blocks = content if isinstance(content, list) else None
            parts: list[Part] = []
            if role == "user" and blocks is not None:
                for k, block in enumerate(blocks):
                    pointer = f"/content/{k}"
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        call_id = string_at(block, "tool_use_id", i, "a tool_result", pointer)
                        parts.append(
                            Result(
                                i,
                                k,
                                call_id,
                                None,
                                text_of(block.get("content")),
                                block.get("is_error") is True,
                                pointer=pointer,
                            )
                        )
                    else:
                        parts.append(Boundary(i, k))
            else:
                parts.append(Boundary(i, 0))
                if role == "assistant" and blocks is not None:
                    parts.extend(block_calls(blocks, i, "tool_use"))
            out.append(Entry(i, role, tuple(parts)))
        return out

    def id_problems(self, messages: list[Any]) -> list[Problem]:
        uses = []
        for i, msg in enumerate(messages):
            content = msg.get("content") if isinstance(msg, dict) else None
            if not isinstance(msg, dict) or msg.get("role") != "assistant":
                continue
            for k, block in enumerate(content if isinstance(content, list) else ()):
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    key = block.get("id")
                    if isinstance(key, str):
                        uses.append((key, i, f"/content/{k}"))
        return duplicate_ids(
            uses, "tool_use id", "the API refuses a history whose tool_use ids repeat"
        )

    def synthetic(self, call: Call, messages: list[Any]) -> Any:
        return {
            "type": "tool_result",
            "tool_use_id": call.id,
            "content": INTERRUPTED_MARKER,
            "is_error": True,
        }


#: the registry member (verifier.transcripts.SHAPES)
SHAPE = Anthropic()
