"""Time ``transcript check`` on generated linear tree sessions (Pi and Claude Code).

    python benchmarks/trees.py [--entries 20000] [--repeat 3]

Prints one JSON object: the session's size in bytes and the seconds (the median of
``--repeat`` runs) :func:`verifier.transcripts.check.check_bytes` takes on a linear Pi
session, a linear Claude Code session and a Claude Code session whose every message is split
over two lines (the second a side branch absorbed into the path), each of ``--entries``
entries. Reading a tree is linear in its entries (issue 34: a 20,000-entry session took over
100 s when every entry's ancestor chain was walked); ``tests/unit/test_transcript_trees.py``
counts the steps, this only shows the time. Then the pairing and repair paths issue 34 found
quadratic (one message of parallel calls answered backwards; repairing a Pi session of
dangling calls, a tau-bench file of many runs): ``tests/unit/test_transcript_linear.py``
counts their steps.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any


def _jsonl(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def pi_session(n: int) -> bytes:
    rows: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "s", "cwd": "/"}]
    for k in range(n):
        if k % 2 == 0:
            block = {"type": "toolCall", "id": f"c{k}", "name": "bash", "arguments": {}}
            msg: dict[str, Any] = {"role": "assistant", "content": [block], "stopReason": "toolUse"}
        else:
            text = [{"type": "text", "text": "ok"}]
            msg = {"role": "toolResult", "toolCallId": f"c{k - 1}", "content": text}
        parent = f"e{k - 1}" if k else None
        rows.append({"type": "message", "id": f"e{k}", "parentId": parent, "message": msg})
    return _jsonl(rows)


def claude_session(n: int, split: bool = False) -> bytes:
    rows: list[dict[str, Any]] = []
    prev = None
    for g in range(n // 3 if split else n // 2):
        uses = [{"type": "tool_use", "id": f"t{g}{x}", "name": "Bash", "input": {}} for x in "ab"]
        got = [{"type": "tool_result", "tool_use_id": f"t{g}{x}", "content": "ok"} for x in "ab"]
        mid = f"m{g}"
        if split:
            first = {"id": mid, "role": "assistant", "content": uses[:1]}
            rows.append(
                {"type": "assistant", "uuid": f"a{g}", "parentUuid": prev, "message": first}
            )
            second = {"id": mid, "role": "assistant", "content": uses[1:]}
            rows.append(
                {"type": "assistant", "uuid": f"b{g}", "parentUuid": f"a{g}", "message": second}
            )
        else:
            whole = {"id": mid, "role": "assistant", "content": uses}
            rows.append(
                {"type": "assistant", "uuid": f"a{g}", "parentUuid": prev, "message": whole}
            )
        answer = {"role": "user", "content": got}
        rows.append({"type": "user", "uuid": f"r{g}", "parentUuid": f"a{g}", "message": answer})
        prev = f"r{g}"
    return _jsonl(rows)


def pi_dangling(n: int) -> bytes:
    """A linear Pi session of ``n`` calls none of which has a result: repair adds ``n``."""
    rows: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "s", "cwd": "/"}]
    for k in range(n):
        block = {"type": "toolCall", "id": f"c{k}", "name": "bash", "arguments": {}}
        msg = {"role": "assistant", "content": [block], "stopReason": "toolUse"}
        parent = f"e{k - 1}" if k else None
        rows.append({"type": "message", "id": f"e{k}", "parentId": parent, "message": msg})
    return _jsonl(rows)


def chat_parallel_backwards(n: int) -> bytes:
    """One OpenAI chat message of ``n`` parallel calls, answered in reverse order."""
    calls = [
        {"id": f"c{k}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        for k in range(n)
    ]
    done = [{"role": "tool", "tool_call_id": f"c{k}", "content": "ok"} for k in reversed(range(n))]
    msgs = [{"role": "user", "content": "go"}, {"role": "assistant", "tool_calls": calls}, *done]
    return json.dumps(msgs).encode()


def tau_runs_dangling(n: int) -> bytes:
    """A tau-bench result list of ``n`` runs, each with one dangling call."""
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    traj = [{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": [call]}]
    return json.dumps([{"task_id": k, "traj": traj} for k in range(n)]).encode()


def main() -> None:
    from verifier.transcripts.check import check_bytes
    from verifier.transcripts.repair import repair_bytes

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cases: dict[str, Callable[[int], bytes]] = {
        "pi": pi_session,
        "claude-code": claude_session,
        "claude-code-split": lambda n: claude_session(n, split=True),
    }
    out: dict[str, Any] = {"entries": args.entries}
    for name, make in cases.items():
        data = make(args.entries)
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            report = check_bytes(data, f"{name}.jsonl")
            times.append(time.perf_counter() - start)
            assert report.ok, name
        out[name] = {"bytes": len(data), "seconds": round(statistics.median(times), 3)}
    # pairing and repair (tests/unit/test_transcript_linear.py counts their steps)
    checked: dict[str, tuple[Callable[[int], bytes], str]] = {
        "chat-parallel-backwards (check)": (chat_parallel_backwards, "t.json"),
    }
    repaired: dict[str, tuple[Callable[[int], bytes], str]] = {
        "pi-dangling (repair)": (pi_dangling, "s.jsonl"),
        "tau-bench-runs-dangling (repair)": (tau_runs_dangling, "results.json"),
    }
    for label, (make, file) in [*checked.items(), *repaired.items()]:
        data = make(args.entries)
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            if label in checked:
                assert check_bytes(data, file).ok, label
            else:
                assert not repair_bytes(data, file).remaining, label
            times.append(time.perf_counter() - start)
        out[label] = {"bytes": len(data), "seconds": round(statistics.median(times), 3)}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
