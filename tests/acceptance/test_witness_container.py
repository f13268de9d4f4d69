"""``witnessed-calls`` over a transcript as the harness stores it: a Claude Code session (JSON
Lines) that the spec's ``transcripts`` declare, compared with the gateway's witness log of the
same session, in a copy of the bundled archive. Agreeing records pass; a witness that saw the
tool succeed where the session holds an error, or a call the session does not hold, fails; a
container holding more than one active history is not judged, never passed."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import rfc8785

from tests.conftest import copy_bundled, rewrite_manifest
from tests.gateway import Gateway

SESSION = "evidence/session/run.jsonl"
LOG = "evidence/witness/audit.jsonl"
Call = tuple[str, str, dict[str, Any], str, bool]  # id, tool, arguments, result text, error
Seen = tuple[str, dict[str, Any], bool]  # tool, arguments, success
CALLS: list[Call] = [
    ("toolu_1", "lookup_order", {"order": "o-17"}, "found", False),
    ("toolu_2", "create_payment", {"amount": 1200, "currency": "eur"}, "card declined", True),
]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", *args], capture_output=True, text=True, check=False
    )


def session(calls: list[Call]) -> bytes:
    """A Claude Code session: a prompt, then each call and its result, chained by uuid."""
    lines: list[dict[str, Any]] = []

    def add(kind: str, message: dict[str, Any]) -> None:
        parent = lines[-1]["uuid"] if lines else None
        lines.append(
            {
                "type": kind,
                "uuid": f"u{len(lines) + 1}",
                "parentUuid": parent,
                "sessionId": "s-1",
                "message": message,
            }
        )

    add("user", {"role": "user", "content": "pay order o-17"})
    for n, (cid, tool, arguments, text, error) in enumerate(calls):
        add(
            "assistant",
            {
                "id": f"msg_{n}",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": cid, "name": tool, "input": arguments}],
            },
        )
        result = {"type": "tool_result", "tool_use_id": cid, "content": text, "is_error": error}
        add("user", {"role": "user", "content": [result]})
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def log(calls: list[Seen]) -> bytes:
    gateway = Gateway()
    for tool, arguments, success in calls:
        digest = hashlib.sha256(rfc8785.dumps(arguments)).hexdigest()
        gateway.call(tool, success=success, contentDigestRequest=digest)
    return gateway.log()


def archive(tmp_path: Path, witness: bytes, held: bytes | None = None) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    root = copy_bundled(tmp_path / "archive")
    for name, data in ((SESSION, held if held is not None else session(CALLS)), (LOG, witness)):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    spec_path = root / "evidence" / "assertions.json"
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    spec["transcripts"] = [{"files": "evidence/session/*.jsonl", "shape": "claude-code"}]
    spec["witnesses"] = [{"files": "evidence/witness/*.jsonl"}]
    spec["assertions"].append(
        {
            "id": "session.witnessed",
            "kind": "witnessed-calls",
            "description": "The gateway witnessed the session's calls.",
            "transcript": SESSION,
            "witness": LOG,
        }
    )
    spec_path.write_text(json.dumps(spec, indent=2) + "\n", encoding="utf-8")
    rewrite_manifest(root)
    return root


def verdict(root: Path) -> dict[str, Any]:
    proc = cli("check", str(root), "--format", "json")
    report = json.loads(proc.stdout)
    found = [a for a in report["assertions"] if a["id"] == "session.witnessed"]
    assert len(found) == 1, proc.stdout[-2000:]
    result: dict[str, Any] = found[0]
    result["exit"] = proc.returncode
    return result


HONEST: list[Seen] = [(tool, arguments, not error) for _, tool, arguments, _, error in CALLS]


def test_a_session_the_witness_agrees_with_passes(tmp_path: Path) -> None:
    result = verdict(archive(tmp_path, log(HONEST)))
    assert result["status"] == "passed", result
    assert "2 call(s) witnessed in order" in result["message"]
    assert "2 request digest(s) equal" in result["message"]


def test_a_witnessed_success_where_the_session_holds_an_error_fails(tmp_path: Path) -> None:
    lying: list[Seen] = [(tool, arguments, True) for tool, arguments, _ in HONEST]
    result = verdict(archive(tmp_path, log(lying)))
    assert result["status"] == "failed" and result["exit"] == 1
    assert "the transcript's result is an error, the witness saw it succeeded" in result["message"]


def test_other_arguments_or_a_call_the_session_lacks_fail(tmp_path: Path) -> None:
    changed: list[Seen] = [
        HONEST[0],
        ("create_payment", {"amount": 9900, "currency": "eur"}, False),
    ]
    result = verdict(archive(tmp_path / "a", log(changed)))
    assert result["status"] == "failed"
    assert "request digest is not that of the call's arguments" in result["message"]
    more: list[Seen] = [*HONEST, ("refund_payment", {"amount": 1200}, True)]
    result = verdict(archive(tmp_path / "b", log(more)))
    assert result["status"] == "failed"
    assert "that the transcript does not hold" in result["message"]


def test_a_session_with_no_call_is_never_a_pass(tmp_path: Path) -> None:
    result = verdict(archive(tmp_path, log([]), session([])))
    assert result["status"] == "error", result
