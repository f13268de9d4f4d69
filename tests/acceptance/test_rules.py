"""Per-case rules in the assertion spec (issue 35), through the real pipeline: a generated
archive in the rule form (``benchmarks/generate.py --rules``) checks with the same verdicts
and the same per-assertion results as its written-out form (ids aside); each rule finding
fires on a broken copy and not on the good archive; instances are covered, mutated,
baselined and placed at their rule as written-out assertions are."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import rewrite_manifest
from tests.unit.test_benchmark_generate import _generator
from verifier import verify
from verifier.plan.options import Options
from verifier.report import Report

SPEC = "evidence/assertions.json"
CASE0 = "evidence/cases/000/case-000000"
CASE1 = "evidence/cases/000/case-000001"


def _made(tmp_path: Path, name: str, rules: bool, records: int = 30) -> Path:
    out = tmp_path / name
    _generator().generate(str(out), records, 3, 0, 0, rules)
    return out


def _edit_spec(root: Path, change: Any) -> None:
    path = root / SPEC
    spec = json.loads(path.read_bytes())
    change(spec)
    path.write_text(json.dumps(spec, indent=2), encoding="utf-8")
    rewrite_manifest(root)


def _codes(report: Report) -> list[str]:
    return [f.code for stage in report.stages for f in stage.findings]


def _results(report: Report) -> list[tuple[Any, ...]]:
    return [(a.kind, a.status, a.message, a.reads) for a in report.assertions]


def _break_case1(root: Path) -> None:
    path = root / CASE1 / "run.json"
    data = json.loads(path.read_bytes())
    counters = data["counters"]
    first = sorted(counters)[0]
    counters[first] += 7  # (after the duplicate request it is no longer the same)
    path.write_text(json.dumps(data), encoding="utf-8")
    rewrite_manifest(root)


@pytest.fixture
def forms(tmp_path: Path) -> tuple[Path, Path]:
    return _made(tmp_path, "rules", True), _made(tmp_path, "written", False)


def test_the_rule_form_judges_as_the_written_out_form(forms: tuple[Path, Path]) -> None:
    rules, written = forms
    a, b = verify(rules), verify(written)
    assert a.ok and b.ok and _codes(a) == _codes(b) == []
    assert _results(a) == _results(b) and len(a.assertions) == 30
    assert a.assertions[0].id == "same-payment@evidence/cases/000/case-000000"
    assert a.consistency.counts == b.consistency.counts
    for root in forms:  # a failing case fails the same assertion in both forms
        _break_case1(root)
    a, b = verify(rules), verify(written)
    assert not a.ok and not b.ok and _codes(a) == _codes(b)
    assert _results(a) == _results(b)
    (failed,) = [r for r in a.assertions if r.finding is not None]
    assert failed.id == f"unchanged@{CASE1}"
    assert failed.finding is not None and failed.finding.related is not None
    assert failed.finding.related.pointer == "/rules/2"  # the rule it stands for


def test_a_case_glob_that_matches_nothing_is_a_finding(tmp_path: Path) -> None:
    root = _made(tmp_path, "rules", True)
    assert not [c for c in _codes(verify(root)) if c.startswith("rule.")]
    _edit_spec(root, lambda s: s.update(cases={"folders": "evidence/nowhere/*"}))
    report = verify(root)
    assert not report.ok and "rule.no-cases" in _codes(report)
    (found,) = [f for f in report.consistency.findings if f.code == "rule.no-cases"]
    assert (found.path, found.pointer) == (SPEC, "/cases/folders")


def test_a_case_nothing_reads_is_a_finding(tmp_path: Path) -> None:
    root = _made(tmp_path, "rules", True)

    def only_case0(spec: dict[str, Any]) -> None:
        del spec["rules"]
        spec["assertions"] = [
            {
                "id": "messages",
                "kind": "count",
                "description": "Five messages.",
                "select": {
                    "file": "evidence/cases/000/case-000000/transcript.json",
                    "pointer": "/messages",
                },
                "equals": 5,
            }
        ]

    _edit_spec(root, only_case0)
    report = verify(root)
    unjudged = [f for f in report.consistency.findings if f.code == "rule.case-unjudged"]
    assert len(unjudged) == 9 and not report.ok
    assert CASE1 in unjudged[0].message


def test_a_case_folder_named_with_a_glob_character_is_a_finding(tmp_path: Path) -> None:
    root = _made(tmp_path, "rules", True)
    files = {"id": "files", "kind": "count", "description": "d", "files": "{case}/*.json"}
    _edit_spec(root, lambda s: s["rules"].append({**files, "equals": 3}))
    good = verify(root)
    assert good.ok and not [c for c in _codes(good) if c.startswith("rule.")]
    (root / CASE1).rename(root / "evidence/cases/000/case-00000?")
    rewrite_manifest(root)
    report = verify(root)
    (found,) = [f for f in report.consistency.findings if f.code == "rule.case-not-literal"]
    assert (found.path, found.pointer) == (SPEC, "/rules/3") and not report.ok
    assert "files@evidence/cases/000/case-00000?" not in {a.id for a in report.assertions}
    assert "same-payment@evidence/cases/000/case-00000?" in {a.id for a in report.assertions}


def test_instances_past_the_entry_limit_are_a_finding_not_memory(tmp_path: Path) -> None:
    root = _made(tmp_path, "rules", True)

    def more(spec: dict[str, Any]) -> None:
        spec["rules"] = [{**r, "id": f"{r['id']}-{n}"} for n in range(5) for r in spec["rules"]]

    _edit_spec(root, more)  # 10 cases x 15 rules: 150 instances, over 60 entries
    options = Options()
    report = verify(root, replace(options, limits=replace(options.limits, max_entries=60)))
    assert "rule.too-many" in _codes(report) and not report.ok
    assert len(report.assertions) == 60


def test_an_instance_id_that_collides_is_an_error_at_its_rule(tmp_path: Path) -> None:
    root = _made(tmp_path, "rules", True)
    clash = {
        "id": "messages@evidence/cases/000/case-000000",
        "kind": "count",
        "description": "Five messages.",
        "select": {"file": f"{CASE0}/transcript.json", "pointer": "/messages"},
        "equals": 5,
    }
    _edit_spec(root, lambda s: s.update(assertions=[clash]))
    report = verify(root)
    errors = [f for f in report.consistency.findings if f.code == "assertion.error"]
    assert [(f.path, f.pointer) for f in errors] == [(SPEC, "/rules/1/id")]
    assert "used twice" in errors[0].message


def test_a_written_spec_cannot_forge_the_expansion(tmp_path: Path) -> None:
    root = _made(tmp_path, "written", False)
    forged = {"written": 0, "ruleOf": [9] * 40, "findings": [["no.such-code", "/x", "forged"]]}
    _edit_spec(root, lambda s: s.update({"$expansion": forged}))
    report = verify(root)
    assert "no.such-code" not in _codes(report)
    assert all(f.pointer is None or not f.pointer.startswith("/rules") for f in report.findings)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", *args], capture_output=True, text=True, check=False
    )


def test_instances_are_covered_and_mutated_as_written_ones(forms: tuple[Path, Path]) -> None:
    out = []
    for root in forms:
        run = _cli("coverage", str(root), "--mutate", "--max-mutants", "20", "--format", "json")
        assert run.returncode in (0, 1), run.stderr
        report = json.loads(run.stdout)
        out.append((report["counts"], report["mutation"]["counts"], run.stdout))
    assert out[0][:2] == out[1][:2]  # the same values covered, the same mutants killed
    assert out[0][1]["killed"] == 20
    assert "@evidence/cases/" in out[0][2]  # killed by the instances, named as reported


def test_instances_are_baselined(tmp_path: Path) -> None:
    root = _made(tmp_path, "rules", True)
    _break_case1(root)
    baseline = tmp_path / "baseline.json"
    assert _cli("check", str(root), "--write-baseline", str(baseline)).returncode == 0
    written = json.loads(baseline.read_text(encoding="utf-8"))["findings"]
    assert [(f["code"], f["path"]) for f in written] == [("assertion.failed", f"{CASE1}/run.json")]
    assert written[0]["message"].startswith(f"unchanged@{CASE1}: ")
    run = _cli("check", str(root), "--baseline", str(baseline), "--format", "json")
    assert run.returncode == 0, run.stdout[-2000:]


def _with_catalogue(root: Path, cell_ids: list[str], case_ids: list[str]) -> None:
    """The bundled catalogue's first case, its first count and the case itself naming
    ``cell_ids`` and ``case_ids``, as the rule form's catalogue."""
    from tests.conftest import REPO

    bundled = json.loads((REPO / "evidence" / "cases.json").read_bytes())
    case = bundled["cases"][0]
    for cells in case.values():  # (the bundled archive's ids are not this spec's)
        for cell in cells if isinstance(cells, list) else ():
            if isinstance(cell, dict):
                cell.pop("assertions", None)
    case["counts"][0]["assertions"] = cell_ids
    case["assertions"] = case_ids
    bundled["cases"] = [case]
    (root / "evidence" / "cases.json").write_text(json.dumps(bundled), encoding="utf-8")
    rewrite_manifest(root)


def _about(report: Report, path: str) -> list[tuple[str, str, str | None]]:
    return [
        (s.stage.value, f.code, f.pointer)
        for s in report.stages
        for f in s.findings
        if f.path == path
    ]


def test_a_catalogue_names_rule_instances_by_their_ids(tmp_path: Path) -> None:
    """A cell's and a case's assertions may name a rule's instance (``R@C``; a case's may
    match them by a pattern): valid, and known to the spec. A name that is neither an id nor
    an instance id is still refused by the catalogue's schema."""
    root = _made(tmp_path, "rules", True)
    _with_catalogue(root, [f"same-payment@{CASE0}"], ["same-payment@*"])
    about = _about(verify(root), "evidence/cases.json")
    assert about  # (its selectors name the bundled archive's files: unresolved here)
    assert all(
        stage == "consistency" and code == "catalogue.unresolved" for stage, code, _ in about
    )
    _with_catalogue(root, [f"Same-payment@{CASE0}", "same-payment@/abs"], ["same-payment@*"])
    refused = [
        p for stage, _, p in _about(verify(root), "evidence/cases.json") if stage == "validity"
    ]
    assert {"/cases/0/counts/0/assertions/0", "/cases/0/counts/0/assertions/1"} <= set(refused)
    _with_catalogue(root, [f"same-payment@{CASE0}-none"], [])
    unknown = [c for _, c, _ in _about(verify(root), "evidence/cases.json")]
    assert "catalogue.unknown-assertion" in unknown
