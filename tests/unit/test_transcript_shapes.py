"""Each shape adapter: what it reads as calls, results and turns, how it is detected, and how it
writes the explicit interruption result. Seed 004 is caught and repaired in every shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, rewrite_manifest
from verifier.assertions import KINDS, Context
from verifier.pipeline import verify
from verifier.report import AssertionStatus
from verifier.transcripts import SHAPES, UndetectableShape, detect
from verifier.transcripts.archive import check_transcript_records
from verifier.transcripts.check import CannotRun, check_bytes, load
from verifier.transcripts.pairing import INTERRUPTED_MARKER
from verifier.transcripts.repair import repair_bytes
from verifier.values.records import Records

CASES = REPO / "tests" / "cases" / "transcripts"
SEED = {shape: next((CASES / shape).glob("seed-004.json*")) for shape in SHAPES}
CALL_TEXT = "Fix the failing test in src/app.py."
NEW_TEXTS = ("Tool call was cancelled; please retry.", "Please return text or call a tool.")


def dumps(value: Any) -> bytes:
    return json.dumps(value).encode()


def codes(data: bytes, name: str = "t.json", shape: str | None = None) -> list[str]:
    return [f.code for f in check_bytes(data, name, shape).findings]


def flat_texts(value: Any) -> list[str]:
    """Every string in document order (to see what came before what)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in flat_texts(v)]
    if isinstance(value, list):
        return [s for v in value for s in flat_texts(v)]
    return []


def read_any(data: bytes, jsonl: bool) -> Any:
    if jsonl:
        return [json.loads(line) for line in data.decode().splitlines()]
    return json.loads(data)


# --- seed 004 --------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_seed_004_dangling_calls_mid_history_are_caught(shape: str) -> None:
    path = SEED[shape]
    report = check_bytes(path.read_bytes(), str(path))
    assert report.shape == shape and report.calls == 3 and report.results == 0
    assert [f.code for f in report.findings] == ["transcript.dangling-call"] * 3
    assert [f.tool for f in report.findings] == ["read_file", "grep", "bash"]
    # the history does not end with them: new user text follows
    assert report.findings[-1].index is not None
    assert report.findings[-1].index < report.messages - 2


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_seed_004_is_repaired_before_the_new_user_text(shape: str) -> None:
    path = SEED[shape]
    data = path.read_bytes()
    result = repair_bytes(data, str(path))
    assert len(result.added) == 3 and not result.remaining
    assert check_bytes(result.output, str(path)).ok
    jsonl = path.suffix == ".jsonl"
    before, after = flat_texts(read_any(data, jsonl)), flat_texts(read_any(result.output, jsonl))
    # three explicit markers, after the calls and before the first new user text
    assert after.count(INTERRUPTED_MARKER) == 3
    first_new = next(s for s in before[before.index(CALL_TEXT) + 1 :] if s in NEW_TEXTS)
    assert after.index(CALL_TEXT) < after.index(INTERRUPTED_MARKER) < after.index(first_new)
    assert after.index(first_new) > max(i for i, s in enumerate(after) if s == INTERRUPTED_MARKER)
    # nothing else changed or moved: the input's strings are a subsequence of the output's
    rest = iter(after)
    assert all(any(s == t for t in rest) for s in before)
    assert repair_bytes(result.output, str(path)).output == result.output


def test_pydantic_ai_retry_prompts_that_name_the_tool_answer_the_calls() -> None:
    messages = json.loads(SEED["pydantic-ai"].read_bytes())
    calls = messages[1]["parts"]
    for part, call in zip(messages[2]["parts"][:3], calls, strict=True):
        part["tool_name"], part["tool_call_id"] = call["tool_name"], call["tool_call_id"]
    assert codes(dumps(messages)) == []


# --- detection -------------------------------------------------------------------------------


def test_every_shape_is_detected_from_its_own_features() -> None:
    for shape, path in SEED.items():
        document = load(path.read_bytes(), str(path)).document
        assert detect(document.messages) == (SHAPES[shape], True)


def test_a_history_without_tool_traffic_is_assumed_not_detected() -> None:
    report = check_bytes(dumps([{"role": "user", "content": "hi"}]), "t.json")
    assert (report.shape, report.shape_source, report.ok) == ("openai-chat", "assumed", True)


def test_mixed_or_unknown_shapes_cannot_be_told() -> None:
    mixed = [
        {"role": "tool", "tool_call_id": "a", "content": "x"},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a"}]},
    ]
    with pytest.raises(UndetectableShape, match="openai-chat and anthropic"):
        detect(mixed)
    unknown = check_bytes(dumps([1, 2, 3]), "t.json")
    assert [f.code for f in unknown.findings] == ["transcript.malformed"]
    assert "fit no known shape" in unknown.findings[0].message
    ambiguous = check_bytes(dumps(mixed), "t.json")
    assert [f.code for f in ambiguous.findings] == ["transcript.ambiguous-shape"]
    assert (ambiguous.shape, ambiguous.shape_source) == (None, "none")
    assert codes(dumps(mixed), shape="anthropic") == ["transcript.orphan-result"]
    assert codes(dumps(mixed), shape="openai-chat") == ["transcript.orphan-result"]


# --- what each shape writes ------------------------------------------------------------------

SYNTHETIC = {
    "openai-chat": {"role": "tool", "tool_call_id": "call_read", "content": INTERRUPTED_MARKER},
    "openai-responses": {
        "type": "function_call_output",
        "call_id": "call_read",
        "output": INTERRUPTED_MARKER,
        "status": "incomplete",
    },
    "anthropic": {
        "type": "tool_result",
        "tool_use_id": "toolu_read",
        "content": INTERRUPTED_MARKER,
        "is_error": True,
    },
    "gemini": {
        "functionResponse": {
            "name": "read_file",
            "response": {"error": INTERRUPTED_MARKER, "synthetic": True},
        }
    },
    "pydantic-ai": {
        "part_kind": "tool-return",
        "tool_name": "read_file",
        "tool_call_id": "pyd_ai_read",
        "content": INTERRUPTED_MARKER,
        "outcome": "interrupted",
        "metadata": {"synthetic": True},
        "timestamp": "2025-05-01T10:00:00Z",
    },
    "pi": {
        "role": "toolResult",
        "toolCallId": "toolu_read",
        "toolName": "read_file",
        "content": [{"type": "text", "text": INTERRUPTED_MARKER}],
        "details": {"synthetic": True},
        "isError": True,
        "timestamp": 1746093601000,
    },
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_synthetic_result_of_each_shape(shape: str) -> None:
    loaded = load(SEED[shape].read_bytes(), str(SEED[shape]))
    first = loaded.pairing.dangling[0][0]
    assert loaded.shape.synthetic(first, loaded.document.messages) == SYNTHETIC[shape]


def test_legacy_function_calls_pair_by_position_and_name() -> None:
    def made(name: str) -> dict[str, Any]:
        return {"role": "assistant", "function_call": {"name": name, "arguments": "{}"}}

    def answer(name: str) -> dict[str, Any]:
        return {"role": "function", "name": name, "content": "ok"}

    assert codes(dumps([made("a"), answer("a")])) == []
    assert codes(dumps([made("a"), answer("b")])) == [
        "transcript.dangling-call",
        "transcript.orphan-result",
    ]
    result = repair_bytes(dumps([made("a"), {"role": "user", "content": "?"}]), "t.json")
    assert json.loads(result.output)[1] == {
        "role": "function",
        "name": "a",
        "content": INTERRUPTED_MARKER,
    }


def test_anthropic_string_content_gets_a_user_message_of_its_own() -> None:
    history = [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "x"}]},
        {"role": "user", "content": "and?"},
    ]
    out = json.loads(repair_bytes(dumps(history), "t.json").output)
    assert out[1]["role"] == "user" and out[1]["content"][0]["tool_use_id"] == "t1"
    assert out[2] == history[1]


def test_gemini_snake_case_and_ids() -> None:
    history = [
        {"role": "model", "parts": [{"function_call": {"name": "f", "args": {}, "id": "x1"}}]},
        {"role": "user", "parts": [{"text": "go on"}]},
    ]
    out = json.loads(repair_bytes(dumps(history), "t.json").output)
    assert out[1]["parts"][0] == {
        "function_response": {
            "name": "f",
            "id": "x1",
            "response": {"error": INTERRUPTED_MARKER, "synthetic": True},
        }
    }


def test_responses_pairs_by_call_id_for_every_call_type() -> None:
    items = [
        {"type": "custom_tool_call", "call_id": "c1", "name": "patch", "input": "..."},
        {"type": "local_shell_call", "call_id": "c2", "id": "ls_1", "action": {}},
        {"type": "custom_tool_call_output", "call_id": "c1", "output": "ok"},
        {"type": "local_shell_call_output", "id": "c2", "output": "{}"},
        {"type": "computer_call_output", "call_id": "c9", "output": {}},
        {"type": "function_call", "call_id": "c3", "name": "f", "arguments": "{}"},
    ]
    assert codes(dumps(items)) == ["transcript.dangling-call"]
    out = json.loads(repair_bytes(dumps(items), "t.json").output)
    assert out[-1] == {
        "type": "function_call_output",
        "call_id": "c3",
        "output": INTERRUPTED_MARKER,
        "status": "incomplete",
    }
    # each call's synthetic output has the call's own output type
    out = json.loads(repair_bytes(dumps(items[:2]), "t.json").output)
    assert out[2] == {
        "type": "custom_tool_call_output",
        "call_id": "c1",
        "output": INTERRUPTED_MARKER,
        "status": "incomplete",
    }
    assert (out[3]["type"], out[3]["id"]) == ("local_shell_call_output", "c2")


# --- documents -------------------------------------------------------------------------------


def test_json_lines_keep_unchanged_lines_byte_for_byte_and_report_line_numbers() -> None:
    lines = [
        '{"role": "user",   "content": "hi"}',
        "",
        '{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function",'
        '"function":{"name":"f","arguments":"{}"}}]}',
        '{"role": "user", "content": "more"}',
    ]
    data = ("\n".join(lines) + "\n").encode()
    (finding,) = check_bytes(data, "h.jsonl").findings
    assert (finding.index, finding.line, finding.pointer) == (1, 3, "/tool_calls/0")
    out = repair_bytes(data, "h.jsonl").output.decode().splitlines()
    assert out == [
        lines[0],
        lines[2],
        f'{{"role":"tool","tool_call_id":"c","content":"{INTERRUPTED_MARKER}"}}',
        lines[3],
    ]


def test_a_json_lines_file_is_recognised_without_its_suffix() -> None:
    data = b'{"role": "user", "content": "a"}\n{"role": "tool", "tool_call_id": "x"}\n'
    assert codes(data) == ["transcript.orphan-result"]


@pytest.mark.parametrize(
    "data",
    [
        b"{not json",
        b'{"messages": [{"role": "user", "role": "tool"}]}',
        b'{"messages": [{"role": "tool", "content": "no id"}]}',
        b'{"messages": {"role": "user"}}',
        b"\xef\xbb\xbf[]",
    ],
)
def test_malformed_input_is_one_finding_never_a_crash(data: bytes) -> None:
    report = check_bytes(data, "t.json", "openai-chat")
    assert [f.code for f in report.findings] == ["transcript.malformed"]
    with pytest.raises(CannotRun):
        repair_bytes(data, "t.json", "openai-chat")


# --- the archive uses the same code ----------------------------------------------------------


def test_the_bundled_transcripts_pass_the_same_checker() -> None:
    records = {
        str(p.relative_to(REPO)): json.loads(p.read_text("utf-8"))
        for p in (REPO / "evidence").rglob("*.json")
    }
    kinds = [r.get("recordKind") for r in records.values() if isinstance(r, dict)]
    assert kinds.count("transcript") >= 4
    assert check_transcript_records(records) == []


def test_a_dangling_call_in_an_archive_transcript_is_a_validity_finding(archive: Path) -> None:
    path = archive / "evidence/e1-local-crash/transcript.json"
    record = json.loads(path.read_text("utf-8"))
    record["messages"].append({"role": "user", "content": "placeholder-new-user-text"})
    record["messages"][1:3] = [record["messages"][1], record["messages"][3], record["messages"][2]]
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    rewrite_manifest(archive)
    report = verify(archive)
    found = {(f.code, f.pointer) for f in report.validity.findings}
    assert found == {
        ("transcript.dangling-call", "/messages/1/content/0"),
        ("transcript.misplaced-result", "/messages/3"),
    }
    assert report.integrity.findings == []


def test_the_interrupted_result_assertion_reads_any_shape() -> None:
    chat = {
        "messages": [
            {"role": "user", "content": "pay"},
            {
                "role": "assistant",
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "pay"}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": INTERRUPTED_MARKER},
        ]
    }
    spec = {"transcript": "t.json", "marker": INTERRUPTED_MARKER}
    kind = KINDS["interrupted-tool-result"]
    assert kind.evaluate(spec, Context(Records.of({"t.json": chat}), {"t.json"})).status is (
        AssertionStatus.PASSED
    )
    del chat["messages"][2]
    outcome = kind.evaluate(spec, Context(Records.of({"t.json": chat}), {"t.json"}))
    assert outcome.status is AssertionStatus.FAILED
    assert "transcript.dangling-call" in outcome.message
