"""The container readers against the harnesses' own source: each test pins one rule a reader
was corrected to after reading where the harness defines it (docs/transcripts.md, "Checked
against the harnesses' source"). The corpus cases beside them are in
``tests/cases/containers/``."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

from tests.conftest import REPO
from verifier.transcripts.check import check_bytes
from verifier.transcripts.containers.claude_code import PLACEHOLDER
from verifier.transcripts.containers.claude_code import READER as CLAUDE
from verifier.transcripts.containers.interface import Parsed
from verifier.transcripts.containers.openhands import EVENTS
from verifier.transcripts.pairing import Result

CASES = REPO / "tests" / "cases" / "containers"


def _log(sample: dict[str, Any]) -> bytes:
    log = {"version": 2, "status": "success", "eval": {"task": "t"}, "samples": [sample]}
    return json.dumps(log).encode()


def _sample(messages: list[Any], **extra: Any) -> dict[str, Any]:
    return {"id": 1, "epoch": 1, "input": "q", "target": "t", "messages": messages, **extra}


CALL = {
    "role": "assistant",
    "content": "",
    "tool_calls": [{"id": "c1", "function": "bash", "arguments": {}, "type": "function"}],
}
ANSWER = {"role": "tool", "content": "ok", "tool_call_id": "c1", "function": "bash"}


def test_inspect_reads_the_older_tc_protocol_as_a_reference() -> None:
    # log/_condense.py, resolve_sample_attachments: "tc://" is migrated to "attachment://"
    user = {"role": "user", "content": [{"type": "text", "text": "tc://gone"}]}
    report = check_bytes(_log(_sample([user, CALL, ANSWER])), "log.json")
    assert [(f.code, f.pointer) for f in report.findings] == [
        ("transcript.unresolved-reference", "/samples/0/messages/0")
    ]
    kept = _sample([user, CALL, ANSWER], attachments={"gone": "go"})
    assert check_bytes(_log(kept), "log.json").findings == []


def test_inspect_messages_never_come_from_the_message_pool() -> None:
    # log/_pool.py: message_pool holds ModelEvent inputs (input_refs ranges), not messages
    pooled = _sample(
        ["attachment://m1", CALL, ANSWER],
        message_pool=[{"role": "user", "content": "go"}],
        attachments={"m1": '{"role": "user", "content": "go"}'},
    )
    report = check_bytes(_log(pooled), "log.json")
    assert [f.code for f in report.findings] == ["transcript.malformed"]
    assert "message 0" in report.findings[0].message


def test_an_eval_still_being_written_is_named_by_its_journal_start() -> None:
    # log/_recorders/eval.py: header.json is written at log_finish; until then
    # _journal/start.json holds the eval spec
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("_journal/start.json", json.dumps({"version": 2, "eval": {"task": "ctf"}}))
        z.writestr("samples/1_epoch_1.json", json.dumps(_sample([CALL])))
    report = check_bytes(buffer.getvalue(), "run.eval")
    assert report.shape == "inspect"
    assert [t["name"] for t in report.transcripts] == [
        "sample 1 epoch 1 of task ctf (samples/1_epoch_1.json)"
    ]
    assert [f.code for f in report.findings] == ["transcript.dangling-call"]
    only = io.BytesIO()  # a run that died before its first sample: claimed, nothing checked
    with zipfile.ZipFile(only, "w") as z:
        z.writestr("_journal/start.json", json.dumps({"version": 2, "eval": {"task": "ctf"}}))
    report = check_bytes(only.getvalue(), "run.eval")
    assert report.shape == "inspect" and [f.code for f in report.findings] == [
        "transcript.malformed"
    ]


def _results(entries: list[Any]) -> list[Result]:
    return [p for e in entries for p in e.parts if isinstance(p, Result)]


def test_openhands_not_executed_is_its_own_marker() -> None:
    case = CASES / "openhands" / "confirmed-then-stopped.json"
    events = json.loads(case.read_text("utf-8"))
    results = _results(EVENTS.entries(events))
    assert [(r.call_id, r.native) for r in results] == [("3", False), ("5", True)]
    # the action awaiting confirmation (event 1) is sent again as event 3: only 3 is a call
    calls = [c.id for e in EVENTS.entries(events) for c in e.calls]
    assert calls == ["3", "5"]


def test_claude_code_placeholder_is_its_own_marker_and_a_rejection_is_a_result() -> None:
    case = CASES / "claude-code" / "missing-and-rejected.jsonl"
    lines = [json.loads(x) for x in case.read_text("utf-8").splitlines()]
    texts = case.read_text("utf-8").splitlines()
    parsed = Parsed(case.read_bytes(), str(case), lines, list(range(1, 7)), texts, True)
    (transcript,) = CLAUDE.read(parsed)
    results = _results(transcript.entries)
    assert [(r.content == PLACEHOLDER, r.native) for r in results] == [
        (True, True),
        (False, False),
    ]


def test_every_corrected_case_is_in_the_corpus() -> None:
    names = {
        "atif/null-source-call-id.json",
        "swe-agent/submitted-exit-cost.traj",
        "openhands/confirmed-then-stopped.json",
        "openhands/awaiting-never-answered.json",
        "claude-code/missing-and-rejected.jsonl",
    }
    assert all(Path(CASES / n).is_file() for n in names)


def test_an_unhashable_state_or_stop_reason_is_read_not_a_crash() -> None:
    # found by the mutation fuzz on the new corpus: a dict where a string is expected
    events = json.loads((CASES / "openhands" / "confirmed-then-stopped.json").read_text("utf-8"))
    events[-1]["extras"]["agent_state"] = {"stopped": True}
    report = check_bytes(json.dumps(events).encode(), "events.json")
    assert report.shape == "openhands" and report.findings == []
    rows = [
        {"type": "session", "version": 3, "id": "s"},
        {"type": "message", "id": "u", "parentId": None, "message": {"role": "user"}},
        {
            "type": "message",
            "id": "a",
            "parentId": "u",
            "message": {
                "role": "assistant",
                "stopReason": {"aborted": True},
                "content": [{"type": "toolCall", "id": "t1", "name": "bash", "arguments": {}}],
            },
        },
    ]
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    report = check_bytes(data, "s.jsonl")
    assert [f.code for f in report.findings] == ["transcript.dangling-call"]


def test_a_swe_agent_0x_history_pairs_its_actions_by_position() -> None:
    # 0.x .traj (trajectories/demonstrations/human_thought__...): no message_type at all;
    # before the fix its actions were no calls, a history checked as holding none
    case = CASES / "swe-agent" / "v0-no-message-type.traj"
    report = check_bytes(case.read_bytes(), str(case))
    assert report.findings == [] and (report.calls, report.results) == (4, 3)
    assert [t["ended"] for t in report.transcripts] == [1]  # the submit: trajectory[-1]
