"""JSON pointers and path globs from a hostile archive: a pointer is RFC 6901 or it is refused,
an array index is ASCII digits of any length that never crash, and a glob matches exactly as
the regular-expression translation it replaced did, in time linear in the path."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.json.pointer import EvalError, Glob, array_index, is_pointer, resolve_pointer

# --- the oracle: the glob translation the package used before (a backtracking regex) -------


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """``*`` and ``?`` stay within a path segment; ``**/`` spans any number of folders."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


_GLOB = st.text(alphabet="ab/*?.[]\\", max_size=10)
_PATH = st.text(alphabet="ab/.[]\\", max_size=12)


@given(_GLOB, _PATH)
def test_glob_matches_as_the_regex_translation_did(pattern: str, path: str) -> None:
    assert Glob(pattern).match(path) == bool(glob_to_regex(pattern).match(path))


@given(st.lists(_GLOB, min_size=1, max_size=3).map("/".join), st.lists(_PATH, max_size=4))
def test_glob_is_the_same_on_every_path_it_is_asked_about(pattern: str, paths: list[str]) -> None:
    glob = Glob(pattern)  # one glob, many paths: its cache of steps changes no answer
    oracle = glob_to_regex(pattern)
    for path in paths * 2:
        assert glob.match(path) == bool(oracle.match(path))


_SEGMENT = st.sampled_from(["*", "a", "ab", "", "*", "a.json"])


@given(
    st.lists(_SEGMENT, min_size=1, max_size=4).map("/".join),
    st.lists(st.text(alphabet="ab/.\n", max_size=10), max_size=4),
)
def test_a_glob_of_whole_segments_matches_as_the_regex_translation_did(
    pattern: str, paths: list[str]
) -> None:
    # (literal and lone-star segments: matched a segment at a time, not by the automaton)
    glob = Glob(pattern)
    oracle = glob_to_regex(pattern)
    for path in [*paths, pattern, pattern.replace("*", "x"), pattern.replace("*", "")]:
        assert glob.match(path) == bool(oracle.match(path)), (pattern, path)


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("evidence/**/*.json", "evidence/x.json", True),
        ("evidence/**/*.json", "evidence/e6/d.json", True),
        ("evidence/**/*.json", "evidence//d.json", False),  # a folder name is never empty
        ("evidence/*.json", "evidence/e6/d.json", False),
        ("evidence/**", "evidence/a/b/c", True),
        ("evidence/**.json", "evidence/a/b.json", True),
        ("e/?.json", "e/a.json", True),
        ("e/?.json", "e//.json", False),
        ("e/[ab].json", "e/[ab].json", True),  # no character classes: '[' is itself
        ("e/[ab].json", "e/a.json", False),
        ("", "", True),
        ("*", "", True),
        ("*", "a/b", False),
        ("**", "a/b", True),
    ],
)
def test_glob_examples(pattern: str, path: str, expected: bool) -> None:
    assert Glob(pattern).match(path) is expected


def test_a_name_with_a_newline_is_matched_by_double_star() -> None:
    # The regex translation's '.' stopped at a newline, so '**' skipped such names; '**' is
    # documented as any run of characters, and an unusual name must not hide from a count.
    assert Glob("evidence/**").match("evidence/a\nb.json")
    assert Glob("evidence/*.json").match("evidence/a\nb.json")


class _Counting(Glob):
    """A glob that counts its automaton's steps (each one pass over the set of states)."""

    def __init__(self, pattern: str) -> None:
        super().__init__(pattern)
        self.steps = 0

    def _step(self, states: int, char: str) -> int:
        self.steps += 1
        return super()._step(states, char)


@pytest.mark.parametrize(
    ("pattern", "path"),
    [
        # the first two make the regex translation backtrack for longer than anyone waits
        ("evidence/" + "**a" * 40 + "**b", "evidence/" + "a" * 39 + "c" * 3000 + "b"),
        ("evidence/" + "*a" * 40 + "*b", "evidence/" + "a" * 39 + "c" * 3000 + "b"),
        ("evidence/" + "**/a" * 40 + "*x", "evidence/" + "a/" * 3000 + "/x"),
        ("e/" + "?*" * 200 + "b", "e/" + "a" * 150 + "b"),
    ],
)
def test_a_pathological_glob_takes_one_step_per_character(pattern: str, path: str) -> None:
    glob = _Counting(pattern)
    assert glob.match(path) is False
    assert 0 < glob.steps <= len(path)


def test_a_pathological_glob_still_matches_what_it_should() -> None:
    glob = Glob("evidence/" + "**a" * 40 + "**b")
    assert glob.match("evidence/" + "a/" * 40 + "b")
    assert not glob.match("evidence/" + "a/" * 39 + "b")


# --- pointers ------------------------------------------------------------------------------

_RFC6901 = re.compile(r"(/([^~/]|~[01])*)*\Z", re.DOTALL)


@given(st.text(alphabet="/~01a\n", max_size=10))
def test_is_pointer_is_the_rfc_6901_grammar(text: str) -> None:
    assert is_pointer(text) == bool(_RFC6901.match(text))


@pytest.mark.parametrize("text", ["nope", "a/b", "/a~2", "/~", "/a~", " /a", 5, None])
def test_not_a_pointer_is_refused_when_resolved(text: Any) -> None:
    assert not is_pointer(text)
    if isinstance(text, str):
        with pytest.raises(EvalError, match="not a JSON pointer"):
            resolve_pointer({"nope": 1, "a": {"b": 1}}, text)


ARRAY = [10, 11, 12]


@pytest.mark.parametrize(
    "token",
    [
        "9" * 5000,  # int() refuses it (the str-digits limit): it must just name nothing
        "1" + "0" * 30,
        "3",
        "01",
        "00",
        "-",
        "-1",
        "+1",
        " 1",
        "1 ",
        "1e0",
        "\u00b2",  # superscript two: str.isdigit() says yes
        "\u0661",  # Arabic-Indic one
        "\uff11",  # fullwidth one
        "",
    ],
)
def test_an_index_that_is_not_ascii_digits_in_range_resolves_to_nothing(token: str) -> None:
    assert array_index(token, len(ARRAY)) is None
    with pytest.raises(EvalError, match="resolves to nothing") as caught:
        resolve_pointer({"a": ARRAY}, "/a/" + token)
    assert len(str(caught.value)) < 400  # a huge token is cut in the message


@pytest.mark.parametrize(("token", "index"), [("0", 0), ("1", 1), ("2", 2)])
def test_an_ascii_index_in_range_resolves(token: str, index: int) -> None:
    assert resolve_pointer({"a": ARRAY}, "/a/" + token) == ARRAY[index]


def test_escapes_are_decoded_in_order() -> None:
    doc = {"a/b": 1, "m~n": 2, "~1": 3}
    assert resolve_pointer(doc, "/a~1b") == 1
    assert resolve_pointer(doc, "/m~0n") == 2
    assert resolve_pointer(doc, "/~01") == 3  # '~01' is '~1', not '/'
