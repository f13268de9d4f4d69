"""Ids a format says are unique, used twice (issue 34, the siblings of a tree's duplicate id).

Each shape keyed by an id: an ATIF ``step_id``, an Inspect message id, an OpenHands event id, a
Responses item id (an ``mcp_call``'s too), an Anthropic (and Claude Code) ``tool_use`` id. A
second use is ``transcript.duplicate-id``, and both entries are still read and paired. Where
the format lets an id come back (an OpenAI chat or SWE-agent ``tool_calls`` id once the earlier
call was answered: real histories do), the reuse stays a note, and an error while the earlier
call is open.
"""

from __future__ import annotations

import json
from typing import Any

from verifier.findings import Severity
from verifier.transcripts.check import FileReport, check_bytes
from verifier.transcripts.repair import repair_bytes

DUP = "transcript.duplicate-id"


def check(value: Any, name: str = "t.json", shape: str | None = None) -> FileReport:
    if name.endswith(".jsonl"):
        data = "".join(json.dumps(v) + "\n" for v in value).encode()
    else:
        data = json.dumps(value).encode()
    return check_bytes(data, name, shape)


def codes(report: FileReport) -> list[str]:
    return sorted(f.code for f in report.findings)


def test_an_atif_step_id_used_twice_is_a_finding() -> None:
    step = {"source": "agent", "message": "m"}
    call = {"tool_call_id": "c1", "function_name": "ls", "arguments": {}}
    answered = {"results": [{"source_call_id": "c1", "content": "ok"}]}
    traj = {
        "schema_version": "ATIF-v1.2",
        "agent": {"name": "a"},
        "steps": [
            {**step, "step_id": 1, "tool_calls": [call], "observation": answered},
            {**step, "step_id": 1, "message": "again"},
        ],
    }
    report = check(traj)
    assert codes(report) == [DUP]
    assert report.findings[0].pointer == "/steps/1/step_id"
    assert report.transcripts[0]["messages"] == 2  # both steps read


def test_an_inspect_message_id_used_twice_is_a_finding() -> None:
    call = {"id": "c1", "function": "bash", "arguments": {}}
    messages = [
        {"id": "m1", "role": "user", "content": "go"},
        {"id": "m2", "role": "assistant", "content": "", "tool_calls": [call]},
        {"id": "m2", "role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    log = {"eval": {"task": "t"}, "samples": [{"id": 1, "epoch": 1, "messages": messages}]}
    report = check(log)
    assert codes(report) == [DUP]
    assert report.findings[0].pointer == "/samples/0/messages/2/id"


def test_two_openhands_actions_with_one_event_id_are_a_finding() -> None:
    def run(cmd: str) -> dict[str, Any]:
        return {"id": 5, "source": "agent", "action": "run", "args": {"command": cmd}}

    def seen(i: int) -> dict[str, Any]:
        return {"id": i, "source": "agent", "observation": "run", "content": "ok", "cause": 5}

    report = check([run("ls"), seen(6), run("rm -rf x"), seen(7)], "events.json")
    # main: only a note that the id was reused after an answer
    assert DUP in codes(report)
    assert report.fails(Severity.ERROR)
    assert report.calls == 2 and report.results == 2


def test_a_responses_item_id_used_twice_is_a_finding() -> None:
    items = [
        {"type": "message", "role": "user", "content": "go"},
        {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call", "id": "fc_1", "call_id": "c2", "name": "g", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
        {"type": "function_call_output", "call_id": "c2", "output": "ok"},
    ]
    report = check(items)
    assert codes(report) == [DUP]
    assert report.findings[0].pointer == "/2/id"


def test_a_second_mcp_call_reusing_an_id_is_a_call_and_a_finding() -> None:
    # an answered MCP call, then another tool's call under the same id, never answered: main
    # read the second as a later record of the first (no call), so nothing dangled
    items = [
        {"type": "message", "role": "user", "content": "go"},
        {"type": "mcp_call", "id": "mcp_1", "server_label": "s", "name": "read", "output": "ok"},
        {"type": "message", "role": "user", "content": "and now"},
        {"type": "mcp_call", "id": "mcp_1", "server_label": "s", "name": "delete"},
    ]
    report = check(items)
    assert report.calls == 2
    assert "transcript.dangling-call" in codes(report) and DUP in codes(report)
    # repair closes the second call and keeps the duplicate id a finding (it changes no id)
    fixed = repair_bytes(json.dumps(items).encode(), "t.json")
    assert [a.call.name for a in fixed.added] == ["delete"]
    assert sorted({f.code for f in fixed.remaining}) == [DUP, "transcript.reused-answered-id"]


def test_a_later_record_of_the_same_mcp_call_is_still_its_result() -> None:
    items = [
        {"type": "message", "role": "user", "content": "go"},
        {"type": "mcp_call", "id": "mcp_1", "server_label": "s", "name": "read", "arguments": ""},
        {"type": "mcp_call", "id": "mcp_1", "name": "read", "arguments": "{}", "output": "ok"},
    ]
    report = check(items)
    assert report.calls == 1 and report.results == 1 and not report.findings


def test_an_anthropic_tool_use_id_used_twice_is_a_finding() -> None:
    def use(name: str) -> dict[str, Any]:
        return {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": name, "input": {}}],
        }

    done = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}],
    }
    report = check(
        {"messages": [{"role": "user", "content": "go"}, use("a"), done, use("b"), done]}
    )
    # main: a note (the earlier call was answered); the API refuses such a history
    assert DUP in codes(report) and report.fails(Severity.ERROR)
    assert (
        report.findings[[f.code for f in report.findings].index(DUP)].pointer
        == "/messages/3/content/0"
    )


def test_a_claude_code_tool_use_id_used_twice_is_a_finding() -> None:
    def line(
        uuid: str, parent: str | None, kind: str, content: Any, mid: str = ""
    ) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": kind, "content": content}
        if mid:
            msg["id"] = mid
        return {"type": kind, "uuid": uuid, "parentUuid": parent, "message": msg}

    use = [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}}]
    done = [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]
    rows = [
        line("u1", None, "user", "go"),
        line("a1", "u1", "assistant", use, "m1"),
        line("u2", "a1", "user", done),
        line("a2", "u2", "assistant", use, "m2"),
        line("u3", "a2", "user", done),
    ]
    report = check(rows, "s.jsonl")
    assert DUP in codes(report) and report.fails(Severity.ERROR)


def test_an_openai_chat_call_id_may_come_back_once_answered() -> None:
    # the format allows it (real histories do): a note; reused while open: an error
    def call(cid: str) -> dict[str, Any]:
        tc = {"id": cid, "type": "function", "function": {"name": "f", "arguments": "{}"}}
        return {"role": "assistant", "tool_calls": [tc]}

    done = {"role": "tool", "tool_call_id": "c", "content": "ok"}
    user = {"role": "user", "content": "go"}
    assert codes(check([user, call("c"), done, user, call("c"), done])) == [
        "transcript.reused-answered-id"
    ]
    both = {"role": "assistant", "tool_calls": [*call("c")["tool_calls"], *call("c")["tool_calls"]]}
    assert "transcript.reused-id" in codes(check([user, both, done, done]))


def test_a_swe_agent_call_id_may_come_back_once_answered() -> None:
    tc = {"id": "c", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
    call = {"role": "assistant", "content": "", "tool_calls": [tc], "message_type": "action"}
    done = {"role": "tool", "content": "ok", "tool_call_ids": ["c"], "message_type": "observation"}
    user = {"role": "user", "content": "go", "message_type": "observation"}
    traj = {"trajectory": [], "history": [user, call, done, user, call, done], "info": {}}
    assert codes(check(traj)) == ["transcript.reused-answered-id"]


def test_a_claude_code_message_line_without_a_uuid_is_a_finding() -> None:
    # main skipped it as if it were a summary line: its dangling call was never seen, exit 0
    use = [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}}]
    rows = [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "message": {"role": "user", "content": "go"},
        },
        {
            "type": "assistant",
            "parentUuid": "u1",
            "message": {"id": "m1", "role": "assistant", "content": use},
        },
        {
            "type": "assistant",
            "uuid": "a2",
            "parentUuid": "u1",
            "message": {
                "id": "m2",
                "role": "assistant",
                "content": [{"type": "text", "text": "done"}],
            },
        },
    ]
    report = check(rows, "s.jsonl")
    assert [(f.code, f.line) for f in report.findings] == [("transcript.malformed", 2)]
    assert report.fails(Severity.ERROR)


def test_an_openhands_action_reusing_an_awaiting_calls_tool_call_id_does_not_hide_it() -> None:
    # main took any later action with the same tool_call_id as the awaiting one sent again
    # after confirmation, so the awaiting 'rm' was no call at all
    def action(i: int, cmd: str, state: str) -> dict[str, Any]:
        return {
            "id": i,
            "source": "agent",
            "action": "run",
            "args": {"command": cmd, "confirmation_state": state},
            "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "X"},
        }

    seen = {"id": 3, "source": "agent", "observation": "run", "content": "ok", "cause": 2}
    events = [action(1, "rm -rf /", "awaiting_confirmation"), action(2, "ls", "confirmed"), seen]
    report = check(events, "events.json")
    assert report.calls == 2
    assert "transcript.dangling-call" in codes(report)
    # the same action sent again once confirmed is still one call
    events[1] = action(2, "rm -rf /", "confirmed")
    again = check(events, "events.json")
    assert again.calls == 1 and not again.findings
