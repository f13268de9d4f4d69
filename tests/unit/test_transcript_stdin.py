"""Standard input reads as the file does, for every container (issue 34, class 11's sibling).

``-`` has no name to tell JSON Lines by: a file of one JSON object on one line is both one JSON
text and one JSON Lines line. Every case of the container corpus, and each of its JSON Lines
files cut to any one of its lines, checks (and repairs) the same through ``-`` as under its
own name: same reader, same calls and results, same findings.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from verifier.transcripts.check import FileReport, check_bytes
from verifier.transcripts.repair import repair_bytes

CASES = Path(__file__).resolve().parents[1] / "cases" / "containers"
FILES = sorted(
    p
    for p in CASES.rglob("*")
    if p.is_file() and ".expected." not in p.name and ".repaired." not in p.name
)


def _seen(report: FileReport) -> tuple[Any, ...]:
    return (
        report.shape,
        report.messages,
        report.calls,
        report.results,
        sorted((f.code, f.pointer, f.line) for f in report.findings),
    )


def _one_lines() -> list[tuple[str, bytes]]:
    out = []
    for path in FILES:
        if path.suffix == ".jsonl":
            for k, line in enumerate(path.read_bytes().splitlines()):
                if line.strip():
                    out.append((f"{path.relative_to(CASES)}:{k + 1}", line + b"\n"))
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(CASES)))
def test_standard_input_reads_as_the_file(path: Path) -> None:
    data = path.read_bytes()
    named = check_bytes(data, str(path))
    assert _seen(check_bytes(data, "-")) == _seen(named)


@pytest.mark.parametrize(("name", "line"), _one_lines(), ids=[n for n, _ in _one_lines()])
def test_one_line_on_standard_input_reads_as_a_one_line_file(name: str, line: bytes) -> None:
    assert _seen(check_bytes(line, "-")) == _seen(check_bytes(line, "one.jsonl"))


def test_a_lone_openhands_output_line_is_read_as_the_container() -> None:
    # main: one EvalOutput object through '-' was read as one JSON text, which no reader took
    first = (CASES / "openhands-output" / "output.jsonl").read_bytes().splitlines()[1] + b"\n"
    report = check_bytes(first, "-")
    assert report.shape == "openhands-output" and report.container
    assert report.transcripts[0]["name"] == "stdin#0 (django__django-11099)"
    assert [f.code for f in report.findings] == ["transcript.dangling-call"]
    fixed = repair_bytes(first, "-")
    assert fixed.added and not fixed.remaining
    assert fixed.output.startswith(first.rstrip(b"\n")[:40])  # still one line, its own form
    assert fixed.output.count(b"\n") == 1 and json.loads(fixed.output)["instance_id"]


def test_a_lone_object_two_readers_take_is_a_finding() -> None:
    # an EvalOutput line that is also a SWE-agent trajectory (history beside trajectory)
    both = {"instance_id": "x", "history": [], "trajectory": []}
    report = check_bytes(json.dumps(both).encode(), "-")
    assert [f.code for f in report.findings] == ["transcript.ambiguous-shape"]


@pytest.mark.parametrize("named", [True, False], ids=["container-named", "detected"])
def test_an_archive_record_holding_one_output_line_is_read_as_that_line(named: bool) -> None:
    # an archive's container record is one JSON object: main raised IndexError for one naming
    # openhands-output (the reader walked the object as lines), and read none detected
    from verifier.transcripts.archive import CONTAINER_SCHEMA, check_transcript_record

    lines = (CASES / "openhands-output" / "output.jsonl").read_bytes().splitlines()
    record = {"$schema": CONTAINER_SCHEMA, **json.loads(lines[1])}
    if named:
        record["container"] = "openhands-output"
    got = check_transcript_record("r.json", record)
    assert [f.code for f in got] == ["transcript.dangling-call"]


def test_an_inspect_eval_zip_on_standard_input_reads_as_the_file() -> None:
    from tests.unit.test_transcript_containers import _eval, _samples

    data = _eval(_samples())
    assert _seen(check_bytes(data, "-")) == _seen(check_bytes(data, "run.eval"))
    assert check_bytes(data, "-").shape == "inspect"
