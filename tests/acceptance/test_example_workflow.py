"""The example GitHub Actions workflow, run as a runner would: its verify-evidence action step
(tests/acceptance/test_action.py runs the action's own steps) in a temporary copy of the
archive, then each file the later steps upload checked for the format it must hold."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]

from tests.acceptance.test_action import run_uses_step
from tests.acceptance.test_formats import sarif_validator, tampered
from tests.conftest import REPO, require_module
from verifier.authoring.ci import ACTION as ACTION_REF

EXAMPLE = REPO / "examples" / "github-actions-verify-evidence.yml"
JUNIT_XSD = REPO / "tests" / "data" / "schemas" / "junit-10.xsd"


def steps() -> list[dict[str, Any]]:
    workflow = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    (job,) = workflow["jobs"].values()
    found: list[dict[str, Any]] = job["steps"]
    return found


def junit_schema() -> Any:
    xmlschema: Any = require_module("xmlschema")  # the JUnit XSD oracle

    return xmlschema.XMLSchema(str(JUNIT_XSD))


@pytest.mark.parametrize("tamper", [False, True])
def test_the_example_workflow_writes_each_format_to_its_own_file(
    tamper: bool, archive: Path, tmp_path: Path
) -> None:
    root = tampered(archive) if tamper else archive
    (verify,) = [s for s in steps() if s.get("uses") == ACTION_REF]
    runner = run_uses_step(verify, root, tmp_path / "runner")
    assert runner.action_outputs() == (
        {"exit-code": "1", "verdict": "failed"}
        if tamper
        else {"exit-code": "0", "verdict": "passed"}
    )
    assert runner.codes[-1] == (1 if tamper else 0), runner.stderr
    annotations = runner.stdout.splitlines()[:-1]  # the last: the action's verdict line
    assert annotations and all(line.startswith("::") for line in annotations), runner.stdout
    assert annotations[-1].startswith("::error" if tamper else "::notice")
    summary = tmp_path / "runner" / "step-summary.md"
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
