"""Property tests over generated harness sessions: Claude Code sessions written line by line
the way Claude Code writes them (one content block per line sharing ``message.id``; a parallel
call's result line before the next call line, so the raw links fork; progress lines hanging
off the chain), and Pi session trees with branches. The oracle is the generation plan itself,
written independently of the checker: which calls got a result before the next prompt, which
path was written last."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier.transcripts.check import check_bytes
from verifier.transcripts.repair import repair_bytes

# a turn: how many parallel calls, which of them get a result, whether results interleave
turns = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=3),
        st.lists(st.booleans(), min_size=3, max_size=3),
        st.booleans(),
        st.booleans(),
    ),
    min_size=1,
    max_size=5,
)


def claude_session(plan: list[tuple[int, list[bool], bool, bool]]) -> tuple[bytes, set[str]]:
    lines: list[dict[str, Any]] = []
    dangling: set[str] = set()
    last: str | None = None
    n = 0

    def add(kind: str, parent: str | None, **body: Any) -> str:
        nonlocal n
        n += 1
        uid = f"u{n}"
        lines.append({"type": kind, "uuid": uid, "parentUuid": parent, **body})
        return uid

    for t, (calls, answered, interleave, progress) in enumerate(plan):
        last = add("user", last, message={"role": "user", "content": f"prompt {t}"})
        mid = f"msg_{t}"
        head = add(
            "assistant",
            last,
            message={"id": mid, "role": "assistant", "content": [{"type": "text", "text": "ok"}]},
        )
        prev_call = head
        pending: list[str] = []
        for c in range(calls):
            cid = f"toolu_{t}_{c}"
            call_line = add(
                "assistant",
                prev_call,
                message={
                    "id": mid,
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": cid, "name": "Bash", "input": {}}],
                },
            )
            if progress:
                add("progress", call_line, data={"type": "bash_progress"})
            if answered[c] and interleave:  # the result line, then the next call off the call
                add(
                    "user",
                    call_line,
                    message={
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": cid}],
                    },
                )
            elif answered[c]:
                pending.append(cid)
            else:
                dangling.add(cid)
            prev_call = call_line
        last = prev_call
        for cid in pending:  # results after every call, chained
            last = add(
                "user",
                last,
                message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": cid}]},
            )
        # the conversation goes on from the last line written that is not a progress line
        last = next(x["uuid"] for x in reversed(lines) if x["type"] != "progress")
    text = "".join(json.dumps(x, separators=(",", ":")) + "\n" for x in lines)
    return text.encode(), dangling


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns)
def test_claude_code_sessions_report_exactly_the_unanswered_calls(
    plan: list[tuple[int, list[bool], bool, bool]],
) -> None:
    data, dangling = claude_session(plan)
    report = check_bytes(data, "s.jsonl")
    assert report.shape == "claude-code"
    errors = [f for f in report.findings if f.severity.value == "error"]
    assert {f.call_id for f in errors if f.code == "transcript.dangling-call"} == dangling
    assert all(f.code == "transcript.dangling-call" for f in errors), errors
    active = [t for t in report.transcripts if t["active"]]
    assert len(active) == 1
    repaired = repair_bytes(data, "s.jsonl")
    assert {a.call.id for a in repaired.added} == dangling
    again = check_bytes(repaired.output, "s.jsonl")
    assert [f for f in again.findings if f.severity.value == "error"] == []
    assert repair_bytes(repaired.output, "s.jsonl").output == repaired.output


branches = st.lists(st.tuples(st.integers(min_value=0, max_value=6), st.booleans()), max_size=4)


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=1, max_value=6), branches)
def test_pi_trees_error_only_on_the_path_written_last(
    length: int, forks: list[tuple[int, bool]]
) -> None:
    """A main chain of answered calls; each fork leaves a call unanswered on a side branch.
    Only the branch written last is the run's: its dangling call is an error, the others'
    are notes."""
    rows: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "s"}]
    chain: list[str] = []
    parent: str | None = None
    for i in range(length):
        call = {"role": "assistant", "content": [{"type": "toolCall", "id": f"c{i}", "name": "f"}]}
        result = {"role": "toolResult", "toolCallId": f"c{i}", "toolName": "f", "content": []}
        for kind, msg in (("a", call), ("r", result)):
            key = f"{kind}{i}"
            rows.append({"type": "message", "id": key, "parentId": parent, "message": msg})
            parent = key
            chain.append(key)
    expected_errors: set[str] = set()
    for k, (at, dangle) in enumerate(forks):
        base = chain[2 * min(at, length - 1) + 1]  # off a result: forking off a call would
        # leave that call's result on the other branch
        call = {"role": "assistant", "content": [{"type": "toolCall", "id": f"x{k}", "name": "f"}]}
        rows.append({"type": "message", "id": f"x{k}", "parentId": base, "message": call})
        if not dangle:
            result = {"role": "toolResult", "toolCallId": f"x{k}", "toolName": "f", "content": []}
            rows.append({"type": "message", "id": f"y{k}", "parentId": f"x{k}", "message": result})
    if forks and forks[-1][1]:
        expected_errors = {f"x{len(forks) - 1}"}  # the last fork was written last: the run's
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    report = check_bytes(data, "p.jsonl")
    errors = {f.call_id for f in report.findings if f.severity.value == "error"}
    assert errors == expected_errors
    notes = {f.call_id for f in report.findings if f.code == "transcript.abandoned-dangling-call"}
    assert notes == {f"x{k}" for k, (_, d) in enumerate(forks[:-1]) if d}
    leaf = check_bytes(data, "p.jsonl", leaf=True)
    assert len(leaf.transcripts) == 1
    assert {f.call_id for f in leaf.findings} == expected_errors
