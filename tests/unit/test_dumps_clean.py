"""The machine formats write ``dumps_report(clean(value))``; :func:`dumps_clean` writes the
same text and copies the value only when something in it needs cleaning (a lone surrogate
from a name that is not UTF-8) or orjson cannot write it as it is."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import verifier.views.clean as clean_module
from verifier.json.parse import loads_strict
from verifier.json.write import dumps_report
from verifier.views.clean import clean, dumps_clean, dumps_clean_parts

Pair = namedtuple("Pair", "path pointer")

texts = st.text(st.characters(codec=None, exclude_categories=()), max_size=8) | st.sampled_from(
    ["plain", "evidence/\udcff.json", "\udc80", "a\x1b[31m"]
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["0.10000000000000001", "1e400", "-0"]).map(
        lambda literal: loads_strict(literal.encode(), keep_spelling=True)[0]
    )
    | texts
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=4).map(tuple)
        | st.tuples(inner, inner).map(lambda t: Pair(*t))
        | st.dictionaries(texts, inner, max_size=4)
    ),
    max_leaves=20,
)


@given(values, st.booleans(), st.sampled_from([2, None]))
def test_the_text_is_what_the_cleaned_copy_gives(
    value: Any, sort_keys: bool, indent: int | None
) -> None:
    assert dumps_clean(value, sort_keys=sort_keys, indent=indent) == dumps_report(
        clean(value), sort_keys=sort_keys, indent=indent
    )


def test_a_value_with_nothing_to_clean_is_not_copied(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []

    def counted(value: Any) -> Any:
        calls.append(value)
        return clean(value)

    monkeypatch.setattr(clean_module, "clean", counted)
    plain = {"files": [{"path": "evidence/a.json", "sha256": "0" * 64}], "n": 2**40}
    assert dumps_clean(plain) == dumps_report(plain)
    assert calls == []
    odd = {"files": [{"path": "evidence/\udcff.json"}]}
    text = dumps_clean(odd)
    assert calls[0] is odd and "\\\\udcff" in text  # written as the escape, never refused


@given(
    st.dictionaries(texts, values, max_size=4),
    st.lists(values, max_size=7),
    st.lists(values, max_size=3),
    st.integers(min_value=1, max_value=4),
)
def test_the_text_in_parts_is_the_text_whole(
    head: dict[str, Any], files: list[Any], assertions: list[Any], items: int
) -> None:
    """A report's lists written a few items at a time give the text of the whole value,
    whatever the items hold (lone surrogates, tuples, deep values), with a key of the
    same name deeper down and a list at another key that is empty."""
    head = {**head, "nested": {"files": [], "assertions": [1]}, "files": [], "assertions": []}
    whole = {**head, "files": files, "assertions": assertions}
    parts = list(
        dumps_clean_parts(
            head,
            {"files": lambda: iter(files), "assertions": lambda: iter(assertions)},
            items=items,
        )
    )
    assert "".join(parts) == dumps_clean(whole)
    assert len(parts) >= 1 + 2 + len(files) // items  # the items a part at a time


def test_a_list_is_never_made_whole() -> None:
    made: list[int] = []

    def files() -> Any:
        for i in range(10):
            made.append(i)
            yield {"path": f"f{i}"}

    parts = dumps_clean_parts({"files": []}, {"files": files}, items=3)
    seen = [next(parts), next(parts)]  # the text up to the list, then its first part
    assert made == [0, 1, 2] and '"f2"' in seen[1] and '"f3"' not in seen[1]
    assert "".join(seen + list(parts)) == dumps_clean(
        {"files": [{"path": f"f{i}"} for i in range(10)]}
    )


@pytest.mark.parametrize("head", [{}, {"files": None}, {"files": [1]}])
def test_a_head_without_the_empty_list_is_refused(head: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        "".join(dumps_clean_parts(head, {"files": lambda: iter(())}))
