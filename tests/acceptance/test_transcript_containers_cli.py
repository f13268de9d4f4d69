"""``verify-evidence transcript`` on harness containers, run as a user would run it."""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator

from tests.acceptance.test_transcript_cli import cli
from tests.conftest import REPO
from verifier.transcripts.containers import CONTAINERS

CASES = REPO / "tests" / "cases" / "containers"
TREE = CASES / "pi-session" / "tree-two-branches.jsonl"


def cases() -> list[Path]:
    return sorted(
        p for p in CASES.glob("*/*") if ".expected." not in p.name and ".repaired." not in p.name
    )


def test_every_container_report_validates_against_the_schema() -> None:
    schema = json.loads((REPO / "schemas/transcript-report.schema.json").read_text("utf-8"))
    proc = cli("check", *cases(), "--format", "json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    Draft202012Validator(schema).validate(report)
    assert {f["shape"] for f in report["files"]} == set(CONTAINERS)
    for f in report["files"]:
        assert f["transcripts"], f["path"]
        for finding in f["findings"]:
            assert finding["transcript"] in {t["name"] for t in f["transcripts"]}
    again = cli("check", *cases(), "--format", "json")
    assert again.stdout == proc.stdout


def test_leaf_checks_only_the_active_path() -> None:
    every = json.loads(cli("check", TREE, "--format", "json").stdout)
    leaf = json.loads(cli("check", TREE, "--leaf", "--format", "json").stdout)
    assert len(every["files"][0]["transcripts"]) == 2
    assert [t["active"] for t in leaf["files"][0]["transcripts"]] == [True]
    assert "abandoned" not in json.dumps(leaf)
    text = cli("check", TREE, "--format", "text").stdout
    assert "- path to leaf b2 (abandoned)" in text and "notes:" in text


def test_repair_says_which_path_it_repaired(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    proc = cli("repair", TREE, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert "repaired: path to leaf c3x (active)" in proc.stderr
    assert "not repaired: path to leaf b2 (abandoned)" in proc.stderr
    assert b"not run: the turn was interrupted" in out.read_bytes()


def test_a_container_name_is_a_shape_and_the_help_lists_them() -> None:
    case = CASES / "swe-agent" / "clean-ids.traj"
    proc = cli("check", case, "--shape", "swe-agent", "--format", "json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["files"][0]["shapeSource"] == "given"
    wrong = cli("check", case, "--shape", "pi-session", "--format", "json")
    assert wrong.returncode == 1
    assert json.loads(wrong.stdout)["files"][0]["findings"][0]["code"] == "transcript.malformed"
    bad = cli("check", case, "--shape", "nope")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "swe-agent" in bad.stderr
    helptext = cli("check", "--help").stdout
    for name in CONTAINERS:
        assert name in helptext
