"""Property tests over generated histories, in every shape (and both pairings where a shape
has two: OpenAI tool_calls and legacy function_call, Gemini with and without ids).

For any history: ``check(repair(h))`` has no dangling call and nothing repair does not list
as left for the user (reused ids, results that answer nothing: repair does not change or
delete entries), and is clean when ``h`` had only dangling calls; ``repair(repair(h)) ==
repair(h)``; repair only adds: every message and part it was given comes out, the same, in
its order; and its output passes the shape's own ordering rules, written here independently
of the checker from what each provider enforces, whenever no result answering nothing was in
``h``. The Responses variant ``openai-responses-items`` mixes every call item the shape pairs
(custom tool, computer, local shell, MCP calls left ``in_progress`` or finished later)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from itertools import takewhile
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier.transcripts import SHAPES
from verifier.transcripts.check import load
from verifier.transcripts.pairing import INTERRUPTED_MARKER
from verifier.transcripts.repair import repair_bytes, repaired_messages

# An abstract history: ("user", as_blocks), ("model", calls, text), ("results", answers,
# trailing_text),
# where calls and answers are (id, tool name) pairs drawn from small pools, so that
# duplicates, orphans, late results and reused ids all happen.
Pair = tuple[str, str]
Turn = tuple[Any, ...]

pairs = st.tuples(st.sampled_from("abcd"), st.sampled_from(["f", "g"]))
turns = st.one_of(
    st.tuples(st.just("user"), st.booleans()),
    st.tuples(st.just("model"), st.lists(pairs, max_size=3), st.booleans()),
    st.tuples(st.just("results"), st.lists(pairs, min_size=1, max_size=3), st.booleans()),
)
histories = st.lists(turns, max_size=8)


def render_chat(history: list[Turn]) -> list[Any]:
    out: list[Any] = []
    for turn in history:
        if turn[0] == "user":
            out.append({"role": "user", "content": "u"})
        elif turn[0] == "model":
            msg: dict[str, Any] = {"role": "assistant", "content": "t" if turn[2] else None}
            if turn[1]:
                msg["tool_calls"] = [
                    {"id": i, "type": "function", "function": {"name": n, "arguments": "{}"}}
                    for i, n in turn[1]
                ]
            out.append(msg)
        else:
            out += [{"role": "tool", "tool_call_id": i, "content": "r"} for i, _ in turn[1]]
            out += [{"role": "user", "content": "u"}] if turn[2] else []
    return out


def render_legacy(history: list[Turn]) -> list[Any]:
    out: list[Any] = []
    for turn in history:
        if turn[0] == "user":
            out.append({"role": "user", "content": "u"})
        elif turn[0] == "model":
            msg: dict[str, Any] = {"role": "assistant", "content": "t" if turn[2] else None}
            if turn[1]:
                msg["function_call"] = {"name": turn[1][0][1], "arguments": "{}"}
            out.append(msg)
        else:
            out += [{"role": "function", "name": n, "content": "r"} for _, n in turn[1]]
            out += [{"role": "user", "content": "u"}] if turn[2] else []
    return out


def render_responses(history: list[Turn]) -> list[Any]:
    out: list[Any] = []
    for turn in history:
        if turn[0] == "user":
            out.append({"type": "message", "role": "user", "content": "u"})
        elif turn[0] == "model":
            out.append({"type": "reasoning", "id": "rs", "summary": []})
            if turn[2]:
                out.append({"type": "message", "role": "assistant", "content": "t"})
            out += [
                {"type": "function_call", "call_id": i, "name": n, "arguments": "{}"}
                for i, n in turn[1]
            ]
        else:
            out += [
                {"type": "function_call_output", "call_id": i, "output": "r"} for i, _ in turn[1]
            ]
            out += [{"type": "message", "role": "user", "content": "u"}] if turn[2] else []
    return out


ITEM_KINDS = ("function_call", "custom_tool_call", "computer_call", "local_shell_call", "mcp_call")


def render_responses_items(history: list[Turn]) -> list[Any]:
    """Responses items of every kind the shape pairs, the kind drawn from the call's id and
    place: an MCP call carries its result inline (or is left ``in_progress``, its result a
    later ``mcp_call`` record), the others are answered by their own output item."""
    out: list[Any] = []
    made: dict[str, str] = {}  # call id -> the kind of its latest call
    for turn in history:
        if turn[0] == "user":
            out.append({"type": "message", "role": "user", "content": "u"})
        elif turn[0] == "model":
            out.append({"type": "reasoning", "id": "rs", "summary": []})
            for i, n in turn[1]:
                kind = ITEM_KINDS[(ord(i) + len(out)) % len(ITEM_KINDS)]
                made[i] = kind
                if kind == "mcp_call":
                    item: dict[str, Any] = {"type": kind, "id": i, "name": n, "arguments": "{}"}
                    item |= {"status": "completed", "output": "r"} if turn[2] else {}
                    item |= {} if turn[2] else {"status": "in_progress"}
                else:
                    item = {"type": kind, "id": "it_" + i, "call_id": i, "status": "completed"}
                    item |= {"name": n, "arguments": "{}"} if kind == "function_call" else {}
                    item |= {"name": n, "input": "x"} if kind == "custom_tool_call" else {}
                    item |= {"action": {"type": "click"}} if kind == "computer_call" else {}
                    item |= {"action": {"type": "exec"}} if kind == "local_shell_call" else {}
                out.append(item)
        else:
            for i, _ in turn[1]:
                kind = made.get(i, "function_call")
                if kind == "mcp_call":
                    out.append({"type": kind, "id": i, "status": "completed", "output": "r"})
                elif kind == "local_shell_call":
                    out.append({"type": "local_shell_call_output", "id": i, "output": "r"})
                else:
                    out.append({"type": kind + "_output", "call_id": "x" + i if turn[2] else i})
                    out[-1]["output"] = "r"
            out += [{"type": "message", "role": "user", "content": "u"}] if turn[2] else []
    return out


def render_anthropic(history: list[Turn]) -> list[Any]:
    out: list[Any] = []
    for turn in history:
        if turn[0] == "user":
            out.append(
                {"role": "user", "content": [{"type": "text", "text": "u"}] if turn[1] else "u"}
            )
        elif turn[0] == "model":
            blocks: list[Any] = [{"type": "text", "text": "t"}] if turn[2] or not turn[1] else []
            blocks += [{"type": "tool_use", "id": i, "name": n, "input": {}} for i, n in turn[1]]
            out.append({"role": "assistant", "content": blocks})
        else:
            blocks = [{"type": "tool_result", "tool_use_id": i, "content": "r"} for i, _ in turn[1]]
            blocks += [{"type": "text", "text": "u"}] if turn[2] else []
            out.append({"role": "user", "content": blocks})
    return out


def render_gemini(history: list[Turn], ids: bool = True) -> list[Any]:
    def named(kind: str, i: str, n: str, **more: Any) -> dict[str, Any]:
        return {kind: {"name": n, **({"id": i} if ids else {}), **more}}

    out: list[Any] = []
    for turn in history:
        if turn[0] == "user":
            out.append({"role": "user", "parts": [{"text": "u"}]})
        elif turn[0] == "model":
            parts: list[Any] = [{"text": "t"}] if turn[2] or not turn[1] else []
            parts += [named("functionCall", i, n, args={}) for i, n in turn[1]]
            out.append({"role": "model", "parts": parts})
        else:
            parts = [named("functionResponse", i, n, response={"output": "r"}) for i, n in turn[1]]
            parts += [{"text": "u"}] if turn[2] else []
            out.append({"role": "user", "parts": parts})
    return out


def render_pydantic(history: list[Turn]) -> list[Any]:
    def answer(k: int, i: str, n: str) -> dict[str, Any]:
        if k % 2:  # a retry prompt that names its tool answers the call too
            return {"part_kind": "retry-prompt", "tool_name": n, "tool_call_id": i, "content": "r"}
        return {"part_kind": "tool-return", "tool_name": n, "tool_call_id": i, "content": "r"}

    out: list[Any] = []
    for turn in history:
        if turn[0] == "user":
            out.append({"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "u"}]})
        elif turn[0] == "model":
            parts: list[Any] = [{"part_kind": "text", "content": "t"}] if turn[2] else []
            parts += [
                {"part_kind": "tool-call", "tool_name": n, "tool_call_id": i, "args": {}}
                for i, n in turn[1]
            ]
            out.append({"kind": "response", "parts": parts, "timestamp": "2025-01-01T00:00:00Z"})
        else:
            parts = [answer(k, i, n) for k, (i, n) in enumerate(turn[1])]
            parts += [{"part_kind": "retry-prompt", "tool_name": None, "content": "u"}] * turn[2]
            out.append({"kind": "request", "parts": parts})
    return out


def render_pi(history: list[Turn]) -> list[Any]:
    out: list[Any] = []
    for turn in history:
        if turn[0] == "user":
            out.append({"role": "user", "content": "u"})
        elif turn[0] == "model":
            blocks: list[Any] = [{"type": "text", "text": "t"}] if turn[2] else []
            blocks += [
                {"type": "toolCall", "id": i, "name": n, "arguments": {}} for i, n in turn[1]
            ]
            out.append({"role": "assistant", "content": blocks, "timestamp": 1})
        else:
            out += [
                {"role": "toolResult", "toolCallId": i, "toolName": n, "content": "r"}
                for i, n in turn[1]
            ]
            out += [{"role": "user", "content": "u"}] if turn[2] else []
    return out


# --- each provider's ordering rules, independent of verifier.transcripts.pairing ---------------


def chat_ok(msgs: list[Any]) -> bool:
    """Every tool_calls id (and legacy function_call) answered by the tool/function messages
    directly after the assistant message, each exactly once; none anywhere else."""
    i = 0
    while i < len(msgs):
        m = msgs[i]
        if m["role"] == "assistant" and (m.get("tool_calls") or m.get("function_call")):
            want = Counter(tc["id"] for tc in m.get("tool_calls") or [])
            want_fn = Counter([m["function_call"]["name"]] if m.get("function_call") else [])
            got: Counter[str] = Counter()
            got_fn: Counter[str] = Counter()
            i += 1
            while i < len(msgs) and msgs[i]["role"] in ("tool", "function"):
                if msgs[i]["role"] == "tool":
                    got[msgs[i]["tool_call_id"]] += 1
                else:
                    got_fn[msgs[i]["name"]] += 1
                i += 1
            if got != want or got_fn != want_fn:
                return False
        elif m["role"] in ("tool", "function"):
            return False
        else:
            i += 1
    return True


def pi_ok(msgs: list[Any]) -> bool:
    i = 0
    while i < len(msgs):
        m = msgs[i]
        calls = [b for b in m.get("content") or [] if isinstance(b, dict)]
        want = Counter(b["id"] for b in calls if b.get("type") == "toolCall")
        if m["role"] == "assistant" and want:
            got: Counter[str] = Counter()
            i += 1
            while i < len(msgs) and msgs[i]["role"] == "toolResult":
                got[msgs[i]["toolCallId"]] += 1
                i += 1
            if got != want:
                return False
        elif m["role"] == "toolResult":
            return False
        else:
            i += 1
    return True


def responses_ok(items: list[Any]) -> bool:
    """Each run of model output (reasoning, assistant message, function_call) is followed by
    the outputs of exactly its calls, by call_id; no output anywhere else."""

    def model(it: Any) -> bool:
        return it["type"] in ("reasoning", "function_call") or it.get("role") == "assistant"

    i = 0
    while i < len(items):
        if model(items[i]):
            calls: Counter[str] = Counter()
            while i < len(items) and model(items[i]):
                if items[i]["type"] == "function_call":
                    calls[items[i]["call_id"]] += 1
                i += 1
            got: Counter[str] = Counter()
            while i < len(items) and items[i]["type"] == "function_call_output":
                got[items[i]["call_id"]] += 1
                i += 1
            if got != calls:
                return False
        elif items[i]["type"] == "function_call_output":
            return False
        else:
            i += 1
    return True


def anthropic_ok(msgs: list[Any]) -> bool:
    """Consecutive same-role messages count as one (the API joins them); every assistant
    turn's tool_use ids are the leading tool_result blocks of the next user turn, exactly."""
    merged: list[tuple[str, list[Any]]] = []
    for m in msgs:
        blocks = m["content"] if isinstance(m["content"], list) else [{"type": "text"}]
        if merged and merged[-1][0] == m["role"]:
            merged[-1][1].extend(blocks)
        else:
            merged.append((m["role"], list(blocks)))
    for k, (role, blocks) in enumerate(merged):
        ids = Counter(b["id"] for b in blocks if b["type"] == "tool_use")
        if role == "assistant":
            if not ids:
                continue
            if k + 1 == len(merged):
                return False
            lead = takewhile(lambda b: b["type"] == "tool_result", merged[k + 1][1])
            if Counter(b["tool_use_id"] for b in lead) != ids:
                return False
        else:
            types = [b["type"] for b in blocks]
            leading = len(list(takewhile(lambda t: t == "tool_result", types)))
            if "tool_result" in types[leading:]:
                return False
            before = merged[k - 1][1] if k else []
            if leading and not any(b["type"] == "tool_use" for b in before):
                return False
    return True


def gemini_ok(contents: list[Any]) -> bool:
    """A model turn with N function calls is followed at once by one turn with N function
    responses, with the same ids (without ids: the same names); responses nowhere else."""

    def of(c: Any, key: str) -> list[Any]:
        return [p[key] for p in c["parts"] if key in p]

    for k, c in enumerate(contents):
        calls, responses = of(c, "functionCall"), of(c, "functionResponse")
        if c["role"] == "model" and calls:
            if k + 1 == len(contents) or contents[k + 1]["role"] == "model":
                return False
            answers = of(contents[k + 1], "functionResponse")
            key = "id" if all("id" in x for x in calls) else "name"
            if Counter(x.get(key) for x in answers) != Counter(x.get(key) for x in calls):
                return False
        if responses and (k == 0 or not of(contents[k - 1], "functionCall")):
            return False
    return True


def pydantic_ok(msgs: list[Any]) -> bool:
    """Consecutive requests count as one (pydantic-ai joins them); a response's tool calls are
    answered (tool-return, or retry-prompt naming the tool) first in the next request."""

    def is_result(p: Any) -> bool:
        return p["part_kind"] == "tool-return" or (
            p["part_kind"] == "retry-prompt" and p.get("tool_name") is not None
        )

    merged: list[tuple[str, list[Any]]] = []
    for m in msgs:
        if merged and merged[-1][0] == m["kind"] == "request":
            merged[-1][1].extend(m["parts"])
        else:
            merged.append((m["kind"], list(m["parts"])))
    for k, (kind, parts) in enumerate(merged):
        if kind == "response":
            ids = Counter(p["tool_call_id"] for p in parts if p["part_kind"] == "tool-call")
            if not ids:
                continue
            if k + 1 == len(merged):
                return False
            lead = takewhile(is_result, merged[k + 1][1])
            if Counter(p["tool_call_id"] for p in lead) != ids:
                return False
        else:
            leading = len(list(takewhile(is_result, parts)))
            if any(is_result(p) for p in parts[leading:]):
                return False
            before = merged[k - 1][1] if k else []
            if leading and not any(p["part_kind"] == "tool-call" for p in before):
                return False
    return True


Renderer = Callable[[list[Turn]], list[Any]]
RULES: dict[str, tuple[str, Renderer, Callable[[list[Any]], bool]]] = {
    "openai-chat": ("openai-chat", render_chat, chat_ok),
    "openai-chat-legacy": ("openai-chat", render_legacy, chat_ok),
    "openai-responses": ("openai-responses", render_responses, responses_ok),
    "openai-responses-items": ("openai-responses", render_responses_items, lambda _: True),
    "anthropic": ("anthropic", render_anthropic, anthropic_ok),
    "gemini": ("gemini", render_gemini, gemini_ok),
    "gemini-no-ids": ("gemini", lambda h: render_gemini(h, ids=False), gemini_ok),
    "pydantic-ai": ("pydantic-ai", render_pydantic, pydantic_ok),
    "pi": ("pi", render_pi, pi_ok),
}
EXAMPLES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_every_shape_has_its_rules() -> None:
    assert {shape for shape, _, _ in RULES.values()} == set(SHAPES)


def codes_of(data: bytes, shape: str) -> Counter[str]:
    return Counter(f.code for f in load(data, "h.json", shape).findings())


def subsequence(small: list[Any], big: list[Any]) -> bool:
    rest = iter(big)
    return all(any(x == y for y in rest) for x in small)


UNMATCHED = (
    "transcript.orphan-result",
    "transcript.duplicate-result",
    "transcript.misplaced-result",
)


@pytest.mark.parametrize("variant", sorted(RULES))
@EXAMPLES
@given(history=histories)
def test_repair_output_is_clean_idempotent_and_accepted(variant: str, history: list[Turn]) -> None:
    shape, render, rules_ok = RULES[variant]
    data = json.dumps(render(history)).encode()
    once = repair_bytes(data, "h.json", shape)
    # check(repair(h)) has no dangling call, and holds only what repair leaves alone because
    # it would mean changing or deleting an entry: reused ids, results that answer their call
    # by id while naming another tool (Gemini results carry both), results that answer no
    # open call (kept: each stays unmatched, a misplaced one may become a duplicate of the
    # synthetic result). A reuse of an id whose earlier call dangled is an error before and,
    # once repair answers that call, a note after: the reuses stay, and none becomes an error.
    after = codes_of(once.output, shape)
    reuses = ("transcript.reused-id", "transcript.reused-answered-id")
    # an id the format says is unique, used twice, stays so (repair changes no id)
    kept = {*reuses, "transcript.name-mismatch", "transcript.duplicate-id", *UNMATCHED}
    # a history with no message stays empty (repair only adds results to calls it was given)
    assert set(after) <= kept | {"transcript.empty"}
    before = codes_of(data, shape)
    assert after["transcript.duplicate-id"] == before["transcript.duplicate-id"]
    assert after["transcript.empty"] == before["transcript.empty"]
    assert after["transcript.name-mismatch"] == before["transcript.name-mismatch"]
    assert sum(after[c] for c in reuses) == sum(before[c] for c in reuses)
    assert after["transcript.reused-id"] <= before["transcript.reused-id"]
    assert sum(after[c] for c in UNMATCHED) == sum(before[c] for c in UNMATCHED)
    assert Counter(f.code for f in once.remaining) == after
    # repair only adds: the input's messages (parts) are in the output, value-equal, in order
    assert subsequence(leaves(shape, render(history)), leaves(shape, json.loads(once.output)))
    if set(before) <= {"transcript.dangling-call"}:
        assert not after  # only dangling calls: the output checks clean
    # repair(repair(h)) == repair(h)
    twice = repair_bytes(once.output, "h.json", shape)
    assert twice.output == once.output and not twice.changed
    # the provider's own ordering rules accept it, when nothing in it answers no call
    if not any(after[c] for c in UNMATCHED):
        assert rules_ok(json.loads(once.output))
    # a history the checker finds clean is one the provider accepts, and repair leaves it be
    if not codes_of(data, shape):
        assert rules_ok(json.loads(data)) and once.output == data


def leaves(shape: str, messages: list[Any]) -> list[Any]:
    """What repair may not drop or reorder: messages, or in part shapes, parts."""
    adapter = SHAPES[shape]
    if not adapter.part_layout:
        return list(messages)
    out: list[Any] = []
    for m in messages:
        parts = m.get(adapter.parts_key)
        out.extend(parts if isinstance(parts, list) else [m])
    return out


@pytest.mark.parametrize("variant", sorted(RULES))
@EXAMPLES
@given(history=histories)
def test_repair_only_adds_every_entry_kept_the_same_in_order(
    variant: str, history: list[Turn]
) -> None:
    shape, render, _ = RULES[variant]
    loaded = load(json.dumps(render(history)).encode(), "h.json", shape)
    messages, pairing = loaded.document.messages, loaded.pairing
    out, added = repaired_messages(loaded.shape, messages, pairing)
    before, after = leaves(shape, messages), leaves(shape, out)
    # every input leaf is in the output, the very same object, in its order
    originals = {id(leaf) for leaf in before}
    assert [id(leaf) for leaf in after if id(leaf) in originals] == [id(leaf) for leaf in before]
    part_layout = loaded.shape.part_layout
    # everything new is an explicit interruption result, one per dangling call
    new = [leaf for leaf in after if id(leaf) not in originals]
    assert len(new) == len(added) == len(pairing.dangling)
    assert all(INTERRUPTED_MARKER in json.dumps(leaf) for leaf in new)
    # touched messages keep every member but their parts
    if part_layout:
        key = loaded.shape.parts_key
        rebuilt = [m for m in out if all(id(p) in originals for p in m.get(key) or [])]
        assert all(any({**o, key: None} == {**m, key: None} for o in messages) for m in rebuilt)
