from __future__ import annotations

from typing import Any

from verifier.transcripts import pi
from verifier.transcripts.model import INTERRUPTED_MARKER, pair


def call(*ids: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [
            {"type": "toolCall", "id": i, "name": f"tool_{i}", "arguments": {}} for i in ids
        ],
    }


def result(call_id: str, content: str = "ok") -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "t", "content": content}


def user(text: str = "hi") -> dict[str, Any]:
    return {"role": "user", "content": text}


def problems(*messages: dict[str, Any]) -> list[tuple[str, int, str]]:
    pairing = pair(pi.load({"messages": list(messages)}))
    return [(p.code, p.index, p.call_id) for p in pairing.problems]


def test_every_call_answered_once_has_no_problems() -> None:
    assert problems(user(), call("a", "b"), result("a"), result("b", INTERRUPTED_MARKER)) == []


def test_dangling_call_at_the_end() -> None:
    assert problems(user(), call("a")) == [("transcript.dangling-call", 1, "a")]


def test_dangling_call_in_the_middle_followed_by_a_new_user_message() -> None:
    # seed 004: cleaning only trailing messages misses this one
    assert problems(user(), call("a"), user("what did it find?"), call("b"), result("b")) == [
        ("transcript.dangling-call", 1, "a")
    ]


def test_late_result_is_misplaced_and_does_not_hide_the_dangling_call() -> None:
    assert problems(user(), call("a"), user(), result("a")) == [
        ("transcript.dangling-call", 1, "a"),
        ("transcript.misplaced-result", 3, "a"),
    ]


def test_duplicate_orphan_and_reused_id() -> None:
    assert problems(user(), call("a"), result("a"), result("a"), result("zz"), call("a")) == [
        ("transcript.duplicate-result", 3, "a"),
        ("transcript.orphan-result", 4, "zz"),
        ("transcript.reused-id", 5, "a"),
    ]


def test_text_content_blocks_are_joined() -> None:
    entries = pi.load({"messages": [call("a"), result("a", [{"type": "text", "text": "x"}])]})
    assert pair(entries).results["a"][0].content == "x"
