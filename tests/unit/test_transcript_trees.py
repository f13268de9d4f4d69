"""Tree histories (Pi ``id``/``parentId``, Claude Code ``uuid``/``parentUuid``): every line is
an entry of its own, whatever id it carries (a reused id is ``transcript.duplicate-id``, and
the calls of both lines are judged), and reading a tree is linear in its entries (counted,
not timed: ``benchmarks/trees.py`` times a 20,000-entry session)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from verifier.transcripts.check import check_bytes
from verifier.transcripts.containers import tree
from verifier.transcripts.containers.tree import Node, paths, roots

DUPLICATE = "transcript.duplicate-id"


def jsonl(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def pi_rows(*entries: tuple[str, str | None, dict[str, Any]]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "s", "cwd": "/"}]
    for key, parent, message in entries:
        rows.append({"type": "message", "id": key, "parentId": parent, "message": message})
    return rows


PI_CALL = {
    "role": "assistant",
    "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {}}],
    "stopReason": "toolUse",
}
PI_TEXT = {"role": "assistant", "content": [{"type": "text", "text": "done"}], "stopReason": "stop"}
PI_USER = {"role": "user", "content": "hi"}


def test_a_pi_entry_reusing_an_id_is_a_finding_and_hides_no_call() -> None:
    # today's main: the second 'b' replaced the first, its call vanished, exit 0
    data = jsonl(pi_rows(("a", None, PI_USER), ("b", "a", PI_CALL), ("b", "a", PI_TEXT)))
    report = check_bytes(data, "session.jsonl")
    codes = sorted(f.code for f in report.findings)
    assert DUPLICATE in codes
    assert not report.ok
    assert report.calls == 1  # the first 'b' line's call is read, and judged
    assert "transcript.abandoned-dangling-call" in codes
    dup = next(f for f in report.findings if f.code == DUPLICATE)
    assert dup.line == 4 and "lines 3 and 4" in dup.message and dup.index is None


def test_a_pi_reused_id_on_the_active_path_keeps_both_lines() -> None:
    # 'b' twice on one chain: the call line, then a text line reusing its id, then a child of
    # 'b' (the nearest earlier one is the second): the call is dangling on the active path
    data = jsonl(
        pi_rows(("a", None, PI_USER), ("b", "a", PI_CALL), ("b", "b", PI_TEXT), ("c", "b", PI_USER))
    )
    report = check_bytes(data, "session.jsonl")
    codes = sorted(f.code for f in report.findings)
    assert codes == ["transcript.dangling-call", DUPLICATE]
    assert len(report.transcripts) == 1


def cc_line(uuid: str, parent: str | None, kind: str, message: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "message": message}


def test_a_claude_code_line_reusing_a_uuid_is_a_finding_and_hides_no_call() -> None:
    call = {
        "id": "m1",
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}],
    }
    text = {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "done"}]}
    rows = [
        cc_line("u1", None, "user", {"role": "user", "content": "hi"}),
        cc_line("u2", "u1", "assistant", call),
        cc_line("u2", "u1", "assistant", text),
    ]
    report = check_bytes(jsonl(rows), "session.jsonl")
    codes = sorted(f.code for f in report.findings)
    assert DUPLICATE in codes
    assert not report.ok
    assert report.calls == 1


def test_every_node_is_on_a_path_whatever_its_key() -> None:
    nodes = [
        Node("a", None, 0),
        Node("b", "a", 1),
        Node("b", "a", 2),
        Node("c", "b", 3),
        Node("b", "c", 4),  # a third 'b', child of c
        Node("d", "b", 5),  # links to the nearest earlier 'b': line 4
    ]
    found = paths(nodes)
    assert {k for p in found for k in p.members} == {0, 1, 2, 3, 4, 5}
    assert found[-1].active and found[-1].members == (0, 2, 3, 4, 5)
    assert tree.duplicates(nodes) == [("b", [1, 2, 4])]
    assert len(set(roots(nodes))) == 1


def test_a_cycle_of_links_starts_a_root_at_its_first_node() -> None:
    nodes = [Node("x", "z", 0), Node("y", "x", 1), Node("z", "y", 2), Node("w", "y", 3)]
    assert roots(nodes) == [0, 0, 0, 0]
    assert {k for p in paths(nodes) for k in p.members} == {0, 1, 2, 3}


class CountingKey(str):
    """A key that counts how often it is hashed: a dict walk's steps."""

    hashed = 0

    def __hash__(self) -> int:
        CountingKey.hashed += 1
        return str.__hash__(self)


N = 3000  # quadratic: ~4.5 million steps; linear: a few per entry


def test_a_linear_tree_is_read_in_linear_steps() -> None:
    # today's main walked every entry's whole ancestor chain (cycle check): n*n/2 steps
    keys = [CountingKey(f"e{k}") for k in range(N)]
    nodes = [Node(keys[k], keys[k - 1] if k else None, k) for k in range(N)]
    CountingKey.hashed = 0
    found = paths(nodes)
    roots(nodes)
    assert len(found) == 1 and len(found[0].members) == N
    assert CountingKey.hashed <= 20 * N, CountingKey.hashed


def test_claude_code_absorbing_split_messages_is_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    # each message is split over two lines (parallel calls), the second hanging off the first
    # as a side branch: today's main counted the whole path again for every one absorbed
    from verifier.transcripts.containers import claude_code

    calls = [0]
    real = claude_code._message

    def counted(line: Any) -> Any:
        calls[0] += 1
        return real(line)

    rows: list[dict[str, Any]] = [cc_line("r", None, "user", {"role": "user", "content": "go"})]
    prev = "r"
    groups = 600
    for g in range(groups):
        mid = f"m{g}"
        use = [{"type": "tool_use", "id": f"t{g}{x}", "name": "Bash", "input": {}} for x in "ab"]
        results = [
            {"type": "tool_result", "tool_use_id": f"t{g}{x}", "content": "ok"} for x in "ab"
        ]
        rows.append(
            cc_line(
                f"a{g}", prev, "assistant", {"id": mid, "role": "assistant", "content": use[:1]}
            )
        )
        rows.append(
            cc_line(
                f"b{g}", f"a{g}", "assistant", {"id": mid, "role": "assistant", "content": use[1:]}
            )
        )
        rows.append(cc_line(f"r{g}", f"a{g}", "user", {"role": "user", "content": results}))
        prev = f"r{g}"
    monkeypatch.setattr(claude_code, "_message", counted)
    report = check_bytes(jsonl(rows), "split.jsonl")
    assert report.ok, [f.message for f in report.findings]
    assert report.calls == 2 * groups and len(report.transcripts) == 1
    assert calls[0] <= 20 * len(rows), calls[0]
