"""Every output format of ``check``: deterministic, valid against its published schema where
there is one (SARIF 2.1.0, a JUnit XSD; shipped in tests/data, no network), and reachable
from the CLI, several in one run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, require_module
from verifier import verify
from verifier.commands.check import Format
from verifier.views.check import CHECK as FORMATS

DATA = Path(__file__).resolve().parent.parent / "data" / "schemas"


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )


def tampered(archive: Path) -> Path:
    """Three kinds of finding: a mismatch, an unlisted file, a failed assertion."""
    path = archive / "evidence/e2-hosted-original/runner-result.json"
    path.write_text(
        path.read_text(encoding="utf-8").replace('"failed"', '"passed"', 1), encoding="utf-8"
    )
    (archive / "evidence/stray, name: 100%.json").write_text("{}\n", encoding="utf-8")
    return archive


def test_the_cli_choices_are_the_registry() -> None:
    assert {f.value for f in Format} == set(FORMATS) | {"auto"}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_format_renders_deterministically(name: str, archive: Path) -> None:
    for root in (REPO, tampered(archive)):
        first = FORMATS[name](verify(root))
        assert first == FORMATS[name](verify(root))
        assert first.endswith("\n")
        assert str(archive) not in first  # no absolute paths


def sarif_validator() -> Any:
    from jsonschema import validators

    path = DATA / "sarif-schema-2.1.0.json"  # OASIS SARIF 2.1.0 (errata 01), see its README
    schema = json.loads(path.read_text(encoding="utf-8"))
    cls = validators.validator_for(schema)
    return cls(schema)


@pytest.mark.parametrize("tamper", [False, True])
def test_sarif_validates_against_the_published_schema(tamper: bool, archive: Path) -> None:
    root = tampered(archive) if tamper else REPO
    log = json.loads(FORMATS["sarif"](verify(root)))
    sarif_validator().validate(log)
    results = log["runs"][0]["results"]
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert len(results) == len(verify(root).findings)
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    if tamper:
        uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
        assert "evidence/e2-hosted-original/runner-result.json" in uris
        assert "evidence/stray%2C%20name%3A%20100%25.json" in uris


def junit_schema() -> Any:
    xmlschema: Any = require_module("xmlschema")  # in the test extra
    return xmlschema.XMLSchema(str(DATA / "junit-10.xsd"))  # Jenkins xunit-plugin, see README


@pytest.mark.parametrize("tamper", [False, True])
def test_junit_validates_against_a_common_xsd(tamper: bool, archive: Path) -> None:
    import xml.etree.ElementTree as ET

    root = tampered(archive) if tamper else REPO
    report = verify(root)
    xml = FORMATS["junit"](report)
    junit_schema().validate(xml)
    tree = ET.fromstring(xml)
    cases = tree.findall("./testsuite/testcase")
    assert len(cases) == int(tree.get("tests", "-1"))
    names = {c.get("name") for c in tree.findall("./testsuite[@name='consistency']/testcase")}
    assert names == {a.id for a in report.assertions}
    failed = [c for c in cases if c.find("failure") is not None]
    assert len(failed) == int(tree.get("failures", "-1"))
    assert bool(failed) == tamper


def test_github_commands_annotate_each_finding(archive: Path) -> None:
    out = FORMATS["github"](verify(tampered(archive)))
    lines = out.splitlines()
    assert lines[-1].startswith("::error title=verify-evidence::")
    assert "::error file=evidence/stray%2C name%3A 100%25.json,title=manifest.unlisted::" in out
    errors = [line for line in lines[:-1] if line.startswith("::error file=")]
    assert len(errors) == len(verify(archive).findings)
    clean = FORMATS["github"](verify(REPO)).splitlines()
    assert clean == [clean[0]] and clean[0].startswith("::notice title=verify-evidence::")


def test_markdown_summary_holds_stages_findings_and_the_outcome_table(archive: Path) -> None:
    good = FORMATS["markdown"](verify(REPO))
    assert good.startswith("## verify-evidence: passed")
    assert "| integrity | passed |" in good
    assert "### Per-case outcomes" in good
    assert "| Hosted Stripe test API |" in good
    bad = FORMATS["markdown"](verify(tampered(archive)))
    assert bad.startswith("## verify-evidence: FAILED")
    assert "`manifest.mismatch`" in bad and "### Assertions that did not pass" in bad


def test_several_formats_in_one_run(tmp_path: Path) -> None:
    report, junit = tmp_path / "report.json", tmp_path / "junit.xml"
    proc = cli(
        "check",
        str(REPO),
        "--format",
        "json",
        "--output",
        str(report),
        "--format",
        "junit",
        "--output",
        str(junit),
        "--format",
        "text",
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(report.read_text(encoding="utf-8"))["ok"] is True
    assert junit.read_text(encoding="utf-8").startswith("<?xml")
    assert proc.stdout.startswith("verify-evidence ")


@pytest.mark.parametrize(
    "args",
    [("--output", "a", "--output", "b"), ("--format", "json", "--format", "junit")],
)
def test_unpairable_formats_and_outputs_exit_2(args: tuple[str, ...], tmp_path: Path) -> None:
    proc = cli("check", str(REPO), *args, cwd=tmp_path)
    assert proc.returncode == 2
    assert len(proc.stderr.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_quiet_prints_nothing_and_keeps_the_exit_code(archive: Path) -> None:
    assert cli("check", str(REPO), "--quiet").stdout == ""
    proc = cli("check", str(tampered(archive)), "-q")
    assert (proc.returncode, proc.stdout) == (1, "")
