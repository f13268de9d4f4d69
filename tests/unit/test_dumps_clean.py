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
from verifier.views.clean import clean, dumps_clean

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
