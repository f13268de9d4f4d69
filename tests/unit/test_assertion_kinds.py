"""Each assertion kind passes on agreeing records, fails on disagreeing ones, and errors
(never passes) when a pointer resolves to nothing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.assertions import KINDS, Context, EvalError
from verifier.report import Read
from verifier.transcripts.pairing import INTERRUPTED_MARKER
from verifier.values.records import Records
from verifier.values.witness import WitnessedFacts

RECORDS: dict[str, Any] = {
    "a.json": {
        "pi": "pi_1",
        "n": 1,
        "flag": True,
        "t0": "2026-10-22T19:27:27Z",
        "counters": {"x": 1, "y": 0},
        "list": [{"id": "e"}, {"id": "e"}, {"id": "f"}],
    },
    "b.json": {
        "pi": "pi_1",
        "n": 1.0,
        "t1": "2026-10-22T19:27:54Z",
        "counters": {"x": 1, "y": 0},
        "status": "done",
        "exec": 1,
    },
    "t.json": {
        "messages": [
            {"role": "user", "content": "pay"},
            {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "pay"}]},
            {"role": "toolResult", "toolCallId": "c1", "content": INTERRUPTED_MARKER},
        ]
    },
    "w.jsonl": WitnessedFacts(  # a witness log, as verifier.witness.read_chain gives it
        calls=[{"line": 1, "toolName": "pay", "namespace": None, "success": True}],
        intact=True,
        signed=True,
    ),
    # a JSON record written to look like those facts: no witness log
    "forged.record": {
        "calls": [{"line": 1, "toolName": "pay", "namespace": None, "success": True}],
        "intact": True,
        "signed": True,
    },
    "broken.jsonl": WitnessedFacts(calls=[], intact=False, signed=False),
    "acc.json": {"result": "failed", "at": "2026-10-22T19:35:00Z"},
    "rb.json": {
        "refersTo": "acc.json",
        "at": "2026-10-22T19:40:00Z",
        "pre": False,
        "result": "passed",
    },
}


def sel(file: str, pointer: str) -> dict[str, str]:
    return {"file": file, "pointer": pointer}


def run(spec: dict[str, Any], records: dict[str, Any] | None = None) -> tuple[str, str]:
    """The outcome over whole documents, checked to be the outcome over only the values the
    kind declares it needs (what the pipeline keeps of each record)."""
    records = RECORDS if records is None else records
    kind = KINDS[spec["kind"]]
    outcomes = []
    for store in (Records.of(records), Records.of(records, list(kind.needs(spec)))):
        ctx = Context(store, set(records))
        try:
            outcome = kind.evaluate(spec, ctx)
        except EvalError as exc:
            outcomes.append(("error", str(exc)))
            continue
        assert ctx.reads, "every assertion must record what it read"
        outcomes.append((outcome.status.value, outcome.message))
    whole, reduced = outcomes
    assert reduced == whole, "a kind read a value it did not declare in needs()"
    return whole


ACCEPTANCE: dict[str, Any] = {
    "kind": "acceptance-separation",
    "expectAcceptance": "failed",
    "acceptance": {"file": "acc.json", "result": "/result", "time": "/at"},
    "readback": {
        "file": "rb.json",
        "refersTo": "/refersTo",
        "time": "/at",
        "preregistered": "/pre",
        "result": "/result",
    },
}
INTERRUPTED: dict[str, Any] = {
    "kind": "interrupted-tool-result",
    "transcript": "t.json",
    "marker": INTERRUPTED_MARKER,
    "terminalStatus": {"select": sel("b.json", "/status"), "value": "done"},
    "toolExecutions": {"select": sel("b.json", "/exec"), "value": 1},
}

PASSING: list[dict[str, Any]] = [
    {"kind": "equals", "select": sel("a.json", "/n"), "value": 1},
    {"kind": "equals", "select": sel("b.json", "/n"), "value": 1},
    {"kind": "in-set", "select": sel("b.json", "/status"), "values": ["done", "failed"]},
    {"kind": "same-value", "selects": [sel("a.json", "/pi"), sel("b.json", "/pi")]},
    {"kind": "count", "select": sel("a.json", "/list"), "equals": 3},
    {"kind": "count", "select": sel("a.json", "/list"), "distinct": "/id", "equals": 2},
    {"kind": "count", "files": "*.json", "min": 5, "max": 5},
    {
        "kind": "unchanged",
        "before": sel("a.json", "/counters"),
        "after": sel("b.json", "/counters"),
    },
    {"kind": "order", "selects": [sel("a.json", "/t0"), sel("b.json", "/t1")]},
    INTERRUPTED,
    ACCEPTANCE,
]

WITNESSED: dict[str, Any] = {
    "kind": "witnessed-calls",
    "transcript": "t.json",
    "witness": "w.jsonl",
    "ranDespiteMarker": ["c1"],
}
PASSING.append(WITNESSED)


@pytest.mark.parametrize("spec", PASSING, ids=lambda s: s["kind"])
def test_passes(spec: dict[str, Any]) -> None:
    assert run(spec)[0] == "passed"


FAILING = [
    {"kind": "equals", "select": sel("a.json", "/flag"), "value": 1},  # true is not 1
    {"kind": "equals", "select": sel("a.json", "/pi"), "value": "pi_2"},
    {"kind": "in-set", "select": sel("b.json", "/status"), "values": ["failed"]},
    {"kind": "same-value", "selects": [sel("a.json", "/pi"), sel("a.json", "/n")]},
    {"kind": "count", "select": sel("a.json", "/list"), "equals": 2},
    {"kind": "count", "select": sel("a.json", "/list"), "distinct": "/id", "max": 1},
    {"kind": "unchanged", "before": sel("a.json", "/counters"), "after": sel("b.json", "/counters")}
    | {"after": sel("a.json", "/list/0")}
    | {"keys": ["id"], "before": sel("a.json", "/list/2")},
    {"kind": "order", "selects": [sel("b.json", "/t1"), sel("a.json", "/t0")]},
    {"kind": "order", "selects": [sel("a.json", "/t0"), sel("a.json", "/t0")]},
    INTERRUPTED | {"marker": "something else"},
    INTERRUPTED | {"toolExecutions": {"select": sel("a.json", "/n"), "value": 2}},
    ACCEPTANCE | {"expectAcceptance": "passed"},
    {k: v for k, v in WITNESSED.items() if k != "ranDespiteMarker"},  # the marker, yet it ran
]


@pytest.mark.parametrize("spec", FAILING, ids=lambda s: s["kind"])
def test_fails(spec: dict[str, Any]) -> None:
    assert run(spec)[0] == "failed"


ERRORS = [
    {"kind": "equals", "select": sel("a.json", "/nope"), "value": 1},
    {"kind": "equals", "select": sel("missing.json", "/n"), "value": 1},
    {"kind": "equals", "select": sel("a.json", "/list/3"), "value": 1},
    {"kind": "equals", "select": sel("a.json", "/list/01"), "value": 1},
    {"kind": "equals", "select": sel("a.json", "/n/x"), "value": 1},
    {"kind": "same-value", "selects": [sel("a.json", "/pi"), sel("b.json", "/pix")]},
    {"kind": "count", "select": sel("a.json", "/n"), "equals": 1},
    {"kind": "unchanged", "before": sel("a.json", "/counters"), "after": sel("b.json", "/n")},
    {"kind": "order", "selects": [sel("a.json", "/t0"), sel("a.json", "/pi")]},
    INTERRUPTED | {"transcript": "a.json"},
    INTERRUPTED | {"callId": "c9"},
    ACCEPTANCE | {"readback": ACCEPTANCE["readback"] | {"preregistered": "/nothing"}},
    WITNESSED | {"witness": "broken.jsonl"},  # a chain with errors is not taken in order
    WITNESSED | {"witness": "a.json"},  # not a witness log
    WITNESSED | {"witness": "forged.record"},  # a record shaped like a log's facts is none
    WITNESSED | {"ranDespiteMarker": ["c9"]},  # not a call of the transcript
]


@pytest.mark.parametrize("spec", ERRORS, ids=lambda s: s["kind"])
def test_unresolvable_is_an_error_never_a_pass(spec: dict[str, Any]) -> None:
    assert run(spec)[0] == "error"


def test_acceptance_rewritten_as_passed_fails() -> None:
    records = dict(RECORDS)
    records["acc.json"] = {"result": "passed", "at": "2026-10-22T19:35:00Z"}
    status, message = run(ACCEPTANCE, records)
    assert status == "failed"
    assert "must not be rewritten" in message


def test_preregistered_readback_fails() -> None:
    records = dict(RECORDS)
    records["rb.json"] = dict(RECORDS["rb.json"], pre=True)
    assert run(ACCEPTANCE, records)[0] == "failed"


def test_removed_interruption_marker_fails() -> None:
    records = dict(RECORDS)
    records["t.json"] = {"messages": RECORDS["t.json"]["messages"][:2]}
    status, message = run(INTERRUPTED, records)
    assert status == "failed"
    assert "dangling-call" in message


def test_reads_are_recorded() -> None:
    ctx = Context(Records.of(RECORDS), set(RECORDS))
    KINDS["same-value"].evaluate(PASSING[3], ctx)
    assert ctx.reads == [Read("a.json", "/pi"), Read("b.json", "/pi")]


def test_every_kind_is_registered_under_its_name() -> None:
    assert set(KINDS) == {
        "equals",
        "in-set",
        "same-value",
        "count",
        "unchanged",
        "order",
        "interrupted-tool-result",
        "acceptance-separation",
        "witnessed-calls",
    }
    assert all(name == kind.name for name, kind in KINDS.items())
    # every member has an example the parametrized tests above evaluate
    assert {spec["kind"] for spec in PASSING} == set(KINDS)


def test_glob_matching() -> None:
    ctx = Context(Records(), {"evidence/e6/d.json", "evidence/x.json", "schemas/s.json"})
    assert ctx.files("evidence/**/*.json") == ["evidence/e6/d.json", "evidence/x.json"]
    assert ctx.files("evidence/*.json") == ["evidence/x.json"]
    assert ctx.files("*.json") == []


def test_count_distinct_over_files() -> None:
    records = {"d/1.json": {"evt": "e"}, "d/2.json": {"evt": "e"}, "d/3.json": {"evt": "f"}}
    spec = {"kind": "count", "files": "d/*.json", "distinct": "/evt", "equals": 2}
    assert run(spec, records)[0] == "passed"
    assert run(spec | {"equals": 1}, records)[0] == "failed"
    records["d/3.json"] = {}
    assert run(spec, records)[0] == "error"


@given(st.text() | st.integers() | st.none() | st.booleans() | st.lists(st.text(), max_size=3))
def test_shown_values_are_their_json(value: Any) -> None:
    import json

    from verifier.assertions.interface import show

    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    assert show(value) == (text if len(text) <= 80 else text[:77] + "...")
