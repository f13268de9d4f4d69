"""``transcript repair`` only adds (issue #34, class 13): every entry it was given comes out
unchanged and in order, each dangling call gets its marked result in the output (never only
in the summary), and the output checks clean of dangling calls. The property over every shape
is in ``test_transcript_properties.py``; these are the fuzz run's own findings."""

from __future__ import annotations

import json
from typing import Any

from verifier.transcripts.check import check_bytes
from verifier.transcripts.pairing import INTERRUPTED_MARKER
from verifier.transcripts.repair import repair_bytes

SCREENSHOT = {"type": "computer_screenshot", "image_url": "data:image/png;base64,AAA"}
USER = {"type": "message", "role": "user", "content": "go"}


def _repair(items: list[Any]) -> tuple[list[Any], list[str]]:
    data = json.dumps(items).encode()
    result = repair_bytes(data, "items.json")
    assert result.shape == "openai-responses"
    again = check_bytes(result.output, "items.json")
    assert [f.code for f in again.findings] == [f.code for f in result.remaining]
    out: list[Any] = json.loads(result.output)
    return out, [f.code for f in again.findings]


def test_a_computer_calls_output_naming_another_call_is_kept_and_a_marked_result_added() -> None:
    call: dict[str, Any] = {"type": "computer_call", "id": "cu_1", "call_id": "call_click"}
    call |= {"status": "completed", "action": {"type": "click", "x": 1, "y": 2}}
    other = {"type": "computer_call_output", "call_id": "callcall_click", "output": SCREENSHOT}
    out, codes = _repair([USER, call, other])
    assert out[:3] == [USER, call, other]  # the output naming another call, untouched
    assert out[3] == {
        "type": "computer_call_output",
        "call_id": "call_click",
        "output": INTERRUPTED_MARKER,
        "status": "incomplete",
    }
    assert codes == ["transcript.orphan-result"]  # not repaired: it answers no call


def test_an_mcp_call_left_in_progress_is_closed_by_a_later_record_of_it() -> None:
    call = {"type": "mcp_call", "id": "mcp_1", "server_label": "fs", "name": "list"}
    call |= {"arguments": "{}", "status": "in_progress"}
    out, codes = _repair([USER, call])
    assert out[:2] == [USER, call]
    assert out[2] == {**call, "status": "incomplete", "error": INTERRUPTED_MARKER}
    assert codes == []


def test_a_finished_mcp_record_answers_its_in_progress_item() -> None:
    started = {"type": "mcp_call", "id": "mcp_1", "name": "list", "status": "in_progress"}
    done = {**started, "status": "completed", "output": "[]"}
    report = check_bytes(json.dumps([USER, started, done]).encode(), "items.json")
    assert report.findings == [] and (report.calls, report.results) == (1, 1)


def test_a_call_dangling_at_the_end_after_an_mcp_calls_own_result_gets_its_result() -> None:
    # the walk reads an mcp_call with its output as two entries: the end of the history was
    # past the last message, and the synthetic result was listed as added but never written
    mcp = {"type": "mcp_call", "id": "mcp_1", "name": "list", "arguments": "{}", "output": "[]"}
    call = {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"}
    out, codes = _repair([USER, mcp, call])
    assert out[:3] == [USER, mcp, call]
    assert out[3]["call_id"] == "call_1" and out[3]["output"] == INTERRUPTED_MARKER
    assert codes == []
