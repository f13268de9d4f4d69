"""The example GitHub Actions workflow, run as a runner would: every ``run`` step that calls
``verify-evidence`` (and the step summary after it) in a temporary copy of the archive, then
each file the later steps upload checked for the format it must hold."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]

from tests.acceptance.test_formats import sarif_validator, tampered
from tests.conftest import REPO, require_module

EXAMPLE = REPO / "examples" / "github-actions-verify-evidence.yml"
JUNIT_XSD = REPO / "tests" / "data" / "schemas" / "junit-10.xsd"


def steps() -> list[dict[str, Any]]:
    workflow = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    (job,) = workflow["jobs"].values()
    found: list[dict[str, Any]] = job["steps"]
    return found


def shim(folder: Path) -> Path:
    """A ``verify-evidence`` on PATH that runs this checkout's verifier."""
    folder.mkdir()
    script = folder / "verify-evidence"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m verifier "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    return folder


def run_step(
    step: dict[str, Any], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    # GitHub runs a `run:` script with `bash -e {0}` (shell: bash is the default on Linux)
    return subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def junit_schema() -> Any:
    xmlschema: Any = require_module("xmlschema")  # the JUnit XSD oracle

    return xmlschema.XMLSchema(str(JUNIT_XSD))


@pytest.mark.parametrize("tamper", [False, True])
def test_the_example_workflow_writes_each_format_to_its_own_file(
    tamper: bool, archive: Path, tmp_path: Path
) -> None:
    root = tampered(archive) if tamper else archive
    summary = tmp_path / "summary.md"
    env = {
        **os.environ,
        "PATH": f"{shim(tmp_path / 'bin')}{os.pathsep}{os.environ.get('PATH', '')}",
        "GITHUB_STEP_SUMMARY": str(summary),
        "PYTHONPATH": str(REPO),
    }
    runs = [s for s in steps() if "verify-evidence " in s.get("run", "")]
    assert runs, "the example runs verify-evidence"
    for step in runs:
        proc = run_step(step, root, env)
        assert proc.returncode == (1 if tamper else 0), proc.stderr
        assert "Traceback" not in proc.stderr
        annotations = proc.stdout.splitlines()
        assert annotations and all(line.startswith("::") for line in annotations), proc.stdout
        assert annotations[-1].startswith("::error" if tamper else "::notice")
    for step in steps():
        if step.get("run", "").startswith("cat "):
            assert run_step(step, root, env).returncode == 0
    uploads = [s for s in steps() if "uses" in s and "with" in s]
    sarif_file = next(s["with"]["sarif_file"] for s in uploads if "upload-sarif" in s["uses"])
    kept = next(s["with"]["path"] for s in uploads if "upload-artifact" in s["uses"]).split()
    assert sarif_file in kept
    files = {name: (root / name).read_text(encoding="utf-8") for name in kept}

    sarif = json.loads(files[sarif_file])
    sarif_validator().validate(sarif)
    assert sarif["version"] == "2.1.0" and bool(sarif["runs"][0]["results"]) == tamper

    (junit_name,) = [n for n in kept if n.endswith(".xml")]
    junit_schema().validate(files[junit_name])
    tree = ET.fromstring(files[junit_name])
    assert tree.tag == "testsuites" and (tree.get("failures") != "0") == tamper

    (md_name,) = [n for n in kept if n.endswith(".md")]
    assert files[md_name].startswith("## verify-evidence: ")
    assert "| Stage | Status | Checked |" in files[md_name]
    assert summary.read_text(encoding="utf-8") == files[md_name]
    assert not files[md_name].lstrip().startswith(("{", "<", "::"))
