"""``assertion.spec-invalid``: an assertion spec that cannot be used at all is a finding that
fails the check (it would otherwise be a consistency stage that checked nothing), reported in
every format."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import rewrite_manifest

SPEC = "evidence/assertions.json"

BROKEN: dict[str, bytes] = {
    "a top-level array": b"[]\n",
    "assertions as an object": b'{"assertions": {}}\n',
    "no assertions member": b'{"$schema": "x"}\n',
    "assertions as a string": b'{"assertions": "all of them"}\n',
    "not JSON": b"{assertions: []\n",
}


def check(root: Path, fmt: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", "check", ".", "--format", fmt],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_an_unusable_spec_fails_the_check(archive: Path, name: str) -> None:
    (archive / SPEC).write_bytes(BROKEN[name])
    rewrite_manifest(archive)  # the spec is listed: integrity is clean, consistency is not
    proc = check(archive, "json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    assert report["ok"] is False
    stages = {s["stage"]: s for s in report["stages"]}
    consistency = stages["consistency"]
    assert consistency["status"] == "failed"
    hits = [f for f in consistency["findings"] if f["code"] == "assertion.spec-invalid"]
    # an unparsable spec has no place to point at; a parsed one is wrong at its assertions
    where = None if name == "not JSON" else "/assertions"
    assert [(f["path"], f.get("pointer")) for f in hits] == [(SPEC, where)]
    assert report["assertions"] == []  # nothing was evaluated, and the report says why


def test_an_unusable_spec_is_a_failing_junit_case(archive: Path) -> None:
    (archive / SPEC).write_bytes(BROKEN["assertions as an object"])
    rewrite_manifest(archive)
    proc = check(archive, "junit")
    assert proc.returncode == 1
    suite = next(s for s in ET.fromstring(proc.stdout) if s.get("name") == "consistency")
    cases = {c.get("name"): c for c in suite}
    failure = cases["assertion spec"].find("failure")
    assert failure is not None and failure.get("type") == "assertion.spec-invalid"
    assert suite.get("failures") != "0"


def test_a_spec_against_its_schema_is_placed_at_its_line(archive: Path) -> None:
    """The spec's bytes are let go once it is parsed, before it is validated (the run's peak,
    at 100,000 records); its schema findings are then placed once the report is judged, from
    a read checked against the digest: the finding still has the line and column of the
    member the schema refuses, as a record's has."""
    spec = json.loads((archive / SPEC).read_text())
    spec["assertions"][1]["unknown-member"] = 1  # the schema allows no other member
    text = json.dumps(spec, indent=2) + "\n"
    (archive / SPEC).write_text(text)
    rewrite_manifest(archive)
    proc = check(archive, "json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    stages = {s["stage"]: s for s in report["stages"]}
    hits = [
        f
        for f in stages["validity"]["findings"]
        if f["code"] == "schema.invalid" and f["path"] == SPEC
    ]
    assert [f.get("pointer") for f in hits] == ["/assertions/1"], hits
    lines = text.splitlines()
    # the second assertion's object opens on the line after the first one closes
    starts = [n for n, line in enumerate(lines, 1) if line == "    {"]
    assert hits[0]["line"] == starts[1], (hits[0], starts[:3])
    assert hits[0]["column"] == 5
