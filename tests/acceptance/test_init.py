"""``verify-evidence init``: a new archive passes ``check`` and ``table`` from the start, and
keeps passing after a record is added and the manifest rewritten."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO
from verifier.scaffold import template_files


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
    for name, data in template_files():
        if name in {
            "schemas/assertion-spec.schema.json",
            "schemas/case-catalogue.schema.json",
            "schemas/common.schema.json",
        }:
            assert (REPO / name).read_bytes() == data, f"{name} drifted from the project's copy"
