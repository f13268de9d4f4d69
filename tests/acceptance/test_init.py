"""``verify-evidence init``: a new archive passes ``check`` and ``table`` from the start, and
keeps passing after a record is added and the manifest rewritten."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO
from verifier.authoring.scaffold import template_files


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )


def test_init_then_check_passes_in_a_fresh_directory(tmp_path: Path) -> None:
    target = tmp_path / "my-archive"
    assert cli("init", str(target)).returncode == 0
    proc = cli("check", "--format", "json", cwd=target)
    assert proc.returncode == 0, proc.stdout
    report = json.loads(proc.stdout)
    kinds = {a["kind"] for a in report["assertions"]}
    assert kinds == {
        "equals",
        "in-set",
        "same-value",
        "count",
        "unchanged",
        "order",
        "interrupted-tool-result",
        "acceptance-separation",
    }
    assert cli("table", str(target), "--format", "text").returncode == 0


def test_add_a_record_rewrite_the_manifest_check_again(tmp_path: Path) -> None:
    target = tmp_path / "a"
    cli("init", str(target))
    run = json.loads((target / "evidence/example-run/run.json").read_text(encoding="utf-8"))
    run["runId"] = "example-run-2"
    (target / "evidence/example-run/run-2.json").write_text(
        json.dumps(run, indent=2) + "\n", encoding="utf-8"
    )
    assert cli("check", str(target)).returncode == 1  # unlisted until the manifest says so
    assert cli("manifest", str(target), "--write").returncode == 0
    assert cli("check", str(target)).returncode == 0


def test_init_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    proc = cli("init", str(tmp_path))
    assert proc.returncode == 2
    assert "not empty" in proc.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_the_templates_shared_schemas_are_the_projects() -> None:
    """A template schema named like one of the project's is the project's copy, or (the
    assertion spec, issue 16's generic scaffold) the project's with the case study's
    vocabulary pointed at the scaffold's own (verifier.authoring.vocabulary)."""
    from verifier.authoring.vocabulary import DERIVED, derive_text

    derived = {f"schemas/{template}": project for project, template in DERIVED}
    shared = 0
    for name, data in template_files():
        if not name.startswith("schemas/") or not (REPO / name).is_file():
            continue
        shared += 1
        project = (REPO / name).read_text(encoding="utf-8")
        if name in derived:
            project = derive_text((REPO / "schemas" / derived[name]).read_text(encoding="utf-8"))
        assert project.encode("utf-8") == data, f"{name} drifted from the project's copy"
    assert shared >= 1  # the assertion spec's schema at least: the check looked at something


def test_coverage_of_a_fresh_scaffold_reports_what_its_spec_leaves_unread(tmp_path: Path) -> None:
    """The scaffold passes check, its one ``unasserted`` example excuses the value it names,
    every covered value is compared by an assertion, and what no assertion compares (the
    transcript, which ``interrupted-tool-result`` pairs but does not compare as values) is
    reported as uncovered: notes, not a failure."""
    from verifier.coverage import LeafStatus, audit
    from verifier.findings import Severity

    target = tmp_path / "a"
    assert cli("init", str(target)).returncode == 0
    report = audit(target)
    assert report.check_findings == 0
    assert not report.fails(Severity.WARNING)  # no unused excuse, nothing unread
    assert [(e.pointer, e.matched) for e in report.excuses] == [("/messages/0/content", 1)]
    leaves = [(f.path, leaf) for f in report.files for leaf in f.leaves]
    assert {p for p, _ in leaves} == {
        "evidence/example-run/run.json",
        "evidence/example-run/readback.json",
    }
    covered = [leaf for _, leaf in leaves if leaf.status is LeafStatus.COVERED]
    assert covered and all(leaf.asserted for leaf in covered)
    uncovered = {leaf.pointer for _, leaf in leaves if leaf.status is LeafStatus.UNCOVERED}
    assert "/messages/2/content" in uncovered  # the marker: only paired, not compared
    assert all(p == "/runId" or p.startswith("/messages/") for p in uncovered)
    assert {f.code for f in report.findings} == {"coverage.uncovered"}


def test_a_scaffold_excuse_over_an_asserted_value_is_reported(tmp_path: Path) -> None:
    from verifier.coverage import audit

    target = tmp_path / "a"
    cli("init", str(target))
    path = target / "evidence/assertions.json"
    spec = json.loads(path.read_text(encoding="utf-8"))
    spec["unasserted"][0]["pointer"] = "/status"  # run.status compares it: nothing to excuse
    path.write_text(json.dumps(spec, indent=2) + "\n", encoding="utf-8")
    assert cli("manifest", str(target), "--write").returncode == 0
    report = audit(target)
    assert report.check_findings == 0
    found = [(f.code, f.pointer) for f in report.findings if f.code != "coverage.uncovered"]
    assert found == [("coverage.unused-excuse", "/unasserted/0")]
    assert ("coverage.uncovered", "/messages/0/content") in [
        (f.code, f.pointer) for f in report.findings
    ]
