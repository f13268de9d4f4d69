"""What a record yields: the need index finds every need of a path (exact or by glob) as a
scan of all needs would, and extraction keeps exactly what was asked."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from verifier.json.pointer import EvalError, Glob, resolve_pointer
from verifier.values.extract import NOT_AN_ARRAY, Unresolved, extract
from verifier.values.needs import Need, NeedIndex, _literal_folder
from verifier.values.records import Records

_SEGMENT = st.sampled_from(["a", "b", "c.json", "d.json", "evidence", "x"])
_PATH = st.lists(_SEGMENT, min_size=1, max_size=4).map("/".join)
_PATTERN = st.lists(
    st.sampled_from(["a", "b", "*", "*.json", "**", "?.json", "evidence", "c.json"]),
    min_size=1,
    max_size=4,
).map("/".join)


@given(
    st.lists(st.tuples(_PATTERN, st.booleans(), st.sampled_from(["/p", "/q", ""])), max_size=8),
    st.lists(_PATH, min_size=1, max_size=8),
)
def test_the_index_finds_what_a_scan_finds(
    needs: list[tuple[str, bool, str]], paths: list[str]
) -> None:
    declared = [Need(file, pointer, glob=glob) for file, glob, pointer in needs]
    index = NeedIndex(declared)
    for path in paths:
        expected = {
            (n.pointer, n.length)
            for n in declared
            if (Glob(n.file).match(path) if n.glob else n.file == path)
        }
        assert set(index.wants(path)) == expected


def test_extraction_keeps_values_lengths_and_why_a_pointer_failed() -> None:
    record = {"list": [1, 2, 3], "obj": {"k": "v"}, "n": 4}
    got = extract(record, (("/obj", False), ("/list", True), ("/n", True), ("/none", False)))
    assert got["/obj"] == {"k": "v"}
    assert got["#/list"] == 3 and got["#/n"] == NOT_AN_ARRAY
    assert isinstance(got["/none"], Unresolved)
    store = Records()
    store.add("r.json", got)
    assert store.resolve("r.json", "/obj") == {"k": "v"}
    assert store.length("r.json", "/list") == 3
    assert store.length("r.json", "/n") is None
    for pointer in ("/none", "/never-declared"):
        try:
            store.resolve("r.json", pointer)
        except EvalError as exc:
            message = str(exc)
        else:  # pragma: no cover - the test fails below
            message = ""
        if pointer == "/none":
            try:
                resolve_pointer(record, pointer)
            except EvalError as exc:
                assert message == str(exc)  # the same words as reading the whole record
        else:
            assert "not extracted" in message  # an undeclared read is an error, never a pass


def test_catalogue_cells_are_checked_against_what_records_hold() -> None:
    from verifier.judge.catalogue import check_catalogue

    catalogue = {
        "cases": [
            {
                "counts": [
                    {"label": "ok", "count": {"file": "r.json", "pointer": "/list"}},
                    {
                        "label": "distinct",
                        "count": {"file": "r.json", "pointer": "/list"},
                        "distinct": "/id",
                    },
                ],
                "outcomes": [
                    {"label": "fine", "select": {"file": "r.json", "pointer": "/n"}},
                    {
                        "label": "fine too",
                        "select": {"file": "r.json", "pointer": "/n"},
                        "preregistered": {"file": "r.json", "pointer": "/pre"},
                    },
                ],
                "assertions": ["a.*"],
            }
        ]
    }
    records = Records.of({"c.json": catalogue, "r.json": {"list": [{"id": 1}, {}], "n": 2}})
    found = check_catalogue(records, "c.json", {"a.one"})
    assert [(f.code, f.pointer) for f in found] == [
        ("catalogue.unresolved", "/cases/0/counts/1/distinct"),
        ("catalogue.unresolved", "/cases/0/outcomes/1/preregistered/pointer"),
    ]
    assert check_catalogue(records, "c.json", set())[-1].code == "catalogue.unknown-assertion"
    assert check_catalogue(records, "absent.json", set()) == []


def _wants_one_by_one(needs: list[Need], path: str) -> tuple[tuple[str, bool], ...]:
    """What a file wants, read off the needs in order: each (pointer, length) pair once, in
    the order first declared, exact needs before glob ones (those by the depth of the folder
    their matches lie in, then in order)."""
    wanted: dict[tuple[str, bool], None] = {}
    for need in needs:
        if not need.glob and need.file == path:
            wanted[(need.pointer, need.length)] = None
    globs = [n for n in needs if n.glob]
    for need in sorted(globs, key=lambda n: len(_literal_folder(n.file))):
        if Glob(need.file).match(path):
            wanted[(need.pointer, need.length)] = None
    return tuple(wanted)


_PATHS = ["e/a.json", "e/b.json", "e/c/d.json", "f.json"]
#: needs of the files above, exact or by glob, whole or by length
_NEEDS = st.lists(
    st.builds(
        Need,
        st.sampled_from([*_PATHS, "e/*.json", "e/**", "*.json"]),
        st.sampled_from(["", "/a", "/b", "/a/0"]),
        st.booleans(),
        st.booleans(),
    ).filter(lambda n: n.glob or "*" not in n.file),
    max_size=12,
)


@given(_NEEDS)
def test_a_need_index_gives_each_file_its_wants_in_declared_order(needs: list[Need]) -> None:
    index = NeedIndex(needs)
    for path in [*_PATHS, "g.json"]:
        assert index.wants(path) == _wants_one_by_one(needs, path)


@given(
    _NEEDS,
    st.lists(st.integers(0, 12), max_size=4),
)
def test_a_need_index_made_a_part_at_a_time_is_the_one_made_at_once(
    needs: list[Need], cuts: list[int]
) -> None:
    """A large spec's needs are indexed a window at a time: the same wants for every file,
    whatever the parts (a file named in several), and equal wants still one tuple."""
    whole = NeedIndex(needs)
    parts = NeedIndex()
    at = 0
    for cut in sorted(min(c, len(needs)) for c in cuts):
        parts.add(needs[at:cut])
        at = cut
    parts.add(needs[at:])
    for path in [*_PATHS, "g.json"]:
        assert parts.wants(path) == whole.wants(path)
    if not any(n.glob for n in needs):  # (with a glob need, each answer is made anew)
        for one in _PATHS:  # the files that share one tuple are the same
            for other in _PATHS:
                shared = whole.wants(one) is whole.wants(other)
                assert (parts.wants(one) is parts.wants(other)) == shared


@given(
    _NEEDS,
    st.lists(st.sampled_from([*_PATHS, "g.json", "a.json", "e/b.jsonx", "z"]), max_size=12),
)
def test_a_settled_need_index_answers_as_the_table_did(needs: list[Need], asked: list[str]) -> None:
    """Settled (the files as lists, walked in the tasks' order), the index gives every file
    the wants the table gave, asked in order, out of order, twice, or not there; more needs
    after it are indexed as before."""
    table = NeedIndex(needs)
    settled = NeedIndex(needs)
    settled.settle()
    for path in [*sorted(_PATHS), *asked, *sorted(asked), "g.json", *_PATHS]:
        assert settled.wants(path) == table.wants(path), path
    more = [Need("e/a.json", "/more"), Need("h.json", "/h")]
    table.add(more)
    settled.add(more)
    for path in [*_PATHS, "h.json"]:
        assert settled.wants(path) == table.wants(path)


def test_the_index_holds_equal_wants_once() -> None:
    """What every task is made from is held through the whole inspection: files that want
    the same values share one tuple, and equal (pointer, length) pairs are one pair."""
    needs = [
        need
        for case in range(3)
        for need in (
            Need(f"c{case}/run.json", "/receipt/id"),
            Need(f"c{case}/run.json", "/counters"),
            Need(f"c{case}/run.json", "/receipt/id"),  # said twice: wanted once
            Need(f"c{case}/readback.json", "/object/id"),
            Need(f"c{case}/transcript.json", "/messages", length=True),
        )
    ]
    index = NeedIndex(needs)
    runs = [index.wants(f"c{case}/run.json") for case in range(3)]
    assert runs[0] == (("/receipt/id", False), ("/counters", False))
    assert runs[0] is runs[1] is runs[2]
    readbacks = [index.wants(f"c{case}/readback.json") for case in range(3)]
    assert readbacks[0] == (("/object/id", False),) and readbacks[0] is readbacks[2]
    assert index.wants("c0/transcript.json") == (("/messages", True),)
    assert index.wants("c9/run.json") == ()
