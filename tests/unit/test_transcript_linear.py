"""Checking and repairing a transcript is linear in its size (issue 34, unbounded work).

Each case builds a 20,000-entry input whose shape made some step quadratic (a look-up scanning
every open call, every earlier call with an id or a name, every message, every run or every
line for each call or result) and counts the Python lines :mod:`verifier.transcripts` executes
(structural, not wall clock): a budget proportional to the input, which a quadratic path
exceeds many times over (it is stopped at the budget, so a regression fails fast).
``benchmarks/trees.py`` shows the times.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import verifier.transcripts
from verifier.transcripts.check import check_bytes
from verifier.transcripts.repair import repair_bytes

N = 20_000
PER_CALL = 500  # lines executed per call of the input: a linear reading stays well within
ROOT = str(Path(verifier.transcripts.__file__).parent)


def steps(run: Callable[[], Any], budget: int) -> int:
    """The lines of :mod:`verifier.transcripts` that ``run`` executes; fails past ``budget``."""
    count = 0
    over = False

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count, over
        if event == "line":
            count += 1
            if count > budget:
                over = True
                raise RuntimeError("over the step budget")
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename.startswith(ROOT) else None

    sys.settrace(calls)
    try:
        run()
    except RuntimeError:
        pass
    finally:
        sys.settrace(None)
    assert not over, f"more than {budget} steps: not linear"
    return count


def _json(value: Any) -> bytes:
    return json.dumps(value).encode()


def _jsonl(rows: list[Any]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def _chat_call(cid: str) -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": "f", "arguments": "{}"}}


def parallel_answered_backwards(n: int) -> tuple[str, bytes]:
    calls = [_chat_call(f"c{k}") for k in range(n)]
    results = [{"role": "tool", "tool_call_id": f"c{k}", "content": "ok"} for k in range(n)]
    msgs = [{"role": "user", "content": "go"}, {"role": "assistant", "tool_calls": calls}]
    return "t.json", _json([*msgs, *reversed(results)])


def one_id_reused(n: int) -> tuple[str, bytes]:
    calls = [_chat_call("x") for _ in range(n)]
    return "t.json", _json(
        [{"role": "user", "content": "go"}, {"role": "assistant", "tool_calls": calls}]
    )


def idless_duplicates(n: int) -> tuple[str, bytes]:
    call = {"functionCall": {"name": "f", "args": {}}}
    answer = {"functionResponse": {"name": "f", "response": {}}}
    return "t.json", _json(
        [{"role": "model", "parts": [call] * n}, {"role": "user", "parts": [answer] * (2 * n)}]
    )


def gemini_parallel_dangling(n: int) -> tuple[str, bytes]:
    call = {"functionCall": {"name": "f", "args": {}}}
    return "t.json", _json(
        [{"role": "user", "parts": [{"text": "go"}]}, {"role": "model", "parts": [call] * n}]
    )


def pi_dangling(n: int) -> tuple[str, bytes]:
    rows: list[Any] = [{"type": "session", "version": 3, "id": "s", "cwd": "/"}]
    for k in range(n):
        block = {"type": "toolCall", "id": f"c{k}", "name": "bash", "arguments": {}}
        msg = {"role": "assistant", "content": [block], "stopReason": "toolUse"}
        parent = f"e{k - 1}" if k else None
        rows.append({"type": "message", "id": f"e{k}", "parentId": parent, "message": msg})
    return "s.jsonl", _jsonl(rows)


def openhands_dangling(n: int) -> tuple[str, bytes]:
    events = [
        {"id": k, "source": "agent", "action": "run", "args": {"command": "ls"}} for k in range(n)
    ]
    return "events.json", _json(events)


def claude_parallel_dangling(n: int) -> tuple[str, bytes]:
    uses = [{"type": "tool_use", "id": f"t{k}", "name": "Bash", "input": {}} for k in range(n)]
    return "s.jsonl", _jsonl(
        [
            {
                "type": "user",
                "uuid": "u",
                "parentUuid": None,
                "message": {"role": "user", "content": "go"},
            },
            {
                "type": "assistant",
                "uuid": "a",
                "parentUuid": "u",
                "message": {"id": "m", "role": "assistant", "content": uses},
            },
        ]
    )


def tau_runs_dangling(n: int) -> tuple[str, bytes]:
    traj = [
        {"role": "user", "content": "x"},
        {"role": "assistant", "tool_calls": [_chat_call("c")]},
    ]
    return "results.json", _json([{"task_id": k, "traj": traj} for k in range(n)])


def openhands_output_runs_dangling(n: int) -> tuple[str, bytes]:
    history = [{"id": 1, "source": "agent", "action": "run", "args": {"command": "ls"}}]
    return "output.jsonl", _jsonl([{"instance_id": f"i{k}", "history": history} for k in range(n)])


CHECKED = [parallel_answered_backwards, one_id_reused, idless_duplicates]
REPAIRED = [
    gemini_parallel_dangling,
    pi_dangling,
    openhands_dangling,
    claude_parallel_dangling,
    tau_runs_dangling,
    openhands_output_runs_dangling,
]


@pytest.mark.parametrize("make", CHECKED, ids=lambda f: f.__name__)
def test_checking_is_linear(make: Callable[[int], tuple[str, bytes]]) -> None:
    name, data = make(N)
    report = None

    def run() -> None:
        nonlocal report
        report = check_bytes(data, name)

    steps(run, PER_CALL * N)
    assert report is not None and report.calls >= N


@pytest.mark.slow  # every executed line traced, each container's repair: 5 to 25 s a case
@pytest.mark.parametrize("make", REPAIRED, ids=lambda f: f.__name__)
def test_repair_is_linear(make: Callable[[int], tuple[str, bytes]]) -> None:
    name, data = make(N)
    result = None

    def run() -> None:
        nonlocal result
        result = repair_bytes(data, name)

    steps(run, 2 * PER_CALL * N)
    assert result is not None and len(result.added) == N
    assert not [f for f in result.remaining if f.code == "transcript.dangling-call"]


def test_the_end_of_the_history_is_counted_in_messages() -> None:
    # an mcp_call carrying its own output is read as two entries (the call, its result): the
    # end of the history is still one past the last message, where repair puts its result
    from verifier.transcripts.check import load

    items = [
        {"role": "user", "content": "go"},
        {"type": "mcp_call", "id": "m1", "server_label": "s", "name": "n", "output": "ok"},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
    ]
    loaded = load(_json(items), "t.json")
    [(call, at)] = loaded.pairing.dangling
    assert (call.id, at.index) == ("c1", len(items))
    assert "before the end of the history" in loaded.findings()[0].message


def test_a_pi_repair_names_its_entries_in_bounded_steps() -> None:
    # the file already holds every prefix of the id repair derives for the call: the next
    # candidate must still be new (main tried the same 64-digit id forever)
    import hashlib

    seed = hashlib.sha256(b"not-run:c0").hexdigest()
    block = {"type": "toolCall", "id": "c0", "name": "bash", "arguments": {}}
    rows: list[Any] = [{"type": "session", "version": 3, "id": "s", "cwd": "/"}]
    parent = None
    for n in range(8, 65):
        rows.append({"type": "label", "id": seed[:n], "parentId": parent})
        parent = seed[:n]
    msg = {"role": "assistant", "content": [block], "stopReason": "toolUse"}
    rows.append({"type": "message", "id": "e0", "parentId": parent, "message": msg})
    result = None

    def run() -> None:
        nonlocal result
        result = repair_bytes(_jsonl(rows), "s.jsonl")

    steps(run, 200_000)
    assert result is not None and len(result.added) == 1 and not result.remaining
