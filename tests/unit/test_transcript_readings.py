"""Every file of the transcript corpora read every way (issue 34, classes 3 and 11): with no
shape and with each ``--shape`` (every message shape and every container), under its own name
and through ``-``. No reading may be a silent guess:

* a reading that finds no tool call and no result in a file that holds some (another reading
  finds them, or a message shows one by any shape's marks) is an error finding;
* a file that two readings read differently without a finding (different shape, calls or
  results) is not detected as either: with no shape it is ``transcript.ambiguous-shape``.

Beside the corpora, hostile files whose detection fell back to a guess on main: a list whose
call no shape reads as a whole was "assumed" a plain chat history, 0 calls, exit 0.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO
from verifier.findings import Severity
from verifier.transcripts import SHAPES
from verifier.transcripts.check import FileReport, check_bytes
from verifier.transcripts.containers import CONTAINERS, parse_container

ROOTS = [REPO / "tests" / "cases" / "transcripts", REPO / "tests" / "cases" / "containers"]
FILES = sorted(
    p for root in ROOTS for p in root.rglob("*") if p.is_file() and ".expected." not in p.name
)
HOSTILE: dict[str, object] = {
    # a Gemini call in a list one message of which has no parts (so no shape's features)
    "gemini-call-among-chat": [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "rm", "args": {}}}]},
        {"role": "user", "content": "next"},
    ],
    # a pydantic-ai call beside a chat message: --shape openai-responses read it as nothing
    "pydantic-call-among-chat": [
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "go"}]},
        {
            "kind": "response",
            "parts": [
                {"part_kind": "tool-call", "tool_name": "rm", "args": {}, "tool_call_id": "c"}
            ],
        },
        {"role": "user", "content": "x"},
    ],
    # an Anthropic tool_use in a message without a role
    # empty call members mark no call: a plain history, read as one, with no finding
    "empty-tool-calls": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello", "tool_calls": [], "function_call": None},
    ],
    "anthropic-call-without-role": {
        "messages": [
            {"role": "user", "content": "go"},
            {"content": [{"type": "tool_use", "id": "t", "name": "rm", "input": {}}]},
        ]
    },
}
INPUTS = [(str(p.relative_to(REPO)), p.read_bytes()) for p in FILES] + [
    (f"{name}.json", json.dumps(value).encode()) for name, value in HOSTILE.items()
]
NAMES: list[str | None] = [None, *SHAPES, *CONTAINERS]
FRAMING = ("transcript.malformed", "transcript.ambiguous-shape", "transcript.unreadable-member")


def _traffic(report: FileReport) -> bool:
    return bool(report.calls or report.results)


#: the test's own oracle of "holds a call or result": these members or types anywhere in it
MARKS = frozenset(
    {
        "tool_calls",
        "function_call",
        "tool_call_id",
        "toolCallId",
        "tool_use_id",
        "functionCall",
        "functionResponse",
        "tool_use",
        "tool_result",
        "toolCall",
        "toolResult",
        "function_call_output",
        "mcp_call",
        "tool-call",
        "tool-return",
    }
)


def _marks(data: bytes, name: str) -> bool:
    parsed = parse_container(data, name)
    todo = [parsed.value]
    while todo:
        value = todo.pop()
        if isinstance(value, dict):
            if any(value[k] not in (None, "", [], {}) for k in MARKS & value.keys()) or any(
                isinstance(value.get(k), str) and value[k] in MARKS
                for k in ("type", "part_kind", "role")
            ):
                return True
            todo.extend(value.values())
        elif isinstance(value, list):
            todo.extend(value)
    return False


@pytest.mark.parametrize(("name", "data"), INPUTS, ids=[n for n, _ in INPUTS])
@pytest.mark.parametrize("stdin", [False, True], ids=["named", "stdin"])
def test_no_reading_is_a_silent_guess(name: str, data: bytes, stdin: bool) -> None:
    path = "-" if stdin else name
    reports = {shape: check_bytes(data, path, shape) for shape in NAMES}
    holds = any(_traffic(r) for r in reports.values()) or _marks(data, name)
    silent = [
        shape
        for shape, r in reports.items()
        if holds and not _traffic(r) and not r.fails(Severity.ERROR)
    ]
    assert not silent, f"read as {silent}, no call and no finding, from a file holding some"
    readings = {
        (r.shape, r.calls, r.results)
        for r in reports.values()
        if _traffic(r) and not any(f.code in FRAMING for f in r.findings)
    }
    detected = reports[None]
    if len(readings) > 1:
        assert [f.code for f in detected.findings] == ["transcript.ambiguous-shape"], readings
    elif _traffic(detected):
        assert readings == {(detected.shape, detected.calls, detected.results)}
    if not holds:  # nothing to read: no reading may call it a problem of reading
        framing = [s for s, r in reports.items() if any(f.code in FRAMING for f in r.findings)]
        assert None not in framing or not detected.messages, framing
