"""A transcript from which no message was read checked nothing: it is ``transcript.empty``
(an error), never a pass (issue #34, siblings of classes 3 and 11): a bare empty list or
``messages`` array (which detection could only guess a shape for), a run of a result file
with an empty ``history`` or ``traj``, an archive's transcript record with no message."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import copy_bundled, rewrite_manifest
from verifier import verify
from verifier.findings import Severity
from verifier.transcripts.archive import check_container_file, check_transcript_record
from verifier.transcripts.check import check_bytes

EMPTY = "transcript.empty"


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("a.json", b"[]"),
        ("a.json", b'{"messages": []}'),
        ("a.json", b'{"input": []}'),
        ("a.json", b'{"contents": []}'),
        ("a.jsonl", b"\n"),
    ],
)
def test_a_file_with_no_message_is_a_finding_not_an_assumed_pass(name: str, data: bytes) -> None:
    report = check_bytes(data, name)
    codes = [f.code for f in report.findings]
    assert EMPTY in codes or "transcript.malformed" in codes, codes
    assert not report.ok
    if EMPTY in codes:
        f = next(f for f in report.findings if f.code == EMPTY)
        assert f.severity is Severity.ERROR
        assert f.message.startswith("Nothing was checked") and f.message.endswith(".")


@pytest.mark.parametrize("shape", ["openai-chat", "anthropic", "pi", "gemini"])
def test_a_named_shape_that_reads_no_message_is_a_finding(shape: str) -> None:
    report = check_bytes(b'{"messages": []}', "a.json", shape)
    assert [f.code for f in report.findings] == [EMPTY]


def test_the_cli_fails_an_empty_message_list(tmp_path: Path) -> None:
    for text in ("[]", '{"messages": []}'):
        path = tmp_path / "t.json"
        path.write_text(text, "utf-8")
        got = subprocess.run(
            [sys.executable, "-m", "verifier", "transcript", "check", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert got.returncode == 1, got.stdout + got.stderr
        assert EMPTY in got.stdout and "passed" not in got.stdout.split("\n")[1]


def _runs_of(data: bytes, name: str) -> dict[str, list[str]]:
    report = check_bytes(data, name)
    assert report.container
    out: dict[str, list[str]] = {t["name"]: [] for t in report.transcripts}
    for f in report.findings:
        assert f.transcript is not None
        out[f.transcript].append(f.code)
    return out


def test_an_openhands_run_with_an_empty_history_is_a_finding() -> None:
    event = {"id": 1, "source": "user", "message": "fix it", "action": "message"}
    lines = [
        {"instance_id": "a__a-1", "history": []},
        {"instance_id": "b__b-2", "history": [event]},
    ]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    runs = _runs_of(data, "output.jsonl")
    assert runs == {"output.jsonl#0 (a__a-1)": [EMPTY], "output.jsonl#1 (b__b-2)": []}
    report = check_bytes(data, "output.jsonl")
    f = next(f for f in report.findings if f.code == EMPTY)
    assert f.line == 1 and "nothing was checked" in f.message


def test_a_tau_bench_run_with_an_empty_traj_is_a_finding() -> None:
    runs = [
        {"task_id": 1, "trial": 0, "traj": []},
        {"task_id": 2, "trial": 0, "traj": [{"role": "user", "content": "hi"}]},
    ]
    got = _runs_of(json.dumps(runs).encode(), "results.json")
    assert got == {
        "results.json#0 (task 1, trial 0)": [EMPTY],
        "results.json#1 (task 2, trial 0)": [],
    }


def test_an_archive_transcript_record_with_no_message_is_a_finding() -> None:
    record = {"recordKind": "transcript", "messages": []}
    got = check_transcript_record("evidence/x/transcript.json", record)
    assert [(f.code, f.pointer) for f in got] == [(EMPTY, "/messages")]
    # a declared container file holding an empty list: the same finding, on the archive path
    got = check_container_file("evidence/runs/a.json", b"[]")
    assert [(f.code, f.path) for f in got] == [(EMPTY, "evidence/runs/a.json")]


def test_the_archive_check_fails_a_transcript_record_emptied(tmp_path: Path) -> None:
    root = copy_bundled(tmp_path / "a")
    path = root / "evidence" / "e1-local-crash" / "transcript.json"
    record = json.loads(path.read_text("utf-8"))
    record["messages"] = []
    path.write_text(json.dumps(record, indent=2) + "\n", "utf-8")
    rewrite_manifest(root)
    report = verify(str(root))
    stage = next(s for s in report.stages if s.stage.value == "validity")
    assert (EMPTY, "evidence/e1-local-crash/transcript.json") in [
        (f.code, f.path) for f in stage.findings
    ]
    assert not report.ok


DUPLICATE = "transcript.duplicate-id"
EVENT = {"id": 1, "source": "user", "message": "fix it", "action": "message"}


def test_two_openhands_runs_of_one_instance_are_a_finding_both_checked() -> None:
    call = {"id": 2, "source": "agent", "action": "run", "args": {"command": "ls"}}
    lines = [
        {"instance_id": "a__a-1", "history": [EVENT]},
        {"instance_id": "b__b-2", "history": [EVENT]},
        {"instance_id": "a__a-1", "history": [EVENT, call]},  # its call dangles
    ]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    runs = _runs_of(data, "output.jsonl")
    assert runs["output.jsonl#0 (a__a-1)"] == []
    assert runs["output.jsonl#1 (b__b-2)"] == []
    assert runs["output.jsonl#2 (a__a-1)"] == [DUPLICATE, "transcript.dangling-call"]
    f = next(f for f in check_bytes(data, "output.jsonl").findings if f.code == DUPLICATE)
    assert (f.line, f.pointer, f.index) == (3, "/instance_id", None)
    assert "output.jsonl#0 (a__a-1)" in f.message


def test_two_tau_bench_runs_of_one_task_and_trial_are_a_finding() -> None:
    hi = [{"role": "user", "content": "hi"}]
    runs = [
        {"task_id": 1, "trial": 0, "traj": hi},
        {"task_id": 1, "trial": 1, "traj": hi},  # another trial of the task: fine
        {"task_id": 1, "trial": 0, "traj": hi},
    ]
    got = _runs_of(json.dumps(runs).encode(), "results.json")
    assert got == {
        "results.json#0 (task 1, trial 0)": [],
        "results.json#1 (task 1, trial 1)": [],
        "results.json#2 (task 1, trial 0)": [DUPLICATE],
    }
    report = check_bytes(json.dumps(runs).encode(), "results.json")
    f = report.findings[0]
    assert (f.pointer, f.index, f.line) == ("/2/task_id", None, None)


def test_a_duplicate_run_with_no_message_is_both_findings() -> None:
    lines = [{"instance_id": "a", "history": [EVENT]}, {"instance_id": "a", "history": []}]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    assert sorted(_runs_of(data, "output.jsonl")["output.jsonl#1 (a)"]) == [DUPLICATE, EMPTY]
