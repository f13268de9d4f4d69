"""The orjson path of the strict parser (``verifier.json.parse._plain``) against the strict
parse by the standard library (``_strict``), the oracle: wherever the orjson path answers,
its value is the strict parse's, with the same types all the way down, and the strict parse
found no problem. Where it steps aside (a float, a repeated key, an escaped colon, deep
nesting, anything orjson refuses), the strict parse's own answer is what ``loads_strict``
returns."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.jsonvalues import same_json
from verifier.json.parse import _NOT_PLAIN, MAX_DEPTH, _holds_float, _plain, _strict, loads_strict


def agree(data: bytes) -> bool:
    """The property; returns whether the orjson path answered (for the tests that need it to)."""
    plain = _plain(data)
    value, problems = _strict(data, False, None)
    public = loads_strict(data)
    if plain is _NOT_PLAIN:
        assert same_json(public[0], value) and public[1] == problems
        return False
    assert problems == [], (data, problems)
    assert same_json(plain, value), (data, plain, value)
    assert same_json(public[0], value) and public[1] == []
    return True


# texts the strict parse refuses or reports on, each with what the orjson path must not hide
REFUSED_OR_REPORTED = [
    b'\xef\xbb\xbf{"a": 1}',  # byte order mark
    b'{"a": "\xff"}',  # invalid UTF-8
    b'"\xed\xa0\x80"',  # an encoded surrogate
    b'"\xc0\xaf"',  # an overlong encoding
    b'"\xf4\x90\x80\x80"',  # past U+10FFFF
    b'"\\ud800"',  # a lone surrogate: valid JSON, refused by orjson, kept by the strict parse
    b'["\\udc00", 1]',
    b'{"a": NaN}',
    b"[Infinity]",
    b'{"a": 1} {"b": 2}',
    b"[1,]",
    b"01",
    b"-01",
    b"+1",
    b"1.",
    b".5",
    b'"a\tb"',
    b"\x0c[]",
    b"[]\x00",
    b"",
    b" ",
    b'{"a": 1, "a": 2}',  # repeated keys
    b'{"a": {"b": 1, "b": 1}}',
    b'[{"k": 1, "k": 2}, {"k": 3}]',
    b'{"a:b": 1, "a": 1, "a": 2}',  # a colon in a kept key
    b'{"a": "x:y", "a": "z"}',  # a colon in a dropped value
    b'{"a": 1, "a": "::"}',  # colons in the kept value: counts still differ
    b'{"\\u003a": 1, "a": 1, "a": 2}',  # an escaped colon could balance a repeat
    b'{"a": "\\u003A", "b": 1, "b": 2}',
    b"1e400",  # not a double: reported
    b"[1e-400]",
    b"[18446744073709551616]",  # past 64 bits: orjson makes a float, the strict parse an int
    b"-9223372036854775809",
    b"[" + b"9" * 5000 + b"]",  # past Python's int conversion limit
    b"[-0.0]",
    b"[0.1, 2.5e-7, 1E5, 100.0]",
    b'{"a": 1.5}',
    b"2.5",
    b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
    b"[" * (MAX_DEPTH + 300) + b"]" * (MAX_DEPTH + 300),
    b"[" * MAX_DEPTH + b"]" * MAX_DEPTH,
]


@pytest.mark.parametrize("data", REFUSED_OR_REPORTED)
def test_the_orjson_path_steps_aside_where_the_strict_parse_has_something_to_say(
    data: bytes,
) -> None:
    agree(data)
    value, problems = _strict(data, False, None)
    if problems or _has_float_or_big(value):
        assert _plain(data) is _NOT_PLAIN


def _has_float_or_big(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_has_float_or_big(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_float_or_big(v) for v in value)
    return type(value) is not bool and (
        isinstance(value, float) or (isinstance(value, int) and not -(2**63) <= value < 2**64)
    )


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": 1}',
        b'{"t": "10:00:00.5Z", "v": "1.2", "n": "e-5", "s": "case-1"}',
        b'{"a": [1, -2, 0, -0, 18446744073709551615, -9223372036854775808]}',
        b'  {"k:": ":", "::": {"x": [true, false, null]}}\n',
        b'"1.5"',
        b"true",
        b"null",
        b"-0",
        b"[]",
        b'{"\\u00e9": "\\ud834\\udd1e", "/": "\\/"}',
        b'{"a":"b"}',
    ],
)
def test_the_orjson_path_answers_plain_records(data: bytes) -> None:
    assert agree(data)


def test_a_string_that_reads_like_a_float_steps_aside_but_agrees() -> None:
    """Conservative, never wrong: the strict parse decides."""
    assert not agree(b'{"s": "[1.5]"}')
    assert not agree(b'{"s": ",2e+5}"}')


@pytest.mark.parametrize(
    ("written", "found"),
    [
        (b"[1.5]", True),
        (b"[1,2.5]", True),
        (b'{"a":-1.0}', True),
        (b'{"a":1e+20}', True),
        (b"[5e-324]", True),
        (b'{"a":[1,{"b":-2.5}]}', True),
        (b'{"t":"10:00:00.5Z"}', False),
        (b'{"s":"Pay 0. now"}', False),
        (b'{"s":"case-000"}', False),
        (b"[1,2,-3]", False),
        (b'{"s":"[1.5]"}', True),  # a string alike: the strict parse decides
    ],
)
def test_holds_float_reads_orjsons_compact_output(written: bytes, found: bool) -> None:
    assert _holds_float(written) is found


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=':.e+-0123456789[]{},"\\aé\u2028\x7f', max_size=8)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(st.tuples(st.text(alphabet=':.e1k"\\', max_size=3), inner), max_size=4)
    ),
    max_leaves=25,
)


def _write(value: Any, rng: random.Random, ascii_only: bool) -> str:
    """JSON text of ``value``; a list of pairs is an object, written with every pair (so a
    repeated key stays repeated), with random spacing."""
    gap = rng.choice(["", " ", "\n", "\t", " \r\n "])
    if isinstance(value, list) and value and all(isinstance(p, tuple) for p in value):
        items = [
            json.dumps(k, ensure_ascii=ascii_only) + gap + ":" + gap + _write(v, rng, ascii_only)
            for k, v in value
        ]
        return "{" + gap + ("," + gap).join(items) + gap + "}"
    if isinstance(value, list):
        return "[" + gap + ("," + gap).join(_write(v, rng, ascii_only) for v in value) + "]"
    if isinstance(value, float) and rng.random() < 0.3:
        return repr(value).replace("e", rng.choice(["e", "E"]))
    return json.dumps(value, ensure_ascii=ascii_only)


@settings(max_examples=600)
@given(_VALUES, st.integers(min_value=0, max_value=2**32), st.booleans())
def test_the_orjson_path_agrees_with_the_strict_parse(
    value: Any, seed: int, ascii_only: bool
) -> None:
    agree(_write(value, random.Random(seed), ascii_only).encode())


@settings(max_examples=400)
@given(_VALUES, st.integers(min_value=0, max_value=2**32), st.binary(min_size=1, max_size=4))
def test_the_orjson_path_agrees_on_damaged_texts(value: Any, seed: int, junk: bytes) -> None:
    """Bytes cut, replaced or inserted at random places of a valid text."""
    rng = random.Random(seed)
    data = bytearray(_write(value, rng, rng.random() < 0.5).encode())
    at = rng.randrange(len(data) + 1)
    action = rng.choice(["insert", "replace", "cut"])
    if action == "insert":
        data[at:at] = junk
    elif action == "replace":
        data[at : at + len(junk)] = junk
    else:
        del data[at : at + len(junk)]
    agree(bytes(data))


def test_the_spec_and_spelled_parses_never_take_the_orjson_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A kept document shares its strings, and a transcript keeps its numbers' spelling:
    both are the strict parse's work alone."""
    import verifier.json.parse as parse

    def refuse(data: bytes) -> Any:
        raise AssertionError("the orjson path was asked")

    monkeypatch.setattr(parse, "_plain", refuse)
    assert parse.loads_strict(b'{"a": "b"}', strings={})[0] == {"a": "b"}
    assert parse.loads_strict(b'{"a": 1.50}', keep_spelling=True)[0] == {"a": 1.5}


def test_holds_float_looks_at_a_bounded_number_of_places() -> None:
    """A text built to make the float test slow (a string of a million ``0.``, each a place
    to look at; before the bound each was scanned to the start of the run, quadratic: 107 s
    for 32,000 of them) is left to the strict parse after :data:`_MOST_MARKS` places, and a
    long run of number characters is looked at no further than a float can be long."""
    from verifier.json.parse import _LONGEST_NUMBER, _MOST_MARKS

    assert _MOST_MARKS < 1000 and len(b"-1.7976931348623157e+308") <= _LONGEST_NUMBER
    many = b'{"s":"' + b"0." * 1_000_000 + b'"}'
    assert _holds_float(many) is True  # too many places: the strict parse decides
    assert _plain(many) is _NOT_PLAIN
    assert loads_strict(many) == ({"s": "0." * 1_000_000}, [])
    few = b'{"s":"' + b"1" * 100_000 + b".5" + b"1" * 100_000 + b'"}'
    assert _holds_float(few) is False  # one place, in a string: not a value
    assert agree(few)


def test_a_float_at_the_limit_of_orjsons_writing_is_found() -> None:
    for value in (-1.7976931348623157e308, 5e-324, -2.2250738585072014e-308, 0.1):
        assert _holds_float(orjson_dumps([1, value, 2])) is True
        assert _holds_float(orjson_dumps({"k": value})) is True


def orjson_dumps(value: Any) -> bytes:
    import orjson

    return orjson.dumps(value)
