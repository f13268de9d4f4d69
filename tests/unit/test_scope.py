"""The default scope: every top-level folder holding a listed file, and the root's own files
when one is listed at the root, whatever the order of the names (the listing's runs of one
folder are taken at once)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from verifier.plan.scope import ROOT_FILES, default_scope

_NAME = st.text(alphabet="ab/.", min_size=1, max_size=8)


@given(st.lists(_NAME, max_size=12))
def test_the_default_scope_is_each_name_s_top_folder(names: list[str]) -> None:
    expected = sorted({n.partition("/")[0] if "/" in n else ROOT_FILES for n in names})
    assert default_scope(names) == expected
    assert default_scope(sorted(names)) == expected


def test_a_run_of_one_folder_then_a_name_that_only_starts_like_it() -> None:
    names = ["ev/a", "ev/b", "evidence/c", "ev", "ev/d", "x"]
    assert default_scope(names) == [".", "ev", "evidence"]
