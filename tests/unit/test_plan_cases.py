"""Cases and per-case rules in the assertion spec (issue 35, ``verifier.plan.cases``): the
case set, each rule's instances (``R@C``, ``{case}`` replaced in file names only), and
what the expansion finds."""

from __future__ import annotations

from typing import Any

from verifier.plan.cases import (
    META,
    case_set,
    entry_pointer,
    expand,
    expanded,
    expanded_in_parts,
    findings_of,
    folders_of,
)

NAMES = [
    "evidence/assertions.json",
    "evidence/cases/a/run.json",
    "evidence/cases/a/sub/deep.json",
    "evidence/cases/b@2/run.json",
    "evidence/other.json",
]


def _spec(**extra: Any) -> dict[str, Any]:
    return {
        "cases": {"folders": "evidence/cases/*"},
        "rules": [
            {
                "id": "same",
                "kind": "equals",
                "description": "{case} keeps its {case}",
                "select": {"file": "{case}/run.json", "pointer": "/{case}"},
                "value": {"file": "{case}/literal"},
            },
            {"id": "n", "kind": "count", "description": "d", "files": "{case}/**{case}"},
        ],
        **extra,
    }


def test_the_case_set_is_the_folders_the_glob_matches() -> None:
    assert folders_of(["a/b/c.json", "a/d.json", "e.json"]) == ["a", "a/b"]
    assert case_set(_spec(), NAMES) == ("evidence/cases/a", "evidence/cases/b@2")
    assert case_set({"rules": []}, NAMES) == ()


def test_instances_come_case_by_case_and_replace_only_file_names() -> None:
    made = list(expand(_spec(), ("evidence/cases/a", "evidence/cases/b@2")))
    assert [(c, r, a["id"]) for c, r, a in made] == [
        ("evidence/cases/a", 0, "same@evidence/cases/a"),
        ("evidence/cases/a", 1, "n@evidence/cases/a"),
        ("evidence/cases/b@2", 0, "same@evidence/cases/b@2"),
        ("evidence/cases/b@2", 1, "n@evidence/cases/b@2"),
    ]
    first = made[0][2]
    assert first["select"] == {"file": "evidence/cases/a/run.json", "pointer": "/{case}"}
    assert first["description"] == "{case} keeps its {case}"  # never in a description
    assert first["value"] == {"file": "{case}/literal"}  # never in a compared value
    assert made[1][2]["files"] == "evidence/cases/a/**evidence/cases/a"  # every occurrence
    rule = _spec()["rules"][0]
    assert rule["id"] == "same" and rule["select"]["file"] == "{case}/run.json"


def test_the_expanded_spec_places_each_instance_at_its_rule() -> None:
    written = [{"id": "w", "kind": "equals", "description": "d", "select": {}, "value": 1}]
    out = expanded(_spec(assertions=written), NAMES)
    assert [a["id"] for a in out["assertions"]][:2] == ["w", "same@evidence/cases/a"]
    assert len(out["assertions"]) == 5
    assert entry_pointer(out, 0) == "/assertions/0"
    assert [entry_pointer(out, i) for i in range(1, 5)] == ["/rules/0", "/rules/1"] * 2
    assert findings_of(out) == []
    assert entry_pointer({"assertions": []}, 3) == "/assertions/3"


def test_no_cases_is_a_finding() -> None:
    spec = _spec()
    spec["cases"] = {"folders": "nowhere/*"}
    out = expanded(spec, NAMES)
    assert [f[:2] for f in findings_of(out)] == [("rule.no-cases", "/cases/folders")]
    assert out["assertions"] == []
    del spec["cases"]
    assert [f[0] for f in findings_of(expanded(spec, NAMES))] == ["rule.no-cases"]


def test_a_case_name_a_glob_cannot_hold_is_a_finding_not_a_wider_glob() -> None:
    """A glob has no escape: ``{case}`` replaced by ``cases/a*`` in a ``files`` glob would also
    match the files of ``cases/ab``, so that instance is not made; a rule whose file names
    are exact still is."""
    names = ["cases/a*/run.json", "cases/ab/run.json", "cases/b?/run.json"]
    spec = _spec()
    spec["cases"] = {"folders": "cases/*"}
    out = expanded(spec, names)
    assert [a["id"] for a in out["assertions"]] == [
        "same@cases/a*",
        "same@cases/ab",
        "n@cases/ab",
        "same@cases/b?",
    ]
    found = findings_of(out)
    assert [(f[0], f[1]) for f in found] == [("rule.case-not-literal", "/rules/1")] * 2
    assert '"cases/a*"' in found[0][2] and '"cases/b?"' in found[1][2]
    assert findings_of(expanded(_spec(), NAMES)) == []  # (no such name: no finding)


def test_instances_are_bounded() -> None:
    names = [f"evidence/cases/c{i}/run.json" for i in range(1000)]
    out = expanded(_spec(everyCaseJudged=True), names, limit=7)
    assert len(out["assertions"]) == 7
    assert [f[0] for f in findings_of(out)] == ["rule.too-many"]


def test_every_case_judged_counts_written_assertions_too() -> None:
    select = {"file": "evidence/cases/a/run.json", "pointer": ""}
    read = {"id": "w", "kind": "equals", "description": "d", "value": 1, "select": select}
    spec: dict[str, Any] = {"cases": {"folders": "evidence/cases/*"}, "assertions": [read]}
    spec["everyCaseJudged"] = True
    found = findings_of(expanded(spec, NAMES))
    assert [(f[0], f[1]) for f in found] == [("rule.case-unjudged", "/everyCaseJudged")]
    assert "evidence/cases/b@2" in found[0][2]
    spec["everyCaseJudged"] = False
    assert findings_of(expanded(spec, NAMES)) == []


def test_the_expansion_member_is_the_verifiers_own() -> None:
    """A spec that writes the expansion's member itself gets no say: it is dropped from a
    written-out spec and replaced in a rule-form one."""
    forged = {"written": 0, "ruleOf": [], "findings": [["rule.too-many", "/x", "forged"]]}
    out = expanded({**_spec(), META: forged}, NAMES)
    assert findings_of(out) == []


def _many(cases: int) -> tuple[dict[str, Any], list[str]]:
    names = [f"evidence/cases/c{i:05d}/run.json" for i in range(cases)]
    return _spec(assertions=[{"id": "w1", "kind": "count", "files": "x"}] * 3), names


def _keep(parts: list[list[Any]]) -> Any:
    def take(part: list[Any]) -> bool:
        parts.append(list(part))
        return True

    return take


def test_expanded_in_parts_makes_what_expanded_makes_cut_as_a_pack_cuts() -> None:
    """The parts, put together, are the whole expansion's assertions (the written ones first),
    cut every WINDOW entries from the first as PackedDocument.pack cuts the whole array; no
    part is larger; the object returned is the whole one but for its assertions."""
    from verifier.values.packed import WINDOW

    for cases, limit in [(0, 10), (1, 10), (WINDOW // 2 - 2, 100_000), (WINDOW, 100_000)]:
        for cut in (limit, 7):
            spec, names = _many(cases)
            whole = expanded(spec, names, limit=cut)
            parts: list[list[Any]] = []
            shell = expanded_in_parts(spec, names, _keep(parts), cut)
            assert shell is not None
            assert [a for part in parts for a in part] == whole["assertions"]
            assert all(len(p) == WINDOW for p in parts[:-1])
            assert all(0 < len(p) <= WINDOW for p in parts)
            assert shell == {**whole, "assertions": []}


def test_expanded_in_parts_stops_at_a_refused_part() -> None:
    from verifier.values.packed import WINDOW

    spec, names = _many(WINDOW)
    seen: list[int] = []

    def refuse_second(part: list[Any]) -> bool:
        seen.append(len(part))
        return len(seen) < 2

    assert expanded_in_parts(spec, names, refuse_second) is None
    assert seen == [WINDOW, WINDOW]  # (the expansion went no further)


def test_a_rule_spec_is_never_expanded_whole_when_its_parts_can_be_packed(
    tmp_path: Any, monkeypatch: Any
) -> None:
    """The records' plan expands a rule-form spec a part at a time, each part packed and its
    needs indexed as it is made (the whole expansion was the main process's peak: about
    70 MB at 100,000 records); the judged report is the one the whole expansion gave."""
    from pathlib import Path

    from tests.acceptance.test_executors_differential import _generator
    from verifier import verify
    from verifier.plan import records
    from verifier.values.packed import WINDOW
    from verifier.views.check.json_view import render

    root = Path(tmp_path) / "a"
    _generator().generate(str(root), 3 * WINDOW, 5, 0, 0, rules=True)  # 3 parts of instances
    # a damaged archive: a record whose bytes changed (manifest.mismatch), mid-way
    records_made = sorted((root / "evidence").rglob("*.json"))
    damaged = records_made[len(records_made) // 2]
    damaged.write_bytes(damaged.read_bytes() + b" ")
    parts_made = records.RecordPlan._rules_in_parts
    counted: list[int] = []
    # (rules judged where their cases are read are not expanded at all: the expansion is
    # what a rule not confined to its case takes)
    monkeypatch.setattr(records, "planned", lambda *args: None)

    def whole_first(self: Any, spec: Any, inside: list[str]) -> Any:
        counted.append(1)
        return None  # the fallback: the whole expansion, as before

    monkeypatch.setattr(records.RecordPlan, "_rules_in_parts", whole_first)
    before = render(verify(root))
    assert counted == [1]
    monkeypatch.setattr(records.RecordPlan, "_rules_in_parts", parts_made)

    def whole(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("expanded whole")

    monkeypatch.setattr(records, "expanded", whole)
    report = verify(root)
    assert len(report.assertions) > 2 * WINDOW and not report.ok
    assert [f.path for f in report.integrity.findings] == [damaged.relative_to(root).as_posix()]
    assert render(report) == before
