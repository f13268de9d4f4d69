"""What the consistency stage makes of each assertion, over whole documents and over the
reduced values the pipeline keeps (the two must agree): no vacuous pass, pointers that are
RFC 6901 or an error at their place in the spec, a missing file said to be missing on its
own path, and a kind's own bug reported as an internal error."""

from __future__ import annotations

from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier.assertions import KINDS, AssertionKind, Context, Outcome
from verifier.findings import Finding
from verifier.json.pointer import is_pointer
from verifier.judge.consistency import check_consistency
from verifier.plan.spec import needs_of
from verifier.report import AssertionResult, AssertionStatus
from verifier.values.needs import Need
from verifier.values.records import Records

SPEC = "evidence/assertions.json"
RECORDS: dict[str, Any] = {
    "evidence/a.json": {
        "pi": "pi_1",
        "empty": {},
        "none": [],
        "list": [{"id": "x"}, {"id": "y"}],
        "counters": {"n": 1},
        "t": "2026-10-22T19:27:27Z",
    },
    "evidence/b.json": {"pi": "pi_1", "empty": {}, "counters": {"n": 1}},
    "evidence/acc.json": {"result": "failed", "at": "2026-10-22T19:35:00Z"},
    "evidence/rb.json": {
        "refersTo": "evidence/acc.json",
        "at": "2026-10-22T19:40:00Z",
        "pre": False,
        "result": "passed",
    },
}


def sel(file: str, pointer: str) -> dict[str, str]:
    return {"file": file, "pointer": pointer}


A, B = "evidence/a.json", "evidence/b.json"


def check(
    assertions: list[Any],
    records: dict[str, Any] | None = None,
    manifested: set[str] | None = None,
    unread: dict[str, str] | None = None,
) -> tuple[list[Finding], list[AssertionResult]]:
    """The stage over whole documents, checked to agree with the stage over the values the
    kinds declare they need (what the pipeline keeps)."""
    records = RECORDS if records is None else records
    spec = {"assertions": assertions}
    listed = set(records) | {SPEC} if manifested is None else manifested
    outcomes = []
    for needs in (None, list(needs_of(spec))):
        store = Records.of(records, needs)
        store.add(SPEC, document=spec)
        stage, results = check_consistency(store, listed, SPEC, True, unread)
        outcomes.append((stage.findings, results))
    (whole, whole_results), (reduced, reduced_results) = outcomes
    assert reduced == whole, "a kind read a value it did not declare in needs()"
    assert [r.to_dict() for r in reduced_results] == [r.to_dict() for r in whole_results]
    for finding in whole:
        assert finding.pointer is None or is_pointer(finding.pointer), finding
    return whole, whole_results


def one(assertion: dict[str, Any], **kwargs: Any) -> Finding | None:
    findings, results = check([{"id": "x", "description": "d"} | assertion], **kwargs)
    assert len(results) == 1
    assert len(findings) == (results[0].status is not AssertionStatus.PASSED)
    return findings[0] if findings else None


# --- no vacuous pass -----------------------------------------------------------------------


def test_an_empty_assertion_list_is_vacuous() -> None:
    findings, results = check([])
    assert results == []
    assert [(f.code, f.path, f.pointer) for f in findings] == [
        ("assertion.vacuous", SPEC, "/assertions")
    ]


@pytest.mark.parametrize(
    "assertion",
    [
        {"kind": "unchanged", "before": sel(A, "/empty"), "after": sel(B, "/empty")},
        {"kind": "unchanged", "before": sel(A, "/counters"), "after": sel(B, "/counters")}
        | {"keys": []},
        {"kind": "count", "files": "evidence/nothing/*.json", "max": 3},
        {"kind": "count", "files": "evidence/nothing/*.json", "distinct": "/pi", "max": 3},
        {"kind": "count", "select": sel(A, "/none"), "max": 3},
        {"kind": "count", "select": sel(A, "/none"), "distinct": "/id", "max": 1},
        {"kind": "unchanged", "before": sel(A, "/counters"), "after": sel(A, "/counters")},
        {"kind": "same-value", "selects": [sel(A, "/pi"), sel(A, "/pi"), sel(A, "/pi")]},
        {"kind": "order", "selects": [sel(A, "/t"), sel(A, "/t")], "strict": False},
    ],
    ids=[
        "unchanged-empty",
        "unchanged-no-keys",
        "glob",
        "glob-distinct",
        "array",
        "distinct",
        "unchanged-itself",
        "same-value-itself",
        "order-itself",
    ],
)
def test_checking_nothing_is_vacuous_never_a_pass(assertion: dict[str, Any]) -> None:
    finding = one(assertion)
    assert finding is not None and finding.code == "assertion.vacuous", finding


@pytest.mark.parametrize("bounds", [{"equals": 0}, {"max": 0}, {"min": 0}, {"min": 0, "max": 3}])
def test_a_count_of_zero_passes_where_zero_is_the_claim(bounds: dict[str, int]) -> None:
    assert one({"kind": "count", "files": "evidence/nothing/*.json"} | bounds) is None
    assert one({"kind": "count", "select": sel(A, "/none")} | bounds) is None


def test_a_strict_order_of_a_time_with_itself_still_fails() -> None:
    finding = one({"kind": "order", "selects": [sel(A, "/t"), sel(A, "/t")]})
    assert finding is not None and finding.code == "assertion.failed"


def test_the_same_value_in_two_records_is_not_vacuous() -> None:
    assert one({"kind": "same-value", "selects": [sel(A, "/pi"), sel(B, "/pi")]}) is None
    assert (
        one({"kind": "unchanged", "before": sel(A, "/counters"), "after": sel(B, "/counters")})
        is None
    )


def test_a_count_of_zero_under_a_minimum_fails() -> None:
    finding = one({"kind": "count", "files": "evidence/nothing/*.json", "min": 1})
    assert finding is not None and finding.code == "assertion.failed"


def test_a_count_of_something_still_passes() -> None:
    assert one({"kind": "count", "files": "evidence/*.json", "max": 5}) is None  # the spec too
    assert one({"kind": "count", "select": sel(A, "/list"), "max": 3}) is None


# --- pointers ------------------------------------------------------------------------------

ACCEPTANCE: dict[str, Any] = {
    "kind": "acceptance-separation",
    "expectAcceptance": "failed",
    "acceptance": {"file": "evidence/acc.json", "result": "/result", "time": "/at"},
    "readback": {
        "file": "evidence/rb.json",
        "refersTo": "/refersTo",
        "time": "/at",
        "preregistered": "/pre",
        "result": "/result",
    },
}


def test_the_acceptance_example_passes() -> None:
    assert one(ACCEPTANCE) is None


@pytest.mark.parametrize(
    ("assertion", "where", "shown"),
    [
        ({"kind": "equals", "select": sel(A, "nope"), "value": 1}, "/select/pointer", '"nope"'),
        ({"kind": "equals", "select": sel(A, "/a~2"), "value": 1}, "/select/pointer", '"/a~2"'),
        (
            {"kind": "same-value", "selects": [sel(A, "/pi"), sel(B, "pi\n[/bold]")]},
            "/selects/1/pointer",
            '"pi\\n[/bold]"',
        ),
        (
            {"kind": "count", "select": sel(A, "/list"), "distinct": "id", "equals": 2},
            "/distinct",
            '"id"',
        ),
        (
            ACCEPTANCE | {"acceptance": ACCEPTANCE["acceptance"] | {"result": "result"}},
            "/acceptance/result",
            '"result"',
        ),
        (
            {"kind": "order", "selects": [sel(A, "/t"), {"file": A, "pointer": "~"}]},
            "/selects/1/pointer",
            '"~"',
        ),
    ],
)
def test_a_spec_pointer_that_is_not_a_json_pointer_is_an_error_at_its_place(
    assertion: dict[str, Any], where: str, shown: str
) -> None:
    finding = one(assertion)
    assert finding is not None
    assert (finding.code, finding.path, finding.pointer) == (
        "assertion.error",
        SPEC,
        "/assertions/0" + where,
    )
    assert shown in finding.message  # quoted as JSON: no raw newline, no markup


def test_a_key_with_a_slash_is_escaped_in_the_spec_location() -> None:
    assertion = {"kind": "equals", "select": sel(A, "/pi"), "value": {"a/b": sel(A, "x")}}
    finding = one(assertion)
    assert finding is not None and finding.pointer == "/assertions/0/value/a~1b/pointer"


@pytest.mark.parametrize("token", ["9" * 5000, "01", "-", "-1", "\u00b2", "\u0661"])
def test_an_index_that_names_nothing_is_an_error_at_the_record(token: str) -> None:
    finding = one({"kind": "equals", "select": sel(A, "/list/" + token), "value": 1})
    assert finding is not None
    assert (finding.code, finding.path) == ("assertion.error", A)
    assert finding.pointer == "/list/" + token and "resolves to nothing" in finding.message


# --- what a file that is not a parsed record is --------------------------------------------


@pytest.mark.parametrize(
    ("path", "manifested", "unread", "says"),
    [
        (
            "evidence/gone.json",
            None,
            {"evidence/gone.json": "is listed ... but missing"},
            "missing",
        ),
        ("evidence/never.json", None, None, "is not listed in the manifest"),
        ("evidence/bad.json", {"evidence/bad.json"}, None, "could not be parsed as JSON"),
    ],
)
def test_a_file_that_is_not_a_record_is_reported_on_its_own_path(
    path: str, manifested: set[str] | None, unread: dict[str, str] | None, says: str
) -> None:
    listed = set(RECORDS) | {SPEC} | (manifested or set())
    finding = one(
        {"kind": "same-value", "selects": [sel(A, "/pi"), sel(path, "/pi")]},
        manifested=listed,
        unread=unread,
    )
    assert finding is not None
    assert (finding.code, finding.path, finding.pointer) == ("assertion.error", path, "/pi")
    assert says in finding.message


# --- a kind's own bug ----------------------------------------------------------------------


class _Raises(AssertionKind):
    name = "raises"

    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    def needs(self, spec: dict[str, Any]) -> Iterator[Need]:
        yield Need(A, "/pi")

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        ctx.value(sel(A, "/pi"))
        raise self.exc


class _RaisesInNeeds(AssertionKind):
    name = "raises-in-needs"

    def needs(self, spec: dict[str, Any]) -> Iterator[Need]:
        raise RuntimeError("needs broke")

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        return Outcome.passed("nothing read")


def add_kind(monkeypatch: pytest.MonkeyPatch, name: str, kind: AssertionKind) -> None:
    """Register one more kind for the test: the registry is read-only, so it is replaced."""
    import verifier.assertions

    monkeypatch.setattr(verifier.assertions, "KINDS", MappingProxyType({**KINDS, name: kind}))


class _ReturnsNothing(AssertionKind):
    name = "returns-nothing"

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        return None  # type: ignore[return-value]  # the bug under test


def test_a_kind_that_returns_no_outcome_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    add_kind(monkeypatch, "returns-nothing", _ReturnsNothing())
    finding = one({"kind": "returns-nothing"})
    assert finding is not None and finding.code == "assertion.internal-error"


class _Undeclared(AssertionKind):
    name = "undeclared"

    def needs(self, spec: dict[str, Any]) -> Iterator[Need]:
        return iter(())

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        return Outcome.passed(str(ctx.value(sel(A, "/pi"))))


@pytest.mark.parametrize(
    "exc",
    [KeyError("file"), TypeError("bad"), ValueError("x"), ZeroDivisionError(), RuntimeError()],
)
def test_an_exception_from_a_kind_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, exc: Exception
) -> None:
    add_kind(monkeypatch, "raises", _Raises(exc))
    finding = one({"kind": "raises"})
    assert finding is not None
    assert finding.code == "assertion.internal-error"
    assert "malformed" not in finding.message and "internal error in the raises kind" in (
        finding.message
    )
    assert (finding.path, finding.pointer) == (SPEC, "/assertions/0")


def test_a_kind_whose_needs_raise_is_an_internal_error_never_a_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    add_kind(monkeypatch, "raises-in-needs", _RaisesInNeeds())
    spec = {"assertions": [{"id": "x", "kind": "raises-in-needs"}]}
    assert list(needs_of(spec)) == []  # planning survives it
    finding = one({"kind": "raises-in-needs"})
    assert finding is not None and finding.code == "assertion.internal-error"
    assert "needs broke" in finding.message


def test_an_undeclared_read_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    add_kind(monkeypatch, "undeclared", _Undeclared())
    spec = {"assertions": [{"id": "x", "kind": "undeclared"}]}
    store = Records.of(RECORDS, list(needs_of(spec)))
    store.add(SPEC, document=spec)
    stage, results = check_consistency(store, set(RECORDS), SPEC, True)
    assert [f.code for f in stage.findings] == ["assertion.internal-error"]
    assert results[0].status is AssertionStatus.ERROR


# --- any malformed assertion is an error of the spec, never a crash or an internal error --

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
_EXAMPLES: list[dict[str, Any]] = [
    {"kind": "equals", "select": sel(A, "/pi"), "value": "pi_1"},
    {"kind": "in-set", "select": sel(A, "/pi"), "values": ["pi_1"]},
    {"kind": "same-value", "selects": [sel(A, "/pi"), sel(B, "/pi")]},
    {"kind": "count", "select": sel(A, "/list"), "distinct": "/id", "equals": 2},
    {"kind": "count", "files": "evidence/*.json", "distinct": "/pi", "min": 1},
    {"kind": "unchanged", "before": sel(A, "/counters"), "after": sel(B, "/counters")},
    {"kind": "order", "selects": [sel(A, "/t"), sel("evidence/rb.json", "/at")], "strict": True},
    ACCEPTANCE,
    {"kind": "interrupted-tool-result", "transcript": A, "marker": "m", "callId": "c"},
]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(_EXAMPLES),
    st.lists(
        st.tuples(
            st.sampled_from(
                [
                    "select",
                    "selects",
                    "files",
                    "distinct",
                    "equals",
                    "min",
                    "max",
                    "before",
                    "after",
                    "keys",
                    "strict",
                    "values",
                    "value",
                    "acceptance",
                    "readback",
                    "expectAcceptance",
                    "transcript",
                    "marker",
                    "callId",
                    "terminalStatus",
                    "toolExecutions",
                ]
            ),
            _JSON,
        ),
        max_size=3,
    ),
)
def test_a_malformed_assertion_is_never_an_internal_error(
    example: dict[str, Any], changes: list[tuple[str, Any]]
) -> None:
    assertion = dict(example)
    for key, value in changes:
        assertion[key] = value
    finding = one(assertion)
    assert finding is None or finding.code != "assertion.internal-error", finding


_POINTERISH = st.sampled_from(["", "/", "/a", "a", "~", "/~0", "/~1", "/~2", "/a~", "/x/0"])
_JSON_NODES = st.recursive(
    st.one_of(st.none(), st.integers(), _POINTERISH),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(["file", "pointer", "a", "b/c"]), inner, max_size=4),
    ),
    max_leaves=20,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(_JSON_NODES)
def test_the_quick_pointer_check_agrees_with_the_walk_that_places_them(node: Any) -> None:
    from verifier.assertions.interface import selector_pointers, selectors_well_formed

    walked = all(not isinstance(v, str) or is_pointer(v) for _, v in selector_pointers(node))
    assert selectors_well_formed(node) is walked
