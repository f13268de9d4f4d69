"""What the main process keeps of each file stays small: an object extracted from many records
holds its keys once (shared, not a copy per record), and the value is the same JSON value."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest

from tests.jsonvalues import same_json
from verifier.values.extract import extract


def _parsed(text: str) -> Any:
    return json.loads(text)  # a fresh parse: fresh key strings, as in each record's own parse


def test_an_extracted_object_shares_its_keys_between_records() -> None:
    text = '{"counters": {"toolExecutions": 1, "gatewayRequests": 2}, "id": "x"}'
    wants = (("/counters", False), ("/id", False))
    first, second = (extract(_parsed(text), wants) for _ in range(2))
    assert first == second == {"/counters": {"toolExecutions": 1, "gatewayRequests": 2}, "/id": "x"}
    assert list(first["/counters"]) == ["toolExecutions", "gatewayRequests"]  # order kept
    for a, b in zip(first["/counters"], second["/counters"], strict=True):
        assert a is b
    # and so a batch of them crosses from a worker with one copy of each key
    back = pickle.loads(pickle.dumps([first, second], protocol=pickle.HIGHEST_PROTOCOL))
    for a, b in zip(back[0]["/counters"], back[1]["/counters"], strict=True):
        assert a is b


def test_what_is_not_an_object_is_extracted_as_it_is() -> None:
    value = _parsed('{"a": [1, {"k": 2}], "b": {}, "c": "s"}')
    got = extract(value, (("/a", False), ("/b", False), ("/c", False), ("/a", True)))
    assert got == {"/a": [1, {"k": 2}], "/b": {}, "/c": "s", "#/a": 2}
    assert got["/a"] is value["a"]


def test_a_kept_document_holds_each_repeated_string_once() -> None:
    from verifier.json.parse import loads_strict

    spec = {
        "assertions": [
            {
                "kind": "same-value",
                "description": "Receipt and readback agree.",
                "selects": [
                    {"file": f"evidence/{i}/run.json", "pointer": "/receipt/id"},
                    {"file": f"evidence/{i}/readback.json", "pointer": "/object/id"},
                ],
            }
            for i in range(3)
        ]
    }
    data = json.dumps(spec).encode()
    listed = "evidence/1/run.json"
    strings = {listed: listed}
    value, problems = loads_strict(data, strings=strings)
    assert (value, problems) == loads_strict(data) == (spec, [])
    first, second = value["assertions"][0], value["assertions"][2]
    assert first["kind"] is second["kind"] and first["description"] is second["description"]
    assert first["selects"][1]["pointer"] is second["selects"][1]["pointer"]
    assert value["assertions"][1]["selects"][0]["file"] is listed  # the manifest's own string
    # without the table, each string is its own copy (what the table saves)
    plain, _ = loads_strict(data)
    assert plain["assertions"][0]["kind"] is not plain["assertions"][2]["kind"]


def test_a_shared_string_table_keeps_a_repeated_key_s_value_and_its_finding() -> None:
    from verifier.json.parse import loads_strict

    data = b'{"a": "x", "b": {"k": "first", "k": "last"}, "c": ["x", "y"]}'
    value, problems = loads_strict(data, strings={})
    assert (value, problems) == loads_strict(data)
    assert value["b"] == {"k": "last"} and [p.code for p in problems] == ["record.duplicate-key"]


def test_the_documents_kept_share_the_manifest_s_names() -> None:
    from verifier.plan.records import RecordPlan

    name = "evidence/cases/a/run.json"
    spec = {"assertions": [{"kind": "count", "select": {"file": name, "pointer": "/x"}}] * 2}
    for prefix, shared in (("", True), ("content/", False)):
        plan = RecordPlan(prefix, validate=False)
        listed = prefix + name
        plan.prepare({prefix + "evidence/assertions.json": json.dumps(spec).encode()}, [listed])
        kept = plan.kept["evidence/assertions.json"]["assertions"]
        assert kept == spec["assertions"]
        assert (kept[0]["select"]["file"] is listed) is shared
        assert kept[0]["select"]["pointer"] is kept[1]["select"]["pointer"]


def test_a_batch_holds_each_repeated_pass_message_once() -> None:
    from verifier.assertions.count import Count
    from verifier.assertions.unchanged import Unchanged
    from verifier.values.records import Records

    store = Records()
    counters = {"toolExecutions": 1, "gatewayRequests": 1}
    for case in ("a", "b"):
        store.add(
            f"{case}/run.json",
            {"/counters": dict(counters), "/after": dict(counters), "#/messages": 5},
        )
    count = [
        {"kind": "count", "select": {"file": f"{c}/run.json", "pointer": "/messages"}, "equals": 5}
        for c in "ab"
    ]
    same = [
        {
            "kind": "unchanged",
            "before": {"file": f"{c}/run.json", "pointer": "/counters"},
            "after": {"file": f"{c}/run.json", "pointer": "/after"},
        }
        for c in "ab"
    ]
    for kind, specs in ((Count(), count), (Unchanged(), same)):
        first, second = kind.quick(specs, store)
        assert first is not None and second is not None
        assert first[0] == second[0] and first[0] is second[0]  # one message, held once
        assert first[1] != second[1]  # each its own reads


def test_equal_objects_of_scalars_are_one_object_per_batch() -> None:
    wants = (("/counters", False),)
    shared: dict[Any, Any] = {}
    text = '{"counters": {"toolExecutions": 1, "gatewayRequests": 2, "name": "x", "n": null}}'
    first, second = (extract(_parsed(text), wants, shared)["/counters"] for _ in range(2))
    assert first == second and first is second
    assert extract(_parsed(text), wants)["/counters"] is not first  # no table: a copy each
    back = pickle.loads(pickle.dumps([first, second], protocol=pickle.HIGHEST_PROTOCOL))
    assert back[0] is back[1]  # the batch crosses with one copy
    # equal in Python but not the same JSON value, another order, a float, a container:
    # never merged
    for other in (
        '{"counters": {"toolExecutions": true, "gatewayRequests": 2, "name": "x", "n": null}}',
        '{"counters": {"gatewayRequests": 2, "toolExecutions": 1, "name": "x", "n": null}}',
        '{"counters": {"toolExecutions": 1.0, "gatewayRequests": 2, "name": "x", "n": null}}',
    ):
        got = extract(_parsed(other), wants, shared)["/counters"]
        assert got is not first and got == json.loads(other)["counters"]
        assert list(got) == list(json.loads(other)["counters"])
    signed = [
        extract(_parsed(f'{{"counters": {{"a": {z}}}}}'), wants, shared) for z in ("0.0", "-0.0")
    ]
    assert signed[0]["/counters"] is not signed[1]["/counters"]
    assert str(signed[1]["/counters"]["a"]) == "-0.0"
    nested = '{"counters": {"a": [1]}}'
    one, two = (extract(_parsed(nested), wants, shared)["/counters"] for _ in range(2))
    assert one == two and one is not two


def test_equal_strings_extracted_in_a_batch_are_one_string() -> None:
    """A receipt's id and its readback's, read in one batch: one string, pickled once; a
    string equal to an object's shared key, or read without a table, is its own."""
    wants = (("/id", False),)
    shared: dict[Any, Any] = {}
    first, second = (
        extract(_parsed(json.dumps({"id": "pi_" + "x" * 24})), wants, shared)["/id"]
        for _ in range(2)
    )
    assert first == second and first is second
    back = pickle.loads(pickle.dumps([first, second], protocol=pickle.HIGHEST_PROTOCOL))
    assert back[0] is back[1]
    alone = extract(_parsed(json.dumps({"id": "pi_" + "x" * 24})), wants)["/id"]
    assert alone == first and alone is not first
    other = extract(_parsed('{"id": "pi_y"}'), wants, shared)["/id"]
    assert other == "pi_y" and other is not first
    number = extract(_parsed('{"id": 7}'), wants, shared)["/id"]
    assert number == 7 and type(number) is int  # (only strings are shared so)


def test_the_kept_documents_are_packed_and_come_back_the_same_values() -> None:
    from verifier.plan.records import RecordPlan

    text = (
        '{"assertions": [{"kind": "count", "select": {"file": "evidence/a.json", "pointer": "/x"},'
        ' "equals": 5, "big": 123456789012345678901234567890, "neg": -0, "f": 0.5, "e": 1e-5,'
        ' "t": true, "one": 1, "n": null, "s": "caf\\u00e9 \\ud800 \\u0000", "deep": [[{}], []],'
        ' "z": 1, "a": 2}], "transcripts": []}'
    )
    catalogue = '{"cases": [{"id": "c1", "title": "x"}]}'
    plan = RecordPlan("", validate=False)
    plan.prepare(
        {"evidence/assertions.json": text.encode(), "evidence/cases.json": catalogue.encode()}
    )
    spec, cases = json.loads(text), json.loads(catalogue)
    assert same_json(plan.kept["evidence/assertions.json"], spec)
    plan.pack()
    assert plan.kept == {}  # nothing held as objects while the records are inspected
    assert sorted(plan.packed) == ["evidence/assertions.json", "evidence/cases.json"]
    back = plan.unpack()
    assert list(back) == ["evidence/assertions.json", "evidence/cases.json"]  # order kept
    assert same_json(back["evidence/assertions.json"], spec)
    assert same_json(back["evidence/cases.json"], cases)
    assert plan.packed == {} and plan.unpack() is back  # unpacked once; again: nothing to do


def test_a_document_that_cannot_be_packed_is_kept_as_it_is() -> None:
    from verifier.json.numbers import JsonFloat
    from verifier.plan.records import RecordPlan

    # a number no double holds keeps its literal (a float subclass); an object that repeats
    # a key remembers it (a dict subclass): both stay the objects they are
    spec = b'{"assertions": [], "x": 0.1000000000000000055511151231257827}'
    catalogue = b'{"cases": [], "k": 1, "k": 2}'
    plan = RecordPlan("", validate=False)
    plan.prepare({"evidence/assertions.json": spec, "evidence/cases.json": catalogue})
    held = dict(plan.kept)
    assert type(held["evidence/assertions.json"]["x"]) is JsonFloat
    plan.pack()
    assert plan.packed == {}
    assert all(plan.kept[p] is held[p] for p in held)
    assert all(plan.unpack()[p] is held[p] for p in held)


def test_a_run_reports_the_same_with_the_documents_packed_or_not(
    archive: Any, monkeypatch: Any
) -> None:
    from tests.tampered import tamper
    from verifier import pipeline
    from verifier.plan.records import RecordPlan
    from verifier.views.clean import dumps_clean

    tamper(archive)
    packed: list[int] = []
    pack = RecordPlan.pack

    def counting(self: RecordPlan) -> None:
        pack(self)
        packed.append(len(self.packed))

    monkeypatch.setattr(RecordPlan, "pack", counting)
    with_packing = pipeline.verify(archive)
    assert packed and packed[-1] >= 1  # the spec (and the catalogue) were packed
    monkeypatch.setattr(RecordPlan, "pack", lambda self: None)
    without = pipeline.verify(archive)
    assert dumps_clean(with_packing.to_dict()) == dumps_clean(without.to_dict())
    assert with_packing.assertions and not with_packing.ok  # the tampered archive was judged


def test_a_dropped_listing_cannot_be_read_as_an_empty_one() -> None:
    import pytest

    from verifier.plan.entries import ManifestPlan

    plan = ManifestPlan("manifest.sha256", "manifest.sha256", "", "sha256", False)
    plan.wanted["evidence/a.json"] = "0" * 64
    plan.scope.append("evidence")
    plan.drop()
    assert plan.scope == ["evidence"]  # what the report names stays
    for read in (
        lambda: plan.wanted["evidence/a.json"],
        lambda: "evidence/a.json" in plan.kinds,
        lambda: len(plan.relative),
        lambda: list(plan.first_line),
        lambda: plan.wanted.get("evidence/a.json"),
        lambda: list(plan.kinds.items()),
    ):
        with pytest.raises(RuntimeError, match="after integrity was judged"):
            read()


def test_a_run_drops_the_listings_after_judging_integrity(archive: Any, monkeypatch: Any) -> None:
    from tests.tampered import tamper
    from verifier import pipeline
    from verifier.plan.plan import Plan

    tamper(archive)  # mismatches: hints and the integrity judge read the listings first
    dropped: list[Plan] = []
    drop = Plan.drop_listings

    def recording(self: Plan) -> None:
        drop(self)
        dropped.append(self)

    monkeypatch.setattr(Plan, "drop_listings", recording)
    report = pipeline.verify(archive)
    assert len(dropped) == 1 and dropped[0].order == []
    assert report.files and not report.ok  # judged from the listings before they were dropped


def test_a_large_spec_is_packed_in_parts_that_come_back_in_order(monkeypatch: Any) -> None:
    from verifier.values import packed
    from verifier.values.packed import PackedDocument

    monkeypatch.setattr(packed, "WINDOW", 3)
    spec = {"a": 1, "assertions": [{"id": str(i), "x": [i, "s"]} for i in range(8)], "z": None}
    held = PackedDocument.pack(spec, "assertions")
    assert held is not None and held.truthy
    windows = held.windows()
    assert windows is not None
    got = list(windows)
    assert [start for start, _ in got] == [0, 3, 6]
    assert [item for _, items in got for item in items] == spec["assertions"]
    again = held.windows()  # parts are unpacked afresh each time, never kept
    assert again is not None and [len(items) for _, items in again] == [3, 3, 2]
    whole = held.value()
    assert same_json(whole, spec) and list(whole) == ["a", "assertions", "z"]  # key order
    assert held.value() is whole and held.windows() is None  # read whole from now on


def test_a_spec_s_repeated_text_is_held_compressed() -> None:
    """A spec repeats its kinds, descriptions, pointers and file names from one assertion to
    the next: its packed parts are compressed, a fraction of what :mod:`marshal` writes."""
    import marshal

    from verifier.values.packed import WINDOW, PackedDocument

    spec = {
        "assertions": [
            {
                "id": f"c{i:06d}.same-payment",
                "kind": "same-value",
                "description": "Receipt and readback agree.",
                "selects": [
                    {"file": f"evidence/cases/{i:06d}/run.json", "pointer": "/receipt/id"},
                    {"file": f"evidence/cases/{i:06d}/readback.json", "pointer": "/object/id"},
                ],
            }
            for i in range(2 * WINDOW + 5)
        ]
    }
    held = PackedDocument.pack(spec, "assertions")
    assert held is not None
    assert 0 < held.nbytes < len(marshal.dumps(spec, 4)) / 5
    assert same_json(held.value(), spec) and held.nbytes == 0


def test_a_small_spec_or_other_document_is_packed_whole() -> None:
    from verifier.values.packed import WINDOW, PackedDocument

    for value, key in (
        ({"assertions": [{"id": "a"}] * WINDOW}, "assertions"),
        ({"cases": list(range(WINDOW + 1))}, None),
        ({"assertions": "not a list"}, "assertions"),
        ([], "assertions"),
    ):
        held = PackedDocument.pack(value, key)
        assert held is not None and held.windows() is None
        assert same_json(held.value(), value) and held.truthy is bool(value)


def test_the_run_judges_a_spec_in_parts_and_reports_the_same(
    archive: Any, monkeypatch: Any
) -> None:
    """On a damaged archive, a spec judged a part at a time (parts of two assertions) gives
    the same report as the spec read whole."""
    from tests.tampered import tamper
    from verifier import pipeline
    from verifier.values import packed
    from verifier.values.records import Records
    from verifier.views.clean import dumps_clean

    tamper(archive)
    whole = pipeline.verify(archive)
    monkeypatch.setattr(packed, "WINDOW", 2)
    asked: list[bool] = []
    windows = Records.windows

    def counting(self: Records, path: str) -> Any:
        found = windows(self, path)
        asked.append(found is not None)
        return found

    monkeypatch.setattr(Records, "windows", counting)
    in_parts = pipeline.verify(archive)
    assert any(asked)  # the spec was judged in parts
    assert dumps_clean(in_parts.to_dict()) == dumps_clean(whole.to_dict())
    assert in_parts.assertions and not in_parts.ok


def test_a_record_without_findings_holds_no_list_of_its_own() -> None:
    """A record that is not a transcript (most of them) holds the one shared empty tuple for
    its transcript findings, not an empty list per record in the main process."""
    from pathlib import Path

    from verifier.record.check import process_record
    from verifier.schema.bundle import prepare_validity

    root = Path(__file__).resolve().parents[2]
    contents = {f"schemas/{p.name}": p.read_bytes() for p in (root / "schemas").glob("*.json")}
    prep = prepare_validity(contents, "schemas", True)
    data = b'{"$schema": "https://verifier.invalid/schemas/readback.schema.json"}'
    first, _ = process_record(prep, "a.json", data, ())
    second, _ = process_record(prep, "b.json", data, ())
    assert first.transcript == () and first.transcript is second.transcript


def test_a_plain_record_is_held_as_its_values_alone_and_judged_the_same() -> None:
    """The main process holds a plain record's result (parsed, validated against one
    schema, nothing found) as its extracted values, flat; any other result as it is. The
    result comes back the same, and the validity stage and the value store judge a mix of
    both as they judge the results themselves."""
    import sys

    from verifier.findings import Finding
    from verifier.judge.validity import check_validity
    from verifier.record.check import RecordResult, held_form, judged_form
    from verifier.values.extract import Unresolved
    from verifier.values.needs import flat, flat_get
    from verifier.values.records import Records

    values = {"/id": "pi_1", "#/items": 2, "/items": [1, 2], "/gone": Unresolved("no /gone")}
    plain = RecordResult((), (), True, 1, values)
    held = held_form(plain)
    assert type(held) is tuple and held == flat(values)
    assert judged_form(held) == plain._replace(extracted=held)  # (its values still flat)
    assert sys.getsizeof(held) < sys.getsizeof(values)
    assert [flat_get(held, k, "none") for k in (*values, "/other")] == [*values.values(), "none"]
    nothing = RecordResult((), (), True, 1, None)
    assert held_form(nothing) == () and judged_form(()) == nothing
    finding = Finding("schema.invalid", "b.json", "It is not valid.", pointer="/id")
    others = [
        RecordResult([finding], (), True, 1, {"/id": "x"}),  # a finding
        RecordResult((), [finding], True, 1, None),  # a transcript finding
        RecordResult((), (), False, 0, None),  # not parsed
        RecordResult((), (), True, 0, {"/id": "y"}),  # no schema checked
    ]
    assert all(held_form(r) is r for r in others)

    from verifier.schema.bundle import Prepared

    prep = Prepared(True, "schemas", schema_count=1)
    results = {"a.json": plain, "b.json": others[0], "c.json": others[1], "d.json": others[2]}
    results |= {"e.json": others[3], "f.json": nothing}
    whole_store, held_store = Records(), Records()
    whole = check_validity(prep, results, whole_store)
    compact = check_validity(prep, {p: held_form(r) for p, r in results.items()}, held_store)
    assert whole.stage.to_dict() == compact.stage.to_dict()
    assert whole.stage.counts["validated"] == 4 and len(whole.stage.findings) == 2
    for path in ("a.json", "b.json", "e.json"):
        for pointer in ("/id", "/other"):
            assert whole_store.quick_value(path, pointer) is held_store.quick_value(path, pointer)
    assert held_store.quick_length("a.json", "/items") == 2 == held_store.length("a.json", "/items")
    assert (
        list(held_store) == list(whole_store) == ["a.json", "b.json", "c.json", "e.json", "f.json"]
    )


def test_a_file_read_as_listed_is_held_as_its_size_and_its_digest_comes_back() -> None:
    """A file whose digest is the one its manifest lists, with nothing else to say, is held
    as its size: the SHA-256 is the plan's own string, given back whole when asked for.
    Anything else (a variant, a further algorithm, a digest the plan does not give for that
    name, no plan at all) is held as it came."""
    import sys

    from verifier.inspect.digest import Digest
    from verifier.inspect.gather import HeldDigests

    listed = {"a.json": "a" * 64, "b.txt": "b" * 64}
    held = HeldDigests(listed.get)
    plain = Digest("", 10)  # (AS_EXPECTED: the worker's mark for "as listed")
    held.hold("a.json", plain, listed["a.json"])
    assert held["a.json"] == Digest("a" * 64, 10) and held["a.json"].sha256 is listed["a.json"]
    assert sys.getsizeof(held._held["a.json"]) < sys.getsizeof(held["a.json"])
    variant = Digest("", 11, "c" * 64, None)
    held.hold("b.txt", variant, listed["b.txt"])
    assert held["b.txt"] == Digest("b" * 64, 11, "c" * 64, None)
    other = "b" * 63 + "c"  # not the string the plan gives this name
    held.hold("a.json", plain, other)
    assert held["a.json"].sha256 == other
    held["x.bin"] = Digest("d" * 64, 3)  # read for a hint: as it came
    assert dict(held) == {
        "a.json": Digest(other, 10),
        "b.txt": Digest("b" * 64, 11, "c" * 64, None),
        "x.bin": Digest("d" * 64, 3),
    }
    assert "x.bin" in held and held.pop("x.bin") == Digest("d" * 64, 3) and len(held) == 2
    held.clear()
    assert not held
    alone = HeldDigests()  # no plan: nothing held by size
    alone.hold("a.json", plain, listed["a.json"])
    assert alone._held["a.json"] == Digest("a" * 64, 10)


def test_an_assertion_s_reads_name_files_by_the_report_s_own_strings(
    archive: Any, monkeypatch: Any
) -> None:
    """A spec judged a part at a time unpacks each part afresh, with strings of its own: a
    result's reads are named by the strings the report's file entries hold, not by copies
    kept to the end of the run (about 10 MB at 100,000 records)."""
    from verifier import pipeline
    from verifier.values import packed

    monkeypatch.setattr(packed, "WINDOW", 2)
    report = pipeline.verify(archive)
    held = {entry.path: entry.path for entry in report.files}
    reads = [read for result in report.assertions for read in result.reads]
    listed = [read for read in reads if read.path in held]
    assert len(listed) > 100  # (the comparison below looks at something)
    assert all(held[read.path] is read.path for read in listed)


def test_the_records_give_back_the_string_they_hold_for_a_path() -> None:
    from verifier.values.records import Records

    records = Records()
    name = "".join(["evidence/", "a.json"])  # (made here, not a constant of the test)
    records.add(name, {"/x": 1})
    copy = "".join(["evidence/", "a.json"])
    assert copy == name and copy is not name
    assert records.own(copy) is name and records.own("evidence/b.json") == "evidence/b.json"
    assert name in records and list(records) == [name] and len(records) == 1
    again = records.replaced(copy, {"/x": 2})
    assert again.own(copy) is name and again.quick_value(name, "/x") == 2
    moved = records.rebased("root")
    assert moved.own("root/evidence/a.json") == "root/evidence/a.json"
    assert list(moved.within("root")) == [name] and moved.within("root").own(name) == name


def test_the_records_results_are_packed_as_they_come_and_given_back_in_order(
    monkeypatch: Any,
) -> None:
    """Results held through the records phase are packed a part at a time and come back
    equal, in the order they came, with their paths (a path twice: its first place and its
    last result, as a table's update takes them)."""
    from verifier.inspect.gather import RecordLog
    from verifier.record.check import RecordResult
    from verifier.values.extract import Unresolved

    monkeypatch.setattr(RecordLog, "PART", 3)
    log = RecordLog()
    counters = {"toolExecutions": 1}
    came: list[tuple[str, Any]] = [
        (f"r{i}.json", ("/counters", counters, "/id", f"pi_{i}", "/gone", Unresolved("no")))
        for i in range(7)
    ]
    came.insert(4, ("r1.json", RecordResult((), (), True, 1, None)))
    for path, result in came:
        log.add(path, result)
    assert len(log) == 8 and len(log._packed) == 2 and len(log._pending) == 2
    assert list(log.items()) == came  # (equal objects: packed ones are copies)
    table = dict(log.items())
    assert list(table) == [f"r{i}.json" for i in range(7)]
    assert table["r1.json"] == RecordResult((), (), True, 1, None)
    log.clear()
    assert len(log) == 0 and list(log.items()) == []


def test_the_listed_files_read_are_the_entries_with_a_digest_made_when_first_asked() -> None:
    """What the consistency stage names a read against: each listed entry the run read (a
    digest: ok, mismatched, or unreadable for a further algorithm), inside the content
    root; never a listed file it could not read, nor an unlisted one. Made only when asked."""
    from verifier.judge.integrity import ReadListed
    from verifier.report import FileEntry

    digest = "a" * 64
    files = [
        FileEntry("data/ok.json", digest, 3, True, "ok", digest),
        FileEntry("data/bad.json", "b" * 64, 3, True, "mismatch", digest),
        FileEntry("data/md5.json", digest, 3, True, "unreadable", "c" * 32, "md5"),
        FileEntry("data/gone.json", None, None, True, "missing", digest),
        FileEntry("data/locked.json", None, None, True, "unreadable"),
        FileEntry("data/link.json", None, None, True, "unsafe"),
        FileEntry("data/extra.json", digest, 3, False, "unlisted"),
        FileEntry("tagmanifest-sha256.txt", digest, 9, True, "ok", digest),
    ]
    inside = ReadListed(files, "data/")
    assert inside._made is None
    assert "ok.json" in inside and "gone.json" not in inside
    assert inside._made is not None
    assert set(inside) == {"ok.json", "bad.json", "md5.json"} and len(inside) == 3
    whole = ReadListed(files)
    assert sorted(whole) == [
        "data/bad.json",
        "data/md5.json",
        "data/ok.json",
        "tagmanifest-sha256.txt",
    ]


def test_a_run_where_every_read_succeeds_never_makes_the_set_of_listed_files(
    archive: Any, monkeypatch: Any
) -> None:
    from verifier import pipeline
    from verifier.judge import integrity

    made: list[int] = []
    names = integrity.ReadListed._names

    def counted(self: Any) -> set[str]:
        made.append(1)
        return names(self)

    monkeypatch.setattr(integrity.ReadListed, "_names", counted)
    report = pipeline.verify(archive)
    assert report.assertions and made == []


def test_an_assertion_result_holds_its_reads_flat_and_gives_them_back() -> None:
    """A result's reads are held as one flat tuple of strings and given back as Reads, in
    order: equal results stay equal, replace() keeps them, the dict is the same."""
    import sys
    from dataclasses import replace

    from verifier.findings import Finding
    from verifier.report import AssertionResult, AssertionStatus, Read

    reads = (Read("run.json", "/receipt/id"), Read("readback.json", "/object/id"))
    made = AssertionResult("a1", "same-value", "d", AssertionStatus.PASSED, "m", reads)
    assert made.reads == reads and all(type(r) is Read for r in made.reads)
    assert made.flat_reads == ("run.json", "/receipt/id", "readback.json", "/object/id")
    assert made.flat_reads[0] is reads[0].path  # (the strings themselves, not copies)
    assert sys.getsizeof(made.flat_reads) < sys.getsizeof(reads) + 2 * sys.getsizeof(reads[0])
    again = AssertionResult("a1", "same-value", "d", AssertionStatus.PASSED, "m", list(reads))
    assert again == made and hash(again) == hash(made)
    other = AssertionResult("a1", "same-value", "d", AssertionStatus.PASSED, "m", reads[:1])
    assert other != made and other.reads == reads[:1]
    assert AssertionResult("a2", "count", "d", AssertionStatus.ERROR, "m", ()).reads == ()
    finding = Finding("assertion.failed", "spec.json", "failed")
    moved = replace(made, finding=finding, status=AssertionStatus.FAILED)
    assert moved.reads == reads and moved.finding is finding
    assert made.to_dict()["reads"] == [r.to_dict() for r in reads]
    assert "reads=(Read(path='run.json'" in repr(made)
    with pytest.raises(TypeError):
        AssertionResult("a", "k", "d", AssertionStatus.PASSED, "m", reads, flat_reads=("x", ""))


def test_a_listing_s_kinds_are_what_a_table_of_them_would_say() -> None:
    """The listed names' kinds, held as the sorted names and the few that are not regular
    files, answer as ``dict.fromkeys(order, FILE)`` with the same writes: each kind, in
    order, with its count; a name not listed is refused, not added."""
    from verifier.plan.entries import ListedKinds
    from verifier.sources.interface import Kind

    listing = {"b.json": "1" * 64, "a.json": "2" * 64, "c/d.json": "3" * 64}
    order = sorted(listing)
    held, table = ListedKinds(listing, order), dict.fromkeys(order, Kind.FILE)
    assert dict(held) == table and list(held) == list(table) and len(held) == 3
    for name, kind in (("b.json", Kind.MISSING), ("c/d.json", Kind.REFUSED), ("a.json", Kind.FILE)):
        held[name] = table[name] = kind
    held["b.json"] = table["b.json"] = Kind.FILE  # (back to a regular file)
    assert dict(held) == table and list(held.items()) == list(table.items())
    assert held.get("x.json") is None and "x.json" not in held and not held.__contains__(7)
    with pytest.raises(KeyError):
        held["x.json"] = Kind.FILE
    del held["c/d.json"], table["c/d.json"]
    assert dict(held) == table and len(held) == 2 and "c/d.json" not in held
    with pytest.raises(KeyError):
        held["c/d.json"]
    with pytest.raises(ValueError):
        ListedKinds(listing, order[:2])
