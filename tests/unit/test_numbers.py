"""Exact JSON numbers (verifier.json.numbers) and the writers that keep them (verifier.json.write):
equality by exact value against an independent oracle (fractions.Fraction of the literal),
and the writers' bytes equal to json.dumps and orjson on every value those can write."""

from __future__ import annotations

import json
import pickle
from fractions import Fraction
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from verifier.assertions import KINDS, Context
from verifier.assertions.interface import json_equal
from verifier.json.numbers import JsonFloat, canonical, number_key
from verifier.json.parse import loads_strict
from verifier.json.write import _orjson_scalar, _walk, dumps, dumps_report
from verifier.values.records import Records

literals = st.builds(
    lambda sign, whole, frac, exp: f"{sign}{whole}{'.' + frac if frac else ''}{exp}",
    st.sampled_from(["", "-"]),
    st.from_regex(r"(0|[1-9][0-9]{0,25})", fullmatch=True),
    st.from_regex(r"[0-9]{0,25}", fullmatch=True),
    st.sampled_from(["", "e0", "E2", "e-1", "e+3", "e400", "e-400", "e308", "e-324", "e22"]),
)


def parsed(literal: str) -> Any:
    value, _ = loads_strict(literal.encode())
    return value


def exact(literal: str) -> Fraction:
    """The oracle: the literal's value as a fraction (small exponents only)."""
    mantissa, _, exponent = literal.lower().partition("e")
    return Fraction(mantissa) * Fraction(10) ** int(exponent or 0)


@given(literals, literals)
def test_numbers_are_equal_exactly_when_their_literals_are(a: str, b: str) -> None:
    x, y = parsed(a), parsed(b)
    assert json_equal(x, y) == (exact(a) == exact(b))
    assert (canonical(x) == canonical(y)) == (exact(a) == exact(b))


@given(literals)
def test_a_number_is_written_back_with_its_exact_value(literal: str) -> None:
    value = parsed(literal)
    for text in (dumps(value), dumps_report(value)):
        assert exact(text) == exact(literal)
    assert json_equal(pickle.loads(pickle.dumps(value)), value)  # crosses processes


def test_what_a_double_cannot_stand_for_is_a_problem_at_its_pointer() -> None:
    value, problems = loads_strict(b'{"a": [1, 1e400], "b": -1e-400, "c": 0e-400, "d": 1e-320}')
    assert [(p.code, p.pointer) for p in problems] == [
        ("record.unrepresentable-number", "/a/1"),
        ("record.unrepresentable-number", "/b"),
    ]
    assert isinstance(value["a"][1], JsonFloat) and value["a"][1].literal == "1e400"
    assert repr(value["a"][1]) == str(value["a"][1]) == f"{value['a'][1]}" == "1e400"
    _, problems = loads_strict(("[" + ",".join(["1e999"] * 50) + "]").encode())
    assert len(problems) == 11 and "40 further" in problems[-1].message


def test_ordinary_literals_stay_plain_floats() -> None:
    value, problems = loads_strict(b"[0.1, 1.5, 1E2, 2.50, -0.0, 1e-7, 5e-324]")
    assert problems == [] and all(type(v) is float for v in value)


def test_huge_exponents_are_compared_exactly() -> None:
    nines = "9" * 5000
    a, b = parsed(f"1e{nines}"), parsed(f"10e{nines[:-1]}8")
    assert json_equal(a, b) and not json_equal(a, parsed(f"2e{nines}"))
    assert number_key(parsed(f"1e-{nines}")) != number_key(parsed("0"))


def test_distinct_counts_count_json_equal_values_once() -> None:
    records = {"r.json": parsed('{"v": [1, 1.0, 1e0, 0.1, 0.10000000000000001, {"a": 1}]}')}
    spec = {"kind": "count", "select": {"file": "r.json", "pointer": "/v"}, "distinct": ""}
    outcome = KINDS["count"].evaluate({**spec, "equals": 4}, Context(Records.of(records), set()))
    assert outcome.status.value == "passed", outcome.message


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_dumps_writes_what_json_dumps_writes(value: Any) -> None:
    if "\\ud" in json.dumps(value):  # lone surrogates: escaped by dumps, raw by json.dumps
        return
    for kwargs in ({}, {"sort_keys": True}, {"indent": 2}, {"separators": (",", ":")}):
        assert dumps(value, **kwargs) == json.dumps(value, ensure_ascii=False, **kwargs)


@given(json_values)
def test_the_report_fallback_writes_orjson_bytes(value: Any) -> None:
    try:
        expected = orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return  # beyond orjson (a big integer, a surrogate): the fallback's own case
    walked = _walk(value, _orjson_scalar, lambda k: orjson.dumps(k).decode(), 2, ",", ": ", True)
    assert walked == expected.decode()


def test_the_report_writer_takes_what_orjson_refuses() -> None:
    deep: Any = 1
    for _ in range(300):
        deep = [deep]
    data = {"big": 2**70, "small": -(2**64), "deep": deep, "odd": parsed("0.10000000000000001")}
    text = dumps_report(data)
    assert json.loads(text)["big"] == 2**70 and "0.10000000000000001" in text
    assert json.loads(text)["deep"] == deep
