"""The pairing rules of the common model, walked in order (through the Pi adapter, the shape of
the bundled archive, and on hand-built entries for what only some shapes can express)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from verifier.transcripts import pi
from verifier.transcripts.pairing import (
    INTERRUPTED_MARKER,
    Boundary,
    Call,
    Entry,
    Position,
    Result,
    pair,
)


def call(*ids: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [
            {"type": "toolCall", "id": i, "name": f"tool_{i}", "arguments": {}} for i in ids
        ],
    }


def result(call_id: str, content: Any = "ok", **extra: Any) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": f"tool_{call_id}",
        "content": content,
    } | extra


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


def test_a_new_assistant_turn_closes_the_window_too() -> None:
    assert problems(user(), call("a"), call("b"), result("a"), result("b")) == [
        ("transcript.dangling-call", 1, "a"),
        ("transcript.misplaced-result", 3, "a"),
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
        ("transcript.dangling-call", 5, "a"),
        ("transcript.reused-answered-id", 5, "a"),
    ]


def test_a_result_before_its_call_is_an_orphan_and_the_call_still_dangles() -> None:
    assert problems(user(), result("a"), call("a")) == [
        ("transcript.orphan-result", 1, "a"),
        ("transcript.dangling-call", 2, "a"),
    ]


def test_a_reused_id_is_still_paired_in_its_own_window() -> None:
    pairing = pair(pi.load([call("a"), result("a"), call("a"), result("a", "second")]))
    assert [(p.code, p.index) for p in pairing.problems] == [("transcript.reused-answered-id", 2)]
    assert [r.content for r in pairing.results["a"]] == ["ok", "second"]


def test_a_reuse_is_an_error_while_an_earlier_call_with_the_id_has_no_result() -> None:
    # still open: a later result with the id could answer either call
    assert problems(user(), call("a", "a"), result("a"), result("a")) == [
        ("transcript.reused-id", 1, "a"),
    ]
    # closed without a result: a late result for it would silently answer the new call
    assert problems(user(), call("a"), user(), call("a"), result("a")) == [
        ("transcript.dangling-call", 1, "a"),
        ("transcript.reused-id", 3, "a"),
    ]
    # answered before the reuse: pairing by position is unambiguous, a note
    assert problems(user(), call("a"), result("a"), call("a"), result("a")) == [
        ("transcript.reused-answered-id", 3, "a"),
    ]


def test_results_answer_in_order_of_the_open_calls_with_that_id() -> None:
    pairing = pair(pi.load([call("a", "a"), result("a", "first")]))
    (dangling, at) = pairing.dangling[0]
    assert dangling.slot == 1 and at == Position(2, 0)
    assert pairing.answers[pairing.calls["a"]].content == "first"


def test_an_interruption_record_must_say_the_marker() -> None:
    marked = {"details": {"synthetic": True}}
    assert problems(call("a"), result("a", INTERRUPTED_MARKER, **marked)) == []
    assert problems(call("a"), result("a", "stopped", **marked)) == [
        ("transcript.unmarked-interruption", 1, "a")
    ]
    # without the shape's interruption mark, any content is a result like another
    assert problems(call("a"), result("a", "stopped")) == []


def test_text_content_blocks_are_joined() -> None:
    entries = pi.load({"messages": [call("a"), result("a", [{"type": "text", "text": "x"}])]})
    assert pair(entries).results["a"][0].content == "x"


def test_problems_name_the_message_the_call_and_the_tool() -> None:
    (p,) = pair(pi.load([user(), call("a"), user()])).problems
    assert (p.index, p.call_id, p.tool, p.pointer) == (1, "a", "tool_a", "/content/0")
    assert p.message == "message 1: call a (tool_a) has no result before message 2"


# Positional pairing (legacy OpenAI functions, Gemini without ids), on hand-built entries.


def model(i: int, *names: str) -> Entry:
    calls = tuple(Call(i, k + 1, f"#{i}.{k}", n, has_id=False) for k, n in enumerate(names))
    return Entry(i, "model", (Boundary(i, 0), *calls))


def answers(i: int, *names: str, loose: bool = False) -> Entry:
    parts = tuple(Result(i, k, None, n, "ok", loose=loose) for k, n in enumerate(names))
    return Entry(i, "user", parts)


def test_positional_results_answer_by_name_in_order() -> None:
    pairing = pair([model(0, "a", "b", "a"), answers(1, "a", "b", "a")])
    assert pairing.problems == []
    assert [(c.slot, r.slot) for c, r in pairing.answers.items()] == [(1, 0), (2, 1), (3, 2)]


def test_positional_count_and_name_mismatches() -> None:
    pairing = pair([model(0, "a", "b"), answers(1, "a", "c", "a")])
    assert [(p.code, p.index, p.call_id, p.tool) for p in pairing.problems] == [
        ("transcript.dangling-call", 0, "#0.1", "b"),
        ("transcript.orphan-result", 1, "", "c"),
        ("transcript.duplicate-result", 1, "#0.0", "a"),
    ]


def test_a_positional_result_answers_a_call_with_an_id_only_when_loose() -> None:
    made = Entry(0, "model", (Boundary(0, 0), Call(0, 1, "fc-1", "a")))
    assert [p.code for p in pair([made, answers(1, "a")]).problems] == [
        "transcript.dangling-call",
        "transcript.orphan-result",
    ]
    assert pair([made, answers(1, "a", loose=True)]).problems == []


def test_a_result_in_the_same_message_as_its_call_answers_nothing() -> None:
    entry = Entry(0, "odd", (Call(0, 0, "a", "t"), Result(0, 1, "a", None, "ok")))
    assert [p.code for p in pair([entry]).problems] == [
        "transcript.dangling-call",
        "transcript.orphan-result",
    ]


def test_a_transcript_input_is_read_within_a_bound(tmp_path: Path) -> None:
    # issue #34 class 11: files and standard input ('-') are read once, at most the limit
    from verifier.transcripts.check import CannotRun, read_bytes

    big = tmp_path / "big.json"
    big.write_bytes(b"[" + b" " * 64 + b"]")
    assert read_bytes(str(big), limit=66) == big.read_bytes()
    with pytest.raises(CannotRun, match="more than 65 bytes"):
        read_bytes(str(big), limit=65)
