"""Shape detection asks every reader and every message shape, and counts every answer: a file
two of them read is ``transcript.ambiguous-shape`` unless ``--shape`` names one, and a named
shape that reads no call and no result from a file another one reads some from is a
finding (``transcript.malformed``), never "0 calls" and a pass."""

from __future__ import annotations

import json
from typing import Any

import pytest

from verifier.transcripts.archive import CONTAINER_SCHEMA, check_transcript_record
from verifier.transcripts.check import check_bytes

CHAT = [
    {"role": "user", "content": "hi"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    },
    {"role": "user", "content": "next"},
]  # a dangling call
ATIF: dict[str, Any] = {
    "schema_version": "ATIF-v1.2",
    "session_id": "s",
    "agent": {"name": "a", "version": "1"},
    "steps": [{"step_id": 1, "source": "user", "message": "hi"}],
}


def codes(data: bytes, name: str, shape: str | None = None) -> list[str]:
    return sorted(f.code for f in check_bytes(data, name, shape).findings)


def test_a_chat_body_that_is_also_an_atif_trajectory_is_ambiguous() -> None:
    # today's main: read as ATIF (one user step), the chat's dangling call never looked at
    data = json.dumps({**ATIF, "messages": CHAT}).encode()
    assert codes(data, "run.json") == ["transcript.ambiguous-shape"]
    assert codes(data, "run.json", "openai-chat") == ["transcript.dangling-call"]


def test_a_swe_agent_trajectory_holding_a_chat_body_is_ambiguous() -> None:
    history = [{"role": "user", "content": "task", "message_type": "user"}]
    data = json.dumps({"history": history, "trajectory": [], "messages": CHAT}).encode()
    assert codes(data, "run.traj") == ["transcript.ambiguous-shape"]


def test_two_message_lists_in_one_body_are_ambiguous() -> None:
    # today's main: 'messages' (plain) read, 'input' (a dangling Responses call) ignored
    call = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}
    data = json.dumps({"messages": [{"role": "user", "content": "hi"}], "input": [call]}).encode()
    assert codes(data, "body.json") == ["transcript.ambiguous-shape"]


def test_json_lines_whose_lines_fit_two_shapes_are_ambiguous() -> None:
    line = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "message": {"role": "user", "content": "hi"},
    }
    data = (json.dumps(line) + "\n" + "".join(json.dumps(m) + "\n" for m in CHAT)).encode()
    assert codes(data, "mixed.jsonl") == ["transcript.ambiguous-shape"]


@pytest.mark.parametrize("shape", ["anthropic", "pi", "openai-responses"])
def test_a_named_shape_reading_nothing_of_a_file_that_holds_calls_is_a_finding(shape: str) -> None:
    # today's main: "0 calls", exit 0
    report = check_bytes(json.dumps({"messages": CHAT}).encode(), "chat.json", shape)
    assert [f.code for f in report.findings] == ["transcript.malformed"]
    assert "openai-chat" in report.findings[0].message
    assert not report.ok


def test_a_named_shape_on_a_plain_history_stays_clean() -> None:
    plain = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    for shape in ("anthropic", "pi", "openai-chat"):
        assert codes(json.dumps(plain).encode(), "plain.json", shape) == []


def test_an_archive_container_record_naming_a_reader_that_reads_nothing_is_a_finding() -> None:
    # the record names its container (atif); its chat body holds a dangling call
    record = {"$schema": CONTAINER_SCHEMA, "container": "atif", **ATIF, "messages": CHAT}
    found = check_transcript_record("evidence/run.json", record)
    assert [f.code for f in found] == ["transcript.malformed"]
    unnamed = {k: v for k, v in record.items() if k != "container"}
    assert [f.code for f in check_transcript_record("evidence/run.json", unnamed)] == [
        "transcript.ambiguous-shape"
    ]
