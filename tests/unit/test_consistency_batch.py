"""The kinds' batch path (verifier.assertions.batch) says only what evaluating each assertion
alone says: the stage's findings and results are the same with and without it, on records
and assertions drawn at random (values that agree, differ, are missing or of another type;
selectors and parameters malformed), and it is really taken for the plain passes."""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier.assertions import KINDS, Context, Outcome
from verifier.assertions.same_value import SameValue
from verifier.judge.consistency import check_consistency
from verifier.plan.spec import needs_of
from verifier.report import AssertionStatus
from verifier.values.records import Records

SPEC = "evidence/assertions.json"
A, B, C = "evidence/a.json", "evidence/b.json", "evidence/c.json"

_SCALAR = st.sampled_from([None, True, False, 0, 1, 1.0, 2, "x", "y", "", "a\nb", -0.0, 10**20])
_VALUE = st.recursive(
    _SCALAR,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("nmk"), inner, max_size=3)
    ),
    max_leaves=5,
)
#: values the records share often (so that assertions pass, and take the batch path), or not
_COMMON = st.sampled_from(
    ["pi_1", 1, 1.0, True, None, {"n": 1, "m": 2}, {"n": 1}, {"n": True}, {}, [1, 2, 3], [], [0]]
)
_RECORD = st.dictionaries(
    st.sampled_from(["pi", "c", "d", "list", "x~y", "a/b"]), _COMMON | _COMMON | _VALUE
)
_POINTER = st.sampled_from(
    ["/pi", "/c", "/d", "/list"] * 4 + ["", "/x~0y", "/a~1b", "pi", "/~2", "/c/n", "/list/0"]
)
_FILE = st.sampled_from([A, B, C] * 3 + ["evidence/gone.json", SPEC])


@st.composite
def _selector(draw: st.DrawFn) -> Any:
    base: dict[str, Any] = {"file": draw(_FILE), "pointer": draw(_POINTER)}
    shape = draw(st.integers(0, 19))
    if shape == 0:
        base["extra"] = draw(_VALUE)
    elif shape == 1:
        del base["pointer"]
    elif shape == 2:
        return draw(_VALUE)
    return base


@st.composite
def _assertion(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["same-value", "count", "unchanged", "equals", "in-set"]))
    item: dict[str, Any] = {"id": draw(st.sampled_from("abcdefghij")), "kind": kind}
    if draw(st.booleans()):
        item["description"] = draw(st.sampled_from(["d", "", 1]))
    if kind == "same-value":
        item["selects"] = draw(
            st.lists(_selector(), min_size=draw(st.sampled_from([0, 2])), max_size=4)
        )
    elif kind == "count":
        item["select"] = draw(_selector())
        for bound in ("equals", "min", "max"):
            if draw(st.integers(0, 2)) == 0:
                item[bound] = draw(st.sampled_from([0, 1, 2, 3] * 3 + [True, "1", 1.0]))
        if draw(st.integers(0, 4)) == 0:
            item["distinct"] = draw(_POINTER)
        if draw(st.integers(0, 6)) == 0:
            item["files"] = "evidence/*.json"
    elif kind == "unchanged":
        item["before"], item["after"] = draw(_selector()), draw(_selector())
        if draw(st.integers(0, 2)) == 0:
            item["keys"] = draw(st.lists(st.sampled_from(["n", "m", "k", 1]), max_size=3))
    else:
        item["select"] = draw(_selector())
        key = "value" if kind == "equals" else "values"
        if draw(st.integers(0, 5)):
            one = _COMMON | _VALUE
            item[key] = draw(one if kind == "equals" else st.lists(one, max_size=3))
    if draw(st.integers(0, 8)) == 0:
        item[draw(st.sampled_from(["other", "file", "pointer"]))] = draw(_VALUE | _selector())
    return item


def both(assertions: list[Any], records: dict[str, Any], whole: tuple[str, ...] = ()) -> Any:
    """The stage with and without the batch path, over what the pipeline keeps (``whole``:
    records kept whole besides), checked to agree; the batch run's results."""
    spec = {"assertions": assertions}
    store = Records.of({p: v for p, v in records.items() if p not in whole}, list(needs_of(spec)))
    for path in whole:
        store.add(path, document=records[path])
    store.add(SPEC, document=spec)
    listed = {*records, SPEC, "evidence/gone.json"}
    unread = {"evidence/gone.json": "is listed in the manifest but missing from the archive"}
    runs = [check_consistency(store, listed, SPEC, True, unread, batch=b) for b in (True, False)]
    (fast, fast_results), (slow, slow_results) = runs
    assert fast.findings == slow.findings
    assert fast.counts == slow.counts
    assert [r.to_dict() for r in fast_results] == [r.to_dict() for r in slow_results]
    assert [r.finding for r in fast_results] == [r.finding for r in slow_results]
    return fast_results


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(_assertion(), max_size=6), _RECORD, _RECORD, _RECORD, st.booleans())
def test_the_batch_path_agrees_with_evaluating_one_by_one(
    assertions: list[Any], a: Any, b: Any, c: Any, keep_c: bool
) -> None:
    both(assertions, {A: a, B: b, C: c}, whole=(C,) if keep_c else ())


def sel(file: str, pointer: str) -> dict[str, str]:
    return {"file": file, "pointer": pointer}


RECORDS: dict[str, Any] = {
    A: {"pi": "pi_1", "c": {"n": 1, "m": 2}, "d": {"n": 1, "m": 2}, "list": [1, 2, 3]},
    B: {"pi": "pi_1", "c": {"n": 1, "m": 2}},
}
PLAIN: list[dict[str, Any]] = [
    {"id": "s", "kind": "same-value", "selects": [sel(A, "/pi"), sel(B, "/pi")]},
    {"id": "n", "kind": "count", "select": sel(A, "/list"), "equals": 3},
    {"id": "u", "kind": "unchanged", "before": sel(A, "/c"), "after": sel(B, "/c")},
    {"id": "k", "kind": "unchanged", "before": sel(A, "/c"), "after": sel(A, "/d")}
    | {"keys": ["n"]},
    {"id": "e", "kind": "equals", "select": sel(A, "/pi"), "value": "pi_1"},
    {"id": "i", "kind": "in-set", "select": sel(A, "/pi"), "values": ["x", "pi_1"]},
]


@st.composite
def _near_pass(draw: st.DrawFn) -> dict[str, Any]:
    """A plain pass of :data:`PLAIN`, or one changed in one place (a parameter set to
    another value, removed, or one added)."""
    item = dict(draw(st.sampled_from(PLAIN)))
    change = draw(st.integers(0, 3))
    key = draw(st.sampled_from([*sorted(item), "other", "file", "keys", "distinct", "min"]))
    if change == 1:
        item[key] = draw(_COMMON | _VALUE | _selector() | st.lists(_selector(), max_size=3))
    elif change == 2:
        item.pop(key, None)
    return item


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(_near_pass(), max_size=4), _RECORD)
def test_the_batch_path_agrees_near_a_pass(assertions: list[Any], c: Any) -> None:
    both([a | {"id": str(i)} for i, a in enumerate(assertions)], {**RECORDS, C: c})


def test_the_plain_passes_take_the_batch_path() -> None:
    """Every kind with a batch path finds its plain pass there (else the path is dead code
    and the agreement above proves nothing)."""
    spec = {"assertions": PLAIN}
    store = Records.of(RECORDS, list(needs_of(spec)))
    for item in PLAIN:
        found = KINDS[item["kind"]].quick([item], store)
        assert found[0] is not None, item
    results = both(PLAIN, RECORDS)
    assert all(r.status is AssertionStatus.PASSED for r in results)


def test_a_value_kept_in_a_whole_document_is_left_to_the_generic_path() -> None:
    store = Records.of({}, [])
    store.add(A, document=RECORDS[A])
    assert KINDS["same-value"].quick([PLAIN[0]], store) == [None]


class _Stricter(SameValue):
    """A subclass that changes ``evaluate`` and not ``quick``: its batch path is not its own."""

    def evaluate(self, spec: dict[str, Any], ctx: Context) -> Outcome:
        return Outcome.failed("never")


class _BrokenQuick(SameValue):
    def quick(self, specs: Any, records: Records) -> Any:
        raise RuntimeError("a bug in the batch path")


class _ShortQuick(SameValue):
    def quick(self, specs: Any, records: Records) -> Any:
        return []


@pytest.mark.parametrize(
    ("kind", "status"),
    [
        (_Stricter(), AssertionStatus.FAILED),
        (_BrokenQuick(), AssertionStatus.PASSED),
        (_ShortQuick(), AssertionStatus.PASSED),
    ],
)
def test_a_batch_path_not_the_kinds_own_or_broken_is_not_used(
    monkeypatch: pytest.MonkeyPatch, kind: SameValue, status: AssertionStatus
) -> None:
    import verifier.assertions

    monkeypatch.setattr(
        verifier.assertions, "KINDS", MappingProxyType({**KINDS, "same-value": kind})
    )
    results = both([PLAIN[0]], RECORDS)
    assert [r.status for r in results] == [status]


#: snapshots and values that the kinds' common-shape lanes take, or must turn away: integer
#: counters (their keys needing a quote or a brace in the message), booleans and floats that
#: equal integers, strings that need escaping, keys out of order, a missing key
_LANE_VALUE = st.sampled_from(
    [
        {"n": 1, "m": 2},
        {"m": 2, "n": 1},
        {"n": 1, "m": 3},
        {"n": 1},
        {"n": True, "m": 2},
        {"n": 1.0, "m": 2},
        {"{n}": 1, 'a"b': 2, "x\ny": 3},
        {"n": None, "m": 2},
        {"n": 10**30, "m": -1},
        {},
        "pi_1",
        "pi_2",
        'q"uote',
        "tab\there",
        "x" * 100,
        1,
        True,
        None,
        [1, 2],
    ]
)
_LANE_RECORD = st.dictionaries(st.sampled_from(["pi", "c", "d", "list"]), _LANE_VALUE)


@st.composite
def _lane_assertion(draw: st.DrawFn) -> dict[str, Any]:
    """An assertion of the common shapes (the same few repeated, as in a real spec), or one
    step off them."""
    item = dict(draw(st.sampled_from(PLAIN)))
    if draw(st.integers(0, 3)) == 0:
        item = dict(draw(_near_pass()))
    if draw(st.integers(0, 2)) == 0:
        item["description"] = draw(st.sampled_from(["d", 1, None, [1], {"file": A}]))
    for key in ("selects", "select", "before", "after"):
        if key in item and draw(st.integers(0, 3)) == 0:
            value = item[key]
            if isinstance(value, list):
                item[key] = [sel(draw(_FILE), draw(_POINTER)) for _ in value]
            else:
                item[key] = sel(draw(_FILE), draw(_POINTER))
    return item


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(_lane_assertion(), max_size=30), _LANE_RECORD, _LANE_RECORD, _LANE_RECORD)
def test_the_common_shape_lanes_agree_with_the_general_batch_path(
    assertions: list[Any], a: Any, b: Any, c: Any
) -> None:
    """Many assertions of a few shapes in one call (what each kind learns of a shape is
    reused): each kind's answers are those of its general path, one assertion at a time, and
    the stage's with and without the batch path agree."""
    from verifier.assertions import count, same_value, unchanged

    records = {A: a, B: b, C: c}
    spec = {"assertions": assertions}
    store = Records.of(records, list(needs_of(spec)))
    store.add(SPEC, document=spec)
    general: dict[str, Callable[[Any], Any]] = {
        "same-value": lambda s: same_value._one(s, store.quick_value),
        "count": lambda s: count._one(s, store.quick_length),
        "unchanged": lambda s: unchanged._one(s, store.quick_value),
    }
    for name, one in general.items():
        specs = [s for s in assertions if s.get("kind") == name]
        assert KINDS[name].quick(specs, store) == [one(s) for s in specs]
    both([s | {"id": str(i)} for i, s in enumerate(assertions)], records)


def test_the_common_shape_lanes_are_taken() -> None:
    """The plain passes of the repeated shapes come from the lanes (the general path is not
    asked), with the general path's messages."""
    from verifier.assertions import count, same_value, unchanged

    spec = {"assertions": PLAIN * 3}
    store = Records.of(RECORDS, list(needs_of(spec)))
    expected = {
        s["kind"]: KINDS[s["kind"]].quick([s], store)
        for s in PLAIN
        if s["kind"] in ("same-value", "count")
    }

    def refuse(*_: Any) -> None:
        raise AssertionError("the general path was asked")

    with pytest.MonkeyPatch.context() as patch:
        for module in (count, same_value, unchanged):
            patch.setattr(module, "_one", refuse)
        for name, found in expected.items():
            assert (
                KINDS[name].quick([s for s in PLAIN if s["kind"] == name] * 3, store) == found * 3
            )
        answers = KINDS["unchanged"].quick([PLAIN[2]] * 3, store)
    assert (
        answers
        == [
            (
                '2 value(s) unchanged: "m"=2, "n"=1',
                (("evidence/a.json", "/c"), ("evidence/b.json", "/c")),
            )
        ]
        * 3
    )


def test_an_assertion_without_its_parameters_leaves_the_lane_to_the_others() -> None:
    """A plain-looking assertion lacking its selectors is the general path's (None), and the
    kind's other assertions keep their passes (the call does not raise)."""
    store = Records.of(RECORDS, list(needs_of({"assertions": PLAIN})))
    for item in PLAIN[:3]:
        bare = {"id": "x", "kind": item["kind"]}
        found = KINDS[item["kind"]].quick([bare, item], store)
        assert found[0] is None
        assert found[1] is not None


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(_assertion(), min_size=3, max_size=9), _RECORD, _RECORD, st.integers(1, 2))
def test_a_spec_judged_a_part_at_a_time_agrees_with_the_spec_read_whole(
    assertions: list[Any], a: Any, b: Any, window: int
) -> None:
    """A large spec is packed in parts of ``WINDOW`` assertions and judged a part at a time
    (ids repeated across parts, selectors into the spec itself, unknown kinds included):
    the same findings, counts and results as the spec read whole."""
    from unittest import mock

    from verifier.values import packed
    from verifier.values.packed import PackedDocument

    spec = {"$schema": "x", "assertions": assertions, "transcripts": []}
    records = {A: a, B: b}
    needs = list(needs_of(spec))
    whole = Records.of(records, needs)
    whole.add(SPEC, document=spec)
    with mock.patch.object(packed, "WINDOW", window):
        held = PackedDocument.pack(spec, "assertions")
    assert held is not None and held.windows() is not None  # judged in parts, not whole
    parts = Records.of(records, needs)
    parts.add(SPEC, document=held)
    listed = {*records, SPEC}
    runs = [check_consistency(store, listed, SPEC, True, {}) for store in (whole, parts)]
    (one, one_results), (two, two_results) = runs
    assert one.findings == two.findings
    assert one.counts == two.counts
    assert [r.to_dict() for r in one_results] == [r.to_dict() for r in two_results]
    assert [r.finding for r in one_results] == [r.finding for r in two_results]
