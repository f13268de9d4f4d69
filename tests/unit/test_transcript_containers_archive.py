"""Harness containers in the archive check: a record declaring the container schema, and
files the assertion spec's ``transcripts`` list declares, checked in the validity stage
like the transcript records (a broken copy of the good archive shows each finding)."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from collections.abc import Mapping
from pathlib import Path

from tests.conftest import REPO, copy_bundled, rewrite_manifest
from verifier import verify
from verifier.report import Report
from verifier.schema import own

CASES = REPO / "tests" / "cases" / "containers"
SPEC = "evidence/assertions.json"
CONTAINER = "https://verifier.invalid/schemas/transcript-container.schema.json"
assert own.schema_id(own.TRANSCRIPT_CONTAINER) == CONTAINER


def check(root: Path) -> Report:
    return verify(str(root))


def validity(report: Report) -> list[tuple[str, str]]:
    stage = next(s for s in report.stages if s.stage.value == "validity")
    return sorted((f.code, f.path) for f in stage.findings)


def add_runs(
    root: Path, files: Mapping[str, Path | bytes], spec_entries: list[dict[str, object]]
) -> None:
    for name, source in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(source, Path):
            shutil.copyfile(source, target)
        else:
            target.write_bytes(source)
    spec = json.loads((root / SPEC).read_text("utf-8"))
    spec["transcripts"] = spec_entries
    (root / SPEC).write_text(json.dumps(spec, indent=2) + "\n", "utf-8")
    rewrite_manifest(root)


def test_declared_container_files_are_checked_in_the_validity_stage(tmp_path: Path) -> None:
    root = copy_bundled(tmp_path / "a")
    clean = {
        "evidence/runs/pi.jsonl": CASES / "pi-session" / "clean-compaction.jsonl",
        "evidence/runs/cc.jsonl": CASES / "claude-code" / "parallel-split-fork.jsonl",
        "evidence/runs/swe.traj": CASES / "swe-agent" / "clean-ids.traj",
    }
    add_runs(root, clean, [{"files": "evidence/runs/*"}])
    assert validity(check(root)) == []  # the untouched archive with clean runs has none
    broken = copy_bundled(tmp_path / "b")
    add_runs(
        broken,
        {
            **clean,
            "evidence/runs/cc.jsonl": CASES / "claude-code" / "dangling-then-prompt.jsonl",
            "evidence/runs/tree.jsonl": CASES / "pi-session" / "tree-two-branches.jsonl",
        },
        [
            {"files": "evidence/runs/*.jsonl"},
            {"files": "evidence/runs/swe.traj", "shape": "swe-agent"},
        ],
    )
    report = check(broken)
    assert validity(report) == [
        ("transcript.abandoned-dangling-call", "evidence/runs/tree.jsonl"),
        ("transcript.abandoned-dangling-call", "evidence/runs/tree.jsonl"),
        ("transcript.dangling-call", "evidence/runs/cc.jsonl"),
        ("transcript.dangling-call", "evidence/runs/tree.jsonl"),
    ]
    assert not report.ok
    stage = next(s for s in report.stages if s.stage.value == "validity")
    named = [f for f in stage.findings if f.path == "evidence/runs/cc.jsonl"]
    assert named[0].transcript and named[0].line == 2


def test_a_declared_eval_zip_and_a_wrong_shape(tmp_path: Path) -> None:
    log = json.loads((CASES / "inspect" / "two-samples.json").read_text("utf-8"))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for s in log["samples"]:
            z.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
    root = copy_bundled(tmp_path / "a")
    add_runs(
        root,
        {
            "evidence/runs/run.eval": buffer.getvalue(),
            "evidence/runs/other.txt": b"not a transcript\n",
        },
        [{"files": "evidence/runs/*.eval"}, {"files": "evidence/runs/other.txt"}],
    )
    assert validity(check(root)) == [
        ("transcript.dangling-call", "evidence/runs/run.eval"),
        ("transcript.malformed", "evidence/runs/other.txt"),
    ]


def test_a_record_declaring_the_container_schema(tmp_path: Path) -> None:
    """The archive brings the container schema (the tool's, verifier/schemas/): the bundled
    archive holds no container record, so it does not keep it (issue 36)."""
    root = copy_bundled(tmp_path / "a")
    traj = json.loads((CASES / "swe-agent" / "clean-ids.traj").read_text("utf-8"))
    good = {"$schema": CONTAINER, "container": "swe-agent", **traj}
    (root / "evidence" / "run-swe.json").write_text(json.dumps(good), "utf-8")
    rewrite_manifest(root)
    # without it in the archive's schemas/, the record is not validated: a finding
    assert ("schema.unresolved", "evidence/run-swe.json") in validity(check(root))
    (root / "schemas" / own.TRANSCRIPT_CONTAINER).write_text(
        json.dumps(own.load(own.TRANSCRIPT_CONTAINER)), "utf-8"
    )
    rewrite_manifest(root)
    assert validity(check(root)) == []
    traj["history"] = traj["history"][:3]  # the last call now has no observation
    bad = {"$schema": CONTAINER, **traj}  # no 'container': told by its features
    (root / "evidence" / "run-swe.json").write_text(json.dumps(bad), "utf-8")
    rewrite_manifest(root)
    assert validity(check(root)) == [("transcript.dangling-call", "evidence/run-swe.json")]


def test_a_transcripts_entry_that_matches_nothing_is_a_finding(tmp_path: Path) -> None:
    root = copy_bundled(tmp_path / "a")
    add_runs(root, {}, [{"files": "evidence/runs/*.jsonl"}])
    report = check(root)
    assert validity(report) == [("transcript.unmatched-pattern", SPEC)]
    assert not report.ok


def test_declared_result_files_of_many_runs_are_checked_per_run(tmp_path: Path) -> None:
    # issue #34 class 11: where the spec points at an OpenHands output.jsonl or a tau-bench
    # result list, each run is a transcript (it was transcript.malformed / unreadable)
    root = copy_bundled(tmp_path / "a")
    runs = {
        "evidence/runs/output.jsonl": CASES / "openhands-output" / "output.jsonl",
        "evidence/runs/results.json": CASES / "tau-bench" / "results.json",
    }
    add_runs(root, runs, [{"files": "evidence/runs/*"}])
    assert validity(check(root)) == [
        ("transcript.dangling-call", "evidence/runs/output.jsonl"),
        ("transcript.dangling-call", "evidence/runs/results.json"),
    ]
