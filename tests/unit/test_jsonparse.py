from __future__ import annotations

import json
from collections.abc import Iterable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.json.parse import MAX_DEPTH, loads_strict


def codes(data: bytes) -> list[str]:
    return [p.code for p in loads_strict(data)[1]]


def test_plain_object_parses_without_problems() -> None:
    value, problems = loads_strict(b'{"a": [1, 2.5, "x", null, true]}')
    assert value == {"a": [1, 2.5, "x", None, True]}
    assert problems == []


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b'\xef\xbb\xbf{"a": 1}', "byte order mark"),
        (b'{"a": "\xff"}', "Invalid UTF-8"),
        (b'{"a": NaN}', "NaN"),
        (b'{"a": Infinity}', "Infinity"),
        (b'{"a": -Infinity}', "Infinity"),
        (b'{"a": 1} {"b": 2}', "Extra data"),
        (b'{"a": 1,}', "Not JSON"),
        (b"", "Not JSON"),
        (b"1" * 5000, "Not JSON"),
    ],
)
def test_non_strict_json_is_refused(data: bytes, fragment: str) -> None:
    value, problems = loads_strict(data)
    assert value is None
    assert [p.code for p in problems] == ["record.invalid-json"]
    assert fragment in problems[0].message


def test_duplicate_keys_are_reported_with_the_objects_pointer() -> None:
    value, problems = loads_strict(b'{"a": {"b/c": {"k": 1, "k": 2}}, "z": 1, "z": 2}')
    assert value is not None
    assert [(p.code, p.pointer) for p in problems] == [
        ("record.duplicate-key", ""),
        ("record.duplicate-key", "/a/b~1c"),
    ]
    assert '"z"' in problems[0].message


def test_duplicate_keys_inside_arrays() -> None:
    _, problems = loads_strict(b'[{"a": 1}, {"a": 1, "a": 1}]')
    assert [p.pointer for p in problems] == ["/1"]


def test_integers_beyond_64_bits_parse() -> None:
    value, problems = loads_strict(b'{"n": 123456789012345678901234567890}')
    assert problems == []
    assert value == {"n": 123456789012345678901234567890}


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 5000, 100_000])
def test_deep_nesting_is_a_finding_not_a_crash(depth: int) -> None:
    data = b"[" * depth + b"]" * depth
    assert codes(data) == ["record.invalid-json"]


def test_nesting_at_the_limit_is_accepted() -> None:
    data = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    assert codes(data) == []


def test_syntax_error_reports_its_line() -> None:
    _, problems = loads_strict(b'{\n"a": 1,\n"b": }')
    assert problems[0].line == 3


_JSON_TEXT = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab\n\u00e9', max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(alphabet='[]{}"\\k', max_size=3), inner, max_size=3)
    ),
    max_leaves=20,
)


@given(_JSON_TEXT, st.booleans(), st.sampled_from([None, 1]), st.sampled_from([1, 3, 1 << 20]))
def test_depth_from_the_text_is_the_depth_of_the_value(
    value: object, ascii_only: bool, indent: int | None, part: int
) -> None:
    """The byte-level depth (used for large documents) agrees with a walk of the value,
    whatever brackets, quotes and backslashes the strings hold, and however small the parts
    it translates a part at a time (to hold no copy of a large text) are."""
    import verifier.json.parse as parse

    text = json.dumps([value], ensure_ascii=ascii_only, indent=indent).encode()
    saved = parse._DEPTH_PART
    parse._DEPTH_PART = part
    try:
        assert parse._text_depth(text) == _walked_depth(json.loads(text))
    finally:
        parse._DEPTH_PART = saved


def _walked_depth(value: object) -> int:
    """The oracle: containers counted on the deepest path of the parsed value."""
    if isinstance(value, dict):
        children: Iterable[object] = value.values()
    elif isinstance(value, list):
        children = value
    else:
        return 0
    return 1 + max((_walked_depth(c) for c in children), default=0)
