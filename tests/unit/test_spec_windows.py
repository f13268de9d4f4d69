"""A large assertion spec read a window of its assertions at a time: the same value, needs and
report as the spec read whole, never a finding of its own, and the whole read wherever the
windows could say something different (verifier.json.parse.loads_in_windows,
verifier.record.check.process_in_windows, verifier.plan.records.RecordPlan)."""

from __future__ import annotations

import json
import random
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import rewrite_manifest
from tests.jsonvalues import same_json
from verifier.json import parse
from verifier.json.parse import Given, loads_in_windows, loads_strict
from verifier.schema.bundle import windowed_schema

PARSED_THE_SAME = [
    '{"a": [1, 2, 3, 4, 5]}',
    ' \n{ "x" : 1 ,\t"a" :\r[ {"k": "v", "n": null} , [ ] , "s" , true , -0 , 0.5 ] ,'
    ' "y": {"z": [1]} } \n',
    '{"a": [12345678901234567890123456789, 1e5, 2.5e-3, "caf\\u00e9 \\ud800", "\\u0000"]}',
    '{"$schema": "s", "a": [{"d": {"e": [{"f": 1}]}}, {}], "b": "after"}',
    '{"a": []}',
    '{"a": [1], "b": {"a": [2]}}',
]

HANDED_BACK = [
    '{"a": [1, 2,]}',  # a trailing comma
    '{"a": [1, 2], "a": [3]}',  # a repeated member
    '{"a": [{"k": 1, "k": 2}]}',  # a repeated key in an item
    '{"b": {"k": 1, "k": 2}, "a": [1]}',  # ... in another member
    '{"a": [1e400]}',  # a number no double stands for
    '{"a": [0.1000000000000000000000000001]}',  # a number kept with its literal
    '{"a": [NaN]}',
    '{"a": [1]} x',  # trailing data
    '{"a": [1] ',  # not closed
    '{"a": {"b": 1}}',  # not an array
    '{"b": [1]}',  # no such member
    "[1, 2]",
    "{}",
    '\ufeff{"a": [1]}',  # a byte order mark
    '{"a": [' + "[" * 300 + "]" * 300 + "]}",  # nested past the limit
    '{"a": ["\\x"]}',  # a bad escape
    '{"a": [1 2]}',
]


def _windows(text: str | bytes, size: int) -> tuple[Any, bytes, list[list[Any]]]:
    taken: list[list[Any]] = []

    def take(head: dict[str, Any], items: list[Any]) -> bool:
        taken.append(list(items))
        return True

    data = text.encode() if isinstance(text, str) else text
    shell, back = loads_in_windows(Given(data), "a", size, {}, take, lambda _: True)
    return shell, back, taken


@pytest.mark.parametrize("text", PARSED_THE_SAME)
@pytest.mark.parametrize("size", [1, 2, 3, 100])
def test_a_document_read_in_windows_is_the_one_read_whole(text: str, size: int) -> None:
    whole, problems = loads_strict(text.encode())
    assert problems == [] and isinstance(whole, dict)
    shell, back, taken = _windows(text, size)
    assert back == b"" and shell is not None
    assert list(shell) == list(whole)  # the members in their order, the array's in its place
    assert shell["a"] == [] and all(0 < len(w) <= size for w in taken)
    assert same_json({**shell, "a": [item for w in taken for item in w]}, whole)


@pytest.mark.parametrize("text", HANDED_BACK)
def test_what_windows_cannot_read_is_handed_back_as_it_was_given(text: str) -> None:
    data = text.encode()
    shell, back, _ = _windows(data, 1)
    assert shell is None and back == data


def test_invalid_utf8_is_handed_back_as_it_was_given() -> None:
    data = b'{"a": ["\xff"]}'
    assert _windows(data, 1)[:2] == (None, data)


def test_a_window_refused_or_a_document_refused_at_the_end_hands_it_back() -> None:
    data = b'{"a": [1, 2, 3], "b": 4}'
    seen: list[Any] = []

    def refuse(head: dict[str, Any], items: list[Any]) -> bool:
        seen.append(list(items))
        return False

    shell, back = loads_in_windows(Given(data), "a", 2, {}, refuse, lambda _: True)
    assert (shell, back, seen) == (None, data, [[1, 2]])  # stopped at the first window
    ended: list[Any] = []

    def end(shell: dict[str, Any]) -> bool:
        ended.append(dict(shell))
        return False

    shell, back = loads_in_windows(Given(data), "a", 2, {}, lambda h, items: True, end)
    assert (shell, back, ended) == (None, data, [{"a": [], "b": 4}])


def test_a_window_is_given_the_members_before_the_array() -> None:
    heads: list[dict[str, Any]] = []

    def take(head: dict[str, Any], items: list[Any]) -> bool:
        heads.append(dict(head))
        return True

    text = b'{"$schema": "s", "x": 1, "a": [1, 2, 3], "y": 2}'
    shell, _ = loads_in_windows(Given(text), "a", 2, {}, take, lambda _: True)
    assert heads == [{"$schema": "s", "x": 1}] * 2
    assert shell == {"$schema": "s", "x": 1, "a": [], "y": 2}


def test_string_values_are_the_names_given_or_held_once_in_their_window() -> None:
    name = "".join(["evidence/", "a.json"])  # (made here: not a constant of the test's code)
    items: list[Any] = []

    def take(head: dict[str, Any], got: list[Any]) -> bool:
        items.extend(got)
        return True

    text = (
        b'{"s": "evidence/a.json", "a": [{"f": "evidence/a.json", "d": "same"}, {"d": "same"},'
        b' {"d": "same", "l": ["evidence/a.json"]}]}'
    )
    shell, _ = loads_in_windows(Given(text), "a", 2, {name: name}, take, lambda _: True)
    assert shell is not None and len(items) == 3
    assert shell["s"] is name and items[0]["f"] is name  # object values: the name given
    assert items[2]["l"][0] == name and items[2]["l"][0] is not name  # an array's: as read
    assert items[0]["d"] is items[1]["d"]  # held once in their window
    assert items[2]["d"] == "same" and items[2]["d"] is not items[0]["d"]  # not beyond it


ARRAY = {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/item"}}


@pytest.mark.parametrize(
    ("schema", "told"),
    [
        ({"type": "object", "properties": {"a": ARRAY}, "required": ["a"]}, True),
        ({"properties": {"a": {"items": False}}, "additionalProperties": False}, True),
        ({"properties": {"a": {"type": "array"}}, "$defs": {"x": {}}}, True),
        ({"properties": {"a": {**ARRAY, "maxItems": 3}}}, False),
        ({"properties": {"a": {**ARRAY, "uniqueItems": True}}}, False),
        ({"properties": {"a": {**ARRAY, "contains": {}}}}, False),
        ({"properties": {"a": {"prefixItems": [{}]}}}, False),
        ({"properties": {"a": {"$ref": "#/$defs/list"}}}, False),
        ({"properties": {"a": ARRAY}, "patternProperties": {"^a": {"maxItems": 1}}}, False),
        ({"properties": {"a": ARRAY}, "allOf": [{}]}, False),
        ({"properties": {"a": ARRAY}, "$ref": "#/$defs/x"}, False),
        ({"properties": {"a": ARRAY}, "unevaluatedProperties": False}, False),
        ({"properties": {"a": ARRAY}, "type": ["object", "null"]}, False),
        ({"properties": {"a": {"type": "object"}}}, False),
        ({"properties": {"b": ARRAY}}, False),
        ({"type": "object"}, False),
        (True, False),
    ],
)
def test_only_a_schema_that_judges_items_one_by_one_is_told_in_windows(
    schema: Any, told: bool
) -> None:
    assert windowed_schema(schema, "a") is told


# --- the spec of a run ----------------------------------------------------------------------

SPEC = "evidence/assertions.json"


def _spy(monkeypatch: Any) -> list[bool]:
    """Read every spec in windows of two assertions; what each reading in windows gave
    (``True``: read so, ``False``: handed back to be read whole)."""
    from verifier.plan import records
    from verifier.record import check as record
    from verifier.values import packed

    monkeypatch.setattr(records, "WINDOWED_FROM", 0)
    monkeypatch.setattr(packed, "WINDOW", 2)
    done: list[bool] = []
    original = record.process_in_windows

    def spying(*args: Any, **kwargs: Any) -> Any:
        got = original(*args, **kwargs)
        done.append(got is not None)
        return got

    monkeypatch.setattr(records, "process_in_windows", spying)
    return done


def _report(root: Path) -> tuple[str, bool]:
    """The JSON report, and whether the archive checked out."""
    from verifier import pipeline
    from verifier.views.clean import dumps_clean

    report = pipeline.verify(root)
    return dumps_clean(report.to_dict()), report.ok


def test_the_bundled_spec_read_in_windows_gives_the_same_report(
    archive: Path, monkeypatch: Any
) -> None:
    whole = _report(archive)
    done = _spy(monkeypatch)
    assert _report(archive) == whole
    assert done == [True]  # read in windows (its members after the array included)
    assert whole[1]


def test_a_damaged_archive_s_spec_read_in_windows_gives_the_same_report(
    archive: Path, monkeypatch: Any
) -> None:
    from tests.tampered import tamper

    tamper(archive)
    whole = _report(archive)
    done = _spy(monkeypatch)
    assert _report(archive) == whole
    assert done == [True] and not whole[1]


def _edit_spec(root: Path, change: Any) -> None:
    path = root / SPEC
    path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")
    rewrite_manifest(root)


def _unknown_kind(text: str) -> str:
    spec = json.loads(text)
    spec["assertions"][5]["kind"] = "no-such-kind"
    return json.dumps(spec, indent=2)


def _repeated_key(text: str) -> str:
    return text.replace('"kind":', '"kind": "x", "kind":', 1)


def _schema_last(text: str) -> str:
    spec = json.loads(text)
    name = spec.pop("$schema")
    return json.dumps({**spec, "$schema": name}, indent=2)


def _bad_member(text: str) -> str:
    spec = json.loads(text)
    spec["description"] = 5  # a member before the array, which its schema refuses
    return json.dumps(spec, indent=2)


def _bad_member_after(text: str) -> str:
    spec = json.loads(text)
    spec["unasserted"] = "not a list"
    return json.dumps(spec, indent=2)


def _odd_number(text: str) -> str:
    spec = json.loads(text)
    spec["assertions"][3]["note"] = 0.1  # written below with a literal no double holds
    return json.dumps(spec, indent=2).replace("0.1", "0.1000000000000000000000000001")


@pytest.mark.parametrize(
    ("change", "ok"),
    [
        (_unknown_kind, False),  # an assertion its schema refuses
        (_repeated_key, False),
        (_schema_last, True),  # nothing wrong, but no schema named before the assertions
        (_bad_member, False),
        (_bad_member_after, False),  # refused only once every window passed
        (_odd_number, False),
    ],
)
def test_a_spec_with_something_to_report_is_read_whole_and_reported_the_same(
    archive: Path, monkeypatch: Any, change: Any, ok: bool
) -> None:
    _edit_spec(archive, change)
    whole = _report(archive)
    done = _spy(monkeypatch)
    assert _report(archive) == whole
    assert done == [False]  # handed back, and read whole
    assert whole[1] is ok


def test_the_needs_and_containers_of_a_spec_read_in_windows_are_those_read_whole(
    archive: Path, monkeypatch: Any
) -> None:
    from verifier.plan.records import RecordPlan

    def prepared() -> RecordPlan:
        plan = RecordPlan("")
        early = {
            p.relative_to(archive).as_posix(): p.read_bytes()
            for p in [archive / SPEC, *sorted((archive / "schemas").glob("*.json"))]
        }
        plan.prepare(early)
        return plan

    whole = prepared()
    done = _spy(monkeypatch)
    windowed = prepared()
    assert done == [True]
    files = [p.relative_to(archive).as_posix() for p in sorted(archive.rglob("*")) if p.is_file()]
    wanted = [whole.wants(f) for f in files]
    assert any(wanted)  # (the comparison below looks at something)
    assert [windowed.wants(f) for f in files] == wanted
    assert windowed.containers == whole.containers
    assert windowed.results == whole.results
    assert same_json(windowed.unpack()[SPEC], whole.unpack()[SPEC])


def test_a_spec_read_in_windows_never_holds_all_its_assertions_at_once() -> None:
    """The point of it: the parse's peak (traced allocations) with windows of 256 of 20,000
    assertions is well under half of the whole parse's."""
    from verifier.values.packed import pack_part

    items = [
        {"id": f"a{i}", "kind": "same-value", "selects": [{"file": f"f{i}", "pointer": "/x"}]}
        for i in range(20_000)
    ]
    data = json.dumps({"$schema": "s", "assertions": items}).encode()
    del items

    def peak(call: Any) -> int:
        tracemalloc.start()
        try:
            call()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    whole = peak(lambda: loads_strict(Given(data), strings={}))
    parts: list[bytes] = []

    def take(head: dict[str, Any], window: list[Any]) -> bool:
        part = pack_part(window)
        assert part is not None
        parts.append(part)
        return True

    windowed = peak(
        lambda: loads_in_windows(Given(data), "assertions", 256, {}, take, lambda _: True)
    )
    assert len(parts) == 79  # 20,000 in windows of 256
    assert windowed < whole / 2


# --- mutated texts: the windows read a text exactly as the whole read, or hand it back -------

_SEED_TEXT = json.dumps(
    {
        "$schema": "s",
        "description": "caf\u00e9",
        "assertions": [
            {"id": "a1", "kind": "count", "select": {"file": "f.json", "pointer": "/x"}, "n": 2},
            {"id": "a2", "kind": "same-value", "selects": [{"file": "g", "pointer": ""}]},
            {"id": "a3", "big": 123456789012345678901234567890, "f": 0.5, "t": [True, None]},
            "a string item",
            [1, [2, [3]]],
        ],
        "after": {"k": ["v"]},
    },
    indent=1,
).encode()

#: where a piece of JSON fits: after an opening bracket or a comma, before a closing one
_BOUNDARIES = sorted(
    {i + 1 for i, c in enumerate(_SEED_TEXT) if c in b"{[,"}
    | {i for i, c in enumerate(_SEED_TEXT) if c in b"}]"}
)

_PIECES = [
    b",",
    b"]",
    b"}",
    b"[",
    b"{",
    b'"',
    b":",
    b" ",
    b"\n",
    b"\\",
    b"\\u003a",
    b'"id": "dup", ',  # a repeated key where an object's members start
    b'"assertions": [], ',
    b'"x": 1e400, ',
    b'"x": 0.1000000000000000000000000001, ',
    b'"x": NaN, ',
    b"1e400, ",  # ... where an array's items start
    b"0.1000000000000000000000000001, ",
    b"-0, ",
    b'"\\ud800", ',
    b'{"k": 1, "k": 2}, ',
    b"[" * 300 + b"]" * 300 + b", ",
    b"\xef\xbb\xbf",
    b"\xff",
    b"\x00",
]


def _mutated(rng: random.Random) -> bytes:
    data = _SEED_TEXT
    for _ in range(rng.randint(1, 3)):
        at = min(
            rng.choice(_BOUNDARIES) if rng.random() < 0.7 else rng.randint(0, len(data)),
            len(data),
        )
        how, piece = rng.choice(["insert", "insert", "delete", "replace"]), rng.choice(_PIECES)
        if how == "insert":
            data = data[:at] + piece + data[at:]
        elif how == "delete":
            data = data[:at] + data[at + rng.randint(1, 4) :]
        else:
            data = data[:at] + piece + data[at + len(piece) :]
    return data


def test_a_mutated_spec_is_read_in_windows_as_whole_or_handed_back() -> None:
    """1,000 mutations of a small spec (seeded, so the same each run): each is read in
    windows to the whole read's value, with no problem in the whole read, or handed back as
    it was given; both happen often enough to mean something."""
    rng = random.Random(14)
    read = handed = 0
    for _ in range(1000):
        data = _mutated(rng)
        whole, problems = loads_strict(data, strings={})
        shell, back, taken = _windows_of(data, rng.randint(1, 4))
        if shell is None:
            assert back == data, data  # handed back as it was given, to be read whole
            handed += 1
            continue
        assert back == b"" and problems == [] and isinstance(whole, dict), data
        assert list(shell) == list(whole), data
        assert same_json({**shell, "assertions": [i for w in taken for i in w]}, whole), data
        read += 1
    assert read > 100 and handed > 100, (read, handed)


def _windows_of(data: bytes, size: int) -> tuple[Any, bytes, list[list[Any]]]:
    taken: list[list[Any]] = []

    def take(head: dict[str, Any], items: list[Any]) -> bool:
        taken.append(list(items))
        return True

    shell, back = loads_in_windows(Given(data), "assertions", size, {}, take, lambda _: True)
    return shell, back, taken


# --- a text decoded a part at a time: never a different outcome than decoded whole ----------

_CUT_ANYWHERE = [
    '{"a": [1.5e3, -2.25E-7, 10, 0, -0.0, 3e+2, 123456789012345678901234567890, 7]}',
    '{"a": ["\\u00e9\\ud83d\\ude00", "caf\u00e9 \u20ac \U0001f600", true, false, null]}',
    '{  "x" :  "\u00e9\u00e9\u00e9" ,  "a" :  [ { "k" : [ 1 , 2.5 ] } , "\\"q\\"" ]  ,'
    '  "z": 1e5 } ',
]


@pytest.mark.parametrize("text", PARSED_THE_SAME + _CUT_ANYWHERE)
@pytest.mark.parametrize("part", [1, 2, 3, 7, 64])
def test_a_text_decoded_in_small_parts_is_read_as_decoded_whole(
    text: str, part: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parts of a few bytes cut every token somewhere (a number in its exponent, a character
    of two to four bytes, a string, a literal): each is still read as the whole text is."""
    whole, problems = loads_strict(text.encode())
    assert problems == [] and isinstance(whole, dict)
    monkeypatch.setattr(parse, "PART", part)
    shell, back, taken = _windows(text, 2)
    assert back == b"" and shell is not None
    assert list(shell) == list(whole)
    assert same_json({**shell, "a": [item for w in taken for item in w]}, whole)


@pytest.mark.parametrize("part", [1, 3, 64])
def test_what_windows_cannot_read_is_handed_back_whatever_the_parts(
    part: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parse, "PART", part)
    for text in HANDED_BACK:
        data = text.encode()
        assert _windows(data, 1)[:2] == (None, data), text
    data = b'{"a": ["\xc3\xa9", "\xe2\x82"]}'  # a character cut short: invalid UTF-8
    assert _windows(data, 1)[:2] == (None, data)


def test_a_mutated_text_decoded_in_parts_has_the_outcome_it_has_decoded_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The mutated specs again, each read with its text decoded at once and in parts of 1
    to 9 bytes: the same value and windows, or handed back both times."""
    rng = random.Random(1414)
    read = 0
    for _ in range(600):
        data = _mutated(rng)
        size = rng.randint(1, 4)
        monkeypatch.setattr(parse, "PART", 1 << 30)
        at_once = _windows_of(data, size)
        monkeypatch.setattr(parse, "PART", rng.randint(1, 9))
        in_parts = _windows_of(data, size)
        assert (at_once[0] is None) == (in_parts[0] is None), data
        assert at_once[1] == in_parts[1], data
        if at_once[0] is not None:
            assert same_json([at_once[0], at_once[2]], [in_parts[0], in_parts[2]]), data
            read += 1
    assert read > 60, read


def test_the_text_is_never_decoded_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk holds the text from the item it reads on: the parse's peak (traced
    allocations, the bytes given before it starts) is under half of the text's size with
    parts of 64 KB; the text decoded at once is all of it."""
    # (strings: a text of few brackets, which the depth check before the walk passes over)
    items = [f"assertion {i}, in a spec of 20,000" for i in range(20_000)]
    data = json.dumps({"assertions": items}).encode()
    del items

    def peak() -> int:
        tracemalloc.start()
        try:
            shell, _ = loads_in_windows(
                Given(data), "assertions", 256, {}, lambda h, w: True, lambda _: True
            )
            assert shell == {"assertions": []}
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    monkeypatch.setattr(parse, "PART", 1 << 16)
    in_parts = peak()
    monkeypatch.setattr(parse, "PART", 1 << 30)
    at_once = peak()
    assert in_parts < len(data) / 2 < len(data) < at_once
