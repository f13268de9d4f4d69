"""``verify-evidence transcript`` on harness containers, run as a user would run it."""

from __future__ import annotations

import json
import subprocess
import sys
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
    schema = json.loads(
        (REPO / "verifier/schemas/transcript-report.schema.json").read_text("utf-8")
    )
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


RESULTS = {
    "openhands-output": CASES / "openhands-output" / "output.jsonl",
    "tau-bench": CASES / "tau-bench" / "results.json",
}


def _stdin(*args: str, data: bytes) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run(
        [sys.executable, "-m", "verifier", "transcript", *args],
        input=data,
        capture_output=True,
        check=False,
    )
    assert b"Traceback" not in proc.stderr, proc.stderr
    return proc


def test_result_files_of_many_runs_are_read_one_transcript_per_run() -> None:
    # issue #34 class 11: an OpenHands output.jsonl (one EvalOutput per line) was
    # "malformed", a tau-bench result list could not be checked without splitting it
    report = json.loads(cli("check", *RESULTS.values(), "--format", "json").stdout)
    got = {
        f["shape"]: (
            [t["name"] for t in f["transcripts"]],
            [x["transcript"] for x in f["findings"]],
        )
        for f in report["files"]
    }
    assert got == {
        "openhands-output": (
            [
                "output.jsonl#0 (astropy__astropy-12907)",
                "output.jsonl#1 (django__django-11099)",
                "output.jsonl#2 (sympy__sympy-20590)",
            ],
            ["output.jsonl#1 (django__django-11099)"],
        ),
        "tau-bench": (
            ["results.json#0 (task 0, trial 0)", "results.json#1 (task 1, trial 0)"],
            ["results.json#1 (task 1, trial 0)"],
        ),
    }


def test_standard_input_is_read_once_by_check_and_repair() -> None:
    data = RESULTS["tau-bench"].read_bytes()
    proc = _stdin("check", "-", "--format", "json", data=data)
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["files"][0]["path"] == "-" and report["files"][0]["shape"] == "tau-bench"
    repaired = _stdin("repair", "-", "-o", "-", data=data)
    assert repaired.returncode == 0, repaired.stderr
    golden = CASES / "tau-bench" / "results.repaired.json"
    assert repaired.stdout == golden.read_bytes()
    twice = _stdin("check", "-", "-", data=data)
    assert twice.returncode == 2 and twice.stdout == b""
    assert b"given more than once" in twice.stderr


def test_the_advice_for_a_file_nothing_reads_names_what_reads_files() -> None:
    proc = _stdin("check", "-", data=b'[{"run": 1, "steps_taken": []}]')
    assert proc.returncode == 1
    for name in ("tau-bench", "openhands-output", "openai-chat"):
        assert name.encode() in proc.stdout


def test_one_openhands_output_line_on_standard_input_is_the_container() -> None:
    # main: a one-line output.jsonl through '-' was one JSON text no reader took ("malformed")
    line = RESULTS["openhands-output"].read_bytes().splitlines()[1] + b"\n"
    proc = _stdin("check", "-", "--format", "json", data=line)
    assert proc.returncode == 1, proc.stderr
    [got] = json.loads(proc.stdout)["files"]
    assert got["shape"] == "openhands-output"
    assert [f["code"] for f in got["findings"]] == ["transcript.dangling-call"]
