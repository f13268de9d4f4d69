"""``coverage --mutate``: the mutation engine (verifier/coverage/mutate.py), its candidates,
the schema rule it names, and its two judges.

Every test mutates a copy of the bundled archive (or the bundled archive, only read); the
spec is weakened or the catalogue widened in the copy, and the survivor appears where the
change made one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.archives import snapshot, zip_tree
from tests.conftest import REPO, copy_bundled, rewrite_manifest
from verifier.assertions import KINDS
from verifier.coverage import MutationOptions, audit
from verifier.coverage.candidates import candidates, unmutable
from verifier.coverage.mutate import select
from verifier.coverage.report import CoverageReport, LeafStatus, Mutant, MutantOutcome

SPEC = "evidence/assertions.json"
CATALOGUE = "evidence/cases.json"


def mutated(root: Path | str, **given: Any) -> CoverageReport:
    return audit(root, None, None, MutationOptions(**{"workers": 2, "max_mutants": None, **given}))


@pytest.fixture(scope="module")
def bundled() -> CoverageReport:
    """The untouched bundled archive, mutated (read in place: never written)."""
    return mutated(REPO)


def by_place(report: CoverageReport) -> dict[tuple[str, str], Mutant]:
    assert report.mutation is not None
    return {(m.path, m.pointer): m for m in report.mutation.mutants}


def survivors(report: CoverageReport) -> set[tuple[str, str]]:
    return {k for k, m in by_place(report).items() if m.outcome is MutantOutcome.SURVIVED}


def spec_kinds() -> dict[str, str]:
    spec = json.loads((REPO / SPEC).read_text(encoding="utf-8"))
    return {a["id"]: a["kind"] for a in spec["assertions"]}


# candidates -------------------------------------------------------------------------------


def test_candidates_keep_the_json_type() -> None:
    assert candidates(5, []) == [6, 4, 0]
    assert candidates(0, []) == [1, -1]
    assert all(type(c) is int for c in candidates(7, []))
    assert all(type(c) is float for c in candidates(2.5, []))
    assert candidates(True, []) == [False]
    assert candidates("ab", [])[0] == "ac"
    assert candidates("2026-10-22T19:35:00Z", [])[:2] == [
        "2026-10-22T19:35:00A",
        "2026-10-22T19:35:01Z",
    ]
    assert candidates("", []) and all(c for c in candidates("", []))
    # an enum's other members first, only of the same type, never the value itself
    assert candidates("a", ["b", 1, "a", "c"])[:2] == ["b", "c"]
    assert candidates(1, [True, 2])[0] == 2


def test_null_and_empty_containers_are_not_mutated() -> None:
    assert unmutable(None) and unmutable([]) and unmutable({})
    assert unmutable(0) is None and unmutable("") is None and unmutable(False) is None


def test_selection_is_deterministic_for_a_seed() -> None:
    assert select(10, None, 3) == list(range(10))
    assert select(10, 20, 3) == list(range(10))
    picked = select(100, 7, 1)
    assert picked == select(100, 7, 1) and picked == sorted(picked) and len(set(picked)) == 7
    assert picked != select(100, 7, 2)


# the bundled archive ----------------------------------------------------------------------


def test_every_covered_leaf_gets_one_mutant(bundled: CoverageReport) -> None:
    covered = [
        (f.path, leaf.pointer)
        for f in bundled.files
        for leaf in f.leaves
        if leaf.status is LeafStatus.COVERED
    ]
    assert bundled.mutation is not None
    assert [(m.path, m.pointer) for m in bundled.mutation.mutants] == covered
    assert bundled.mutation.not_run == 0
    for m in bundled.mutation.mutants:
        if m.outcome is MutantOutcome.SKIPPED:
            assert m.rule  # a stated reason
            assert m.tried is None
        else:
            assert m.tried != m.original and type(m.tried) is type(m.original)
            assert m.rule  # the schema rule that allowed it


def test_equals_covered_values_are_killed(bundled: CoverageReport) -> None:
    kinds = spec_kinds()
    leaves = {(f.path, leaf.pointer): leaf for f in bundled.files for leaf in f.leaves}
    checked = 0
    for place, m in by_place(bundled).items():
        if m.outcome is MutantOutcome.SKIPPED:
            continue
        if any(kinds.get(b) == "equals" for b in leaves[place].by):
            assert m.outcome is MutantOutcome.KILLED, (place, m)
            assert m.killed_by
            checked += 1
    assert checked > 50


def test_survivors_and_skips_are_findings(bundled: CoverageReport) -> None:
    survived = {(f.path, f.pointer) for f in bundled.findings if f.code == "coverage.survived"}
    assert survived == survivors(bundled)
    skipped = {(f.path, f.pointer) for f in bundled.findings if f.code == "coverage.not-mutated"}
    assert skipped == {
        k for k, m in by_place(bundled).items() if m.outcome is MutantOutcome.SKIPPED
    }
    for f in bundled.findings:
        if f.code == "coverage.survived":
            m = by_place(bundled)[(f.path, f.pointer or "")]
            assert json.dumps(m.tried) in f.message and "schemas/" in f.message


def test_the_rule_names_the_governing_subschema(bundled: CoverageReport) -> None:
    """A value under an enum, reached through $ref into common.schema.json: the rule names
    that file and pointer; a string with no enum/const/pattern says so."""
    rules = [m.rule for m in by_place(bundled).values() if m.outcome is not MutantOutcome.SKIPPED]
    assert any("schemas/common.schema.json#/$defs/" in r for r in rules)
    assert any("enum of" in r for r in rules)
    assert any("no enum/const/pattern" in r for r in rules)


@pytest.mark.slow  # every mutant of the bundled archive, judged twice
def test_fast_and_full_judges_agree_on_every_mutant(bundled: CoverageReport) -> None:
    """The differential test: the fast judge (default) and the reference (the whole check on
    a scratch copy per mutant) give every mutant of the bundled archive the same verdict."""
    full = mutated(REPO, full=True)
    assert full.mutation is not None and bundled.mutation is not None
    assert full.mutation.to_dict() == bundled.mutation.to_dict()


# weakened spec, widened catalogue ----------------------------------------------------------


def _drop_assertion(root: Path, aid: str) -> None:
    spec_path = root / SPEC
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    spec["assertions"] = [a for a in spec["assertions"] if a["id"] != aid]
    spec_path.write_text(json.dumps(spec, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    cat_path = root / CATALOGUE
    cases = json.loads(cat_path.read_text(encoding="utf-8"))

    def strip(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("assertions"), list):
                node["assertions"] = [a for a in node["assertions"] if a != aid]
            for v in node.values():
                strip(v)
        elif isinstance(node, list):
            for v in node:
                strip(v)

    strip(cases)
    cat_path.write_text(json.dumps(cases, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    rewrite_manifest(root)


def test_a_weakened_spec_has_a_survivor_at_that_assertions_pointer(
    tmp_path: Path, bundled: CoverageReport
) -> None:
    """Remove one equals assertion that alone killed a mutant (its value still shown by a
    catalogue cell, so still covered): that mutant now survives, and only values that
    assertion compared gain a survivor."""
    kinds = spec_kinds()
    leaves = {(f.path, leaf.pointer): leaf for f in bundled.files for leaf in f.leaves}
    chosen = next(
        (place, m.killed_by[0])
        for place, m in by_place(bundled).items()
        if m.outcome is MutantOutcome.KILLED
        and len(m.killed_by) == 1
        and kinds.get(m.killed_by[0]) == "equals"
        and any(b.startswith(CATALOGUE + "#") for b in leaves[place].by)
    )
    place, aid = chosen
    root = copy_bundled(tmp_path / "weak")
    spec = json.loads((root / SPEC).read_text(encoding="utf-8"))
    item = next(a for a in spec["assertions"] if a["id"] == aid)
    compared = {(c.file, c.pointer) for c in KINDS["equals"].covers(item)}
    _drop_assertion(root, aid)
    weak = mutated(root)
    assert weak.check_findings == 0  # the weakened archive still passes check
    gained = survivors(weak) - survivors(bundled)
    assert place in gained
    for path, pointer in gained:
        assert any(
            path == f and (pointer == p or pointer.startswith(p + "/")) for f, p in compared
        ), (path, pointer, compared)
    assert weak.fails()


def test_a_value_only_a_catalogue_cell_shows_survives(
    tmp_path: Path, bundled: CoverageReport
) -> None:
    """The catalogue displays a value, it does not assert it: an integer whose one assertion
    is removed and which is given a catalogue cell instead is covered, and its mutant
    survives."""
    place = ("evidence/e6-webhook-control/deliveries.json", "/deliveries/0/sequence")
    root = copy_bundled(tmp_path / "shown")
    spec_path = root / "evidence/assertions.json"
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    before = len(spec["assertions"])
    spec["assertions"] = [
        a for a in spec["assertions"] if a.get("select") != {"file": place[0], "pointer": place[1]}
    ]
    assert len(spec["assertions"]) == before - 1  # e6.deliveries.0.sequence, its only one
    spec_path.write_text(json.dumps(spec, indent=2) + "\n", encoding="utf-8")
    cat_path = root / CATALOGUE
    cases = json.loads(cat_path.read_text(encoding="utf-8"))
    cases["cases"][0]["outcomes"].append(
        {"label": "shown only", "select": {"file": place[0], "pointer": place[1]}}
    )
    cat_path.write_text(json.dumps(cases, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    rewrite_manifest(root)
    shown = mutated(root)
    assert shown.check_findings == 0
    leaf = next(
        leaf
        for f in shown.files
        if f.path == place[0]
        for leaf in f.leaves
        if leaf.pointer == place[1]
    )
    assert leaf.status is LeafStatus.COVERED and not leaf.asserted
    m = by_place(shown)[place]
    assert m.outcome is MutantOutcome.SURVIVED
    assert by_place(bundled)[place].outcome is MutantOutcome.KILLED  # asserted in the spec


# sources, bounds, determinism ---------------------------------------------------------------


def test_a_zip_source_is_mutated_and_never_written(tmp_path: Path) -> None:
    root = copy_bundled(tmp_path / "a")
    packed = zip_tree(root, tmp_path / "a.zip")
    before = packed.read_bytes()
    folder = mutated(root, max_mutants=12, seed=5)
    zipped = mutated(packed, max_mutants=12, seed=5)
    assert packed.read_bytes() == before
    assert folder.mutation is not None and zipped.mutation is not None
    assert zipped.mutation.to_dict() == folder.mutation.to_dict()
    full = mutated(packed, max_mutants=12, seed=5, full=True)
    assert full.mutation is not None and full.mutation.to_dict() == folder.mutation.to_dict()
    assert packed.read_bytes() == before


def test_the_folder_source_is_never_written(tmp_path: Path) -> None:
    root = copy_bundled(tmp_path / "a")
    before = snapshot(root)
    mutated(root, max_mutants=8, full=True)
    mutated(root, max_mutants=8)
    assert snapshot(root) == before


def test_max_mutants_bounds_and_reports_the_rest(bundled: CoverageReport) -> None:
    bounded = mutated(REPO, max_mutants=5, seed=3)
    assert bounded.mutation is not None and bundled.mutation is not None
    assert len(bounded.mutation.mutants) == 5
    assert bounded.mutation.not_run == len(bundled.mutation.mutants) - 5
    full = by_place(bundled)
    for place, m in by_place(bounded).items():
        assert m == full[place]  # the same verdict as in the unbounded run
    codes = [f.code for f in bounded.findings]
    assert "coverage.mutation-incomplete" in codes
    assert "coverage.mutation-incomplete" not in [f.code for f in bundled.findings]
    again = mutated(REPO, max_mutants=5, seed=3, workers=1)
    assert again.mutation is not None
    assert again.mutation.to_dict() == bounded.mutation.to_dict()
    other = mutated(REPO, max_mutants=5, seed=4)
    assert set(by_place(other)) != set(by_place(bounded))


def test_a_spent_time_budget_stops_starting_mutants() -> None:
    spent = mutated(REPO, time_budget=1e-9)
    assert spent.mutation is not None
    total = sum(1 for f in spent.files for leaf in f.leaves if leaf.status is LeafStatus.COVERED)
    assert spent.mutation.not_run > 0
    assert spent.mutation.not_run + len(spent.mutation.mutants) == total
    assert any(f.code == "coverage.mutation-incomplete" for f in spent.findings)


def test_check_consistency_only_matches_the_whole_run() -> None:
    """``only`` (the assertions that read a mutated record) gives each of those exactly its
    result in the whole run, a duplicated id included."""
    from verifier.judge.consistency import check_consistency
    from verifier.values.records import Records

    def equals(aid: str, value: int) -> dict[str, Any]:
        return {
            "id": aid,
            "kind": "equals",
            "select": {"file": "r.json", "pointer": "/n"},
            "value": value,
        }

    spec = {"assertions": [equals("a", 1), equals("b", 2), equals("a", 1), {"kind": "x"}]}
    store = Records.of({"r.json": {"n": 1}})
    store.add(SPEC, document=spec)
    _, whole = check_consistency(store, {"r.json"}, SPEC, True)
    assert [r.status.value for r in whole] == ["passed", "failed", "error", "error"]
    for only in ([0], [2], [1, 3], [3, 0, 2], [], [7]):
        _, some = check_consistency(store, {"r.json"}, SPEC, True, None, only)
        assert some == [whole[i] for i in sorted(set(only)) if i < len(whole)], only
