"""``witnessed-calls``: the transcript against the witness, call by call (order, tool, outcome,
request digest), with the interruption marker against a witnessed success reported as what it
is: the tool did run. The witness side is built by the real log reader from a gateway's log,
so the facts the assertion reads are the ones a check hands it."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
import rfc8785

from tests.gateway import Gateway
from verifier.assertions import KINDS, Context, EvalError
from verifier.transcripts.pairing import INTERRUPTED_MARKER
from verifier.values.records import Records
from verifier.witness import read_chain

KIND = KINDS["witnessed-calls"]


def _jcs(value: Any) -> str:
    return hashlib.sha256(rfc8785.dumps(value)).hexdigest()


def pi(*calls: tuple[str, str, dict[str, Any], str, bool]) -> dict[str, Any]:
    """A Pi transcript: each call ``(id, tool, arguments, result text, is error)``."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for cid, tool, arguments, text, error in calls:
        messages.append(
            {
                "role": "assistant",
                "content": [{"type": "toolCall", "id": cid, "name": tool, "arguments": arguments}],
            }
        )
        messages.append(
            {
                "role": "toolResult",
                "toolCallId": cid,
                "toolName": tool,
                "content": text,
                "isError": error,
            }
        )
    return {"messages": messages}


def witnessed(gateway: Gateway) -> dict[str, Any]:
    return read_chain("w.jsonl", gateway.log())[1]


def judge(transcript: dict[str, Any], log: dict[str, Any], **more: Any) -> tuple[str, str]:
    records = {"t.json": transcript, "w.jsonl": log}
    spec = {"kind": "witnessed-calls", "transcript": "t.json", "witness": "w.jsonl", **more}
    ctx = Context(Records.of(records, list(KIND.needs(spec))), set(records))
    try:
        outcome = KIND.evaluate(spec, ctx)
    except EvalError as exc:
        return "error", str(exc)
    return outcome.status.value, outcome.message


ARGS = {"amount": 1200, "currency": "eur", "note": "ünïcode"}


def test_agreeing_calls_pass_with_their_request_digests_compared() -> None:
    gateway = Gateway()
    gateway.call("pay/create", contentDigestRequest=_jcs({"name": "pay/create", "arguments": ARGS}))
    gateway.call("pay/read", success=False, contentDigestRequest=_jcs({"id": "pi_1"}))
    transcript = pi(
        ("c1", "pay/create", ARGS, "ok", False), ("c2", "pay/read", {"id": "pi_1"}, "404", True)
    )
    status, message = judge(transcript, witnessed(gateway))
    assert status == "passed", message
    assert "2 call(s) witnessed in order with the same tool, 2 of them" in message
    assert "2 request digest(s) equal" in message and "signatures not checked" in message


def test_the_interruption_marker_against_a_witnessed_success_says_the_tool_ran() -> None:
    gateway = Gateway()
    gateway.call("pay/create")
    transcript = pi(("c1", "pay/create", ARGS, INTERRUPTED_MARKER, True))
    status, message = judge(transcript, witnessed(gateway))
    assert status == "failed"
    assert "the tool did run" in message and "succeeded" in message
    # stated in the spec, the same records pass, and the detail keeps the fact
    status, message = judge(transcript, witnessed(gateway), ranDespiteMarker=["c1"])
    assert status == "passed", message
    assert "ended in the marker, and the witness saw the tool run and succeeded" in message


def test_a_stated_run_the_witness_did_not_see_fails() -> None:
    transcript = pi(("c1", "pay/create", ARGS, INTERRUPTED_MARKER, True))
    gateway = Gateway()
    gateway.call("pay/create")
    gateway.call("pay/extra")
    status, message = judge(
        pi(("c1", "pay/create", ARGS, "ok", False)), witnessed(gateway), ranDespiteMarker=["c1"]
    )
    assert status == "failed" and "is not the marker" in message
    first = Gateway()
    first.call("pay/read")
    both = pi(
        ("c0", "pay/read", {}, "ok", False), ("c1", "pay/create", ARGS, INTERRUPTED_MARKER, True)
    )
    status, message = judge(both, witnessed(first), ranDespiteMarker=["c1"])
    assert status == "failed" and "no record of it" in message
    # an empty log is itself an error of its chain (chain.empty): not judged
    assert judge(transcript, witnessed(Gateway()), ranDespiteMarker=["c1"])[0] == "error"


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"tool": "pay/refund"}, "name different tools"),
        ({"success": False}, "the witness saw it failed"),
        ({"digest": "0" * 64}, "not that of the call's arguments"),
    ],
)
def test_a_disagreeing_witness_fails(change: dict[str, Any], says: str) -> None:
    gateway = Gateway()
    gateway.call(
        change.get("tool", "pay/create"),
        success=change.get("success", True),
        contentDigestRequest=change.get("digest", _jcs(ARGS)),
    )
    status, message = judge(pi(("c1", "pay/create", ARGS, "ok", False)), witnessed(gateway))
    assert status == "failed"
    assert says in message


def test_a_call_the_transcript_leaves_out_is_found() -> None:
    gateway = Gateway()
    gateway.call("pay/create")
    gateway.call("pay/create")  # (a retry the agent's own record does not show)
    status, message = judge(pi(("c1", "pay/create", ARGS, "ok", False)), witnessed(gateway))
    assert status == "failed"
    assert "that the transcript does not hold" in message
    one = Gateway()
    one.call("pay/create")
    status, message = judge(
        pi(("c1", "pay/create", ARGS, "ok", False), ("c2", "pay/create", ARGS, "ok", False)),
        witnessed(one),
    )
    assert status == "failed" and "has no witnessed record" in message


def test_a_namespaced_tool_name_is_the_same_tool() -> None:
    gateway = Gateway()
    gateway.call("github/create_pull_request")  # (namespace "github")
    transcript = pi(("c1", "create_pull_request", {}, "ok", False))
    assert judge(transcript, witnessed(gateway))[0] == "passed"


def test_openai_arguments_written_as_json_text_are_digested_as_json() -> None:
    gateway = Gateway()
    gateway.call("lookup", contentDigestRequest=_jcs({"q": 1.5, "a": [True, None]}))
    transcript = {
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {
                            "name": "lookup",
                            "arguments": '{"a": [true, null], "q": 1.50}',
                        },
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "found"},
        ]
    }
    status, message = judge(transcript, witnessed(gateway))
    assert status == "passed", message


def test_a_broken_chain_is_not_judged_and_nothing_is_not_a_pass() -> None:
    gateway = Gateway()
    gateway.call("a")
    gateway.call("b")
    del gateway.lines[0]  # (no genesis: the chain has errors)
    assert judge(pi(("c1", "b", {}, "ok", False)), witnessed(gateway))[0] == "error"
    quiet = Gateway()
    quiet.checkpoint()  # (an intact log that witnessed no call)
    status, message = judge({"messages": [{"role": "user", "content": "hi"}]}, witnessed(quiet))
    assert status == "error" and "nothing was compared" in message  # vacuous, never a pass


def test_a_log_read_from_statements_carries_its_content_digest() -> None:
    digest = _jcs(ARGS)
    statement = {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": "s", "digest": {"sha256": "ab" * 32}}],
        "predicateType": "https://in-toto.io/attestation/ai-agent-action/v0.1",
        "predicate": {
            "action": {
                "type": "tool_call",
                "method": "tools/call",
                "toolName": "pay/create",
                "timestamp": "2026-08-18T14:32:01.998Z",
                "durationMs": 5,
                "success": True,
            },
            "chain": {"previousHash": "genesis"},
            "contentDigest": {"request": {"sha256": digest}},
        },
    }
    log = read_chain("w.jsonl", json.dumps(statement).encode() + b"\n")[1]
    assert log["calls"][0]["request"] == digest
    assert judge(pi(("c1", "pay/create", ARGS, "ok", False)), log)[0] == "passed"


def test_a_transcript_file_with_more_than_one_active_history_is_not_judged() -> None:
    """A harness file holding two active histories (read by the transcript reader: facts of a
    type no record has) cannot be paired with one log: an error, never a pass."""
    from verifier.values.witness import TranscriptFacts

    gateway = Gateway()
    gateway.call("pay/create")
    result = {"content": "ok", "isError": False, "interrupted": False}
    call: dict[str, Any] = {"id": "c1", "name": "pay/create", "arguments": None, "ended": False}
    call["result"] = result
    one = {"name": "a", "shape": "pi", "active": True, "calls": [call]}
    held = TranscriptFacts(transcripts=[one, {**one, "name": "b"}])
    assert judge(held, witnessed(gateway))[0] == "error"
    alone = TranscriptFacts(transcripts=[one])
    assert judge(alone, witnessed(gateway))[0] == "passed"
