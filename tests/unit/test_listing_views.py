"""A manifest's listing in the common case (every name already normal, none twice): the
name relative to the base and the first line of each path are views over the listing, not
tables of their own (``OwnNames``, ``FirstLines``); they read as the tables the per-name
path makes, and the table of lines is made only when a line is asked for."""

from __future__ import annotations

from array import array

import pytest

from verifier.plan.entries import FirstLines, OwnNames, parse_entries

DIGEST = "a" * 64


def _manifest(*lines: str) -> bytes:
    return "".join(line + "\n" for line in lines).encode()


def test_names_at_the_root_are_their_own_relative_names() -> None:
    data = _manifest(f"{DIGEST}  b/one.json", f"{DIGEST}  a/two.json", f"{DIGEST}  top.txt")
    plan = parse_entries("manifest.sha256", data, "manifest.sha256", None)
    assert isinstance(plan.relative, OwnNames)
    assert dict(plan.relative) == {p: p for p in ("b/one.json", "a/two.json", "top.txt")}
    assert list(plan.relative) == list(plan.wanted)
    assert plan.relative["a/two.json"] == "a/two.json"
    with pytest.raises(KeyError):
        plan.relative["unlisted.json"]
    assert plan.scope == [".", "a", "b"]


def test_names_under_a_base_keep_a_table_of_relative_names() -> None:
    data = _manifest(f"{DIGEST}  one.json", f"{DIGEST}  sub/two.json")
    plan = parse_entries("m", data, None, None, base="data")
    assert not isinstance(plan.relative, OwnNames)
    assert dict(plan.relative) == {"data/one.json": "one.json", "data/sub/two.json": "sub/two.json"}


def test_first_lines_skip_what_is_not_an_entry_and_are_made_when_asked() -> None:
    data = _manifest(
        f"{DIGEST}  first.json",
        "not a checksum line",
        "",
        f"{DIGEST}  fourth.json",
        f"{DIGEST}  fifth.json",
    )
    plan = parse_entries("manifest.sha256", data, "manifest.sha256", None)
    lines = plan.first_line
    assert isinstance(lines, FirstLines)
    assert lines._table is None  # nothing asked yet: no table
    assert lines["fourth.json"] == 4 and lines["fifth.json"] == 5 and lines["first.json"] == 1
    assert lines._table == {"first.json": 1, "fourth.json": 4, "fifth.json": 5}
    assert len(lines) == 3 and list(lines) == ["first.json", "fourth.json", "fifth.json"]
    assert (plan.findings[0].code, plan.findings[0].line) == ("manifest.malformed", 2)


def test_a_listed_name_twice_takes_the_per_name_tables() -> None:
    data = _manifest(f"{DIGEST}  same.json", f"{'b' * 64}  other.json", f"{DIGEST}  same.json")
    plan = parse_entries("manifest.sha256", data, "manifest.sha256", None)
    assert type(plan.first_line) is dict and type(plan.relative) is dict
    assert plan.first_line == {"same.json": 1, "other.json": 2}
    assert any("first on line 1" in f.message for f in plan.findings)


def test_lines_must_match_the_listing() -> None:
    with pytest.raises(ValueError):
        FirstLines({"a": DIGEST}, array("Q", [1, 2]))
