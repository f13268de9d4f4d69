"""``-o -`` is standard output for every command that takes an output path (issue 34, class
9): ``check``, ``coverage``, ``audit``, ``transcript repair`` and ``--write-baseline``; one
helper (``verifier.commands.output.is_stdout``) says so for all. ``table`` has no ``--output``:
``-o -`` is refused there, and nothing is written. No file named ``-`` is ever made; a file
really named ``-`` is written ``./-``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import copy_bundled
from verifier.commands.output import is_stdout, plan


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )


@pytest.fixture
def work(tmp_path: Path) -> Path:
    copy_bundled(tmp_path / "archive")
    out = tmp_path / "work"
    out.mkdir()
    return out


def _no_dash(work: Path) -> None:
    assert sorted(p.name for p in work.iterdir()) == [], "a file was written in the cwd"


@pytest.mark.parametrize(
    "args",
    [
        ["-f", "json", "-o", "-"],
        ["-o", "json=-"],
        ["-f", "sarif", "-o", "report.sarif", "-f", "json", "-o", "-"],
    ],
)
def test_check_dash_is_standard_output(args: list[str], work: Path) -> None:
    proc = cli("check", "../archive", "--no-config", *args, cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["ok"] is True
    (work / "report.sarif").unlink(missing_ok=True)
    _no_dash(work)


def test_check_two_formats_on_dash_are_refused(work: Path) -> None:
    proc = cli("check", "../archive", "-f", "json", "-o", "-", "-f", "text", cwd=work)
    assert proc.returncode == 2 and "standard output" in proc.stderr
    _no_dash(work)


def test_coverage_dash_is_standard_output(work: Path) -> None:
    proc = cli("coverage", "../archive", "--no-config", "-f", "json", "-o", "-", cwd=work)
    assert proc.returncode in (0, 1), proc.stderr
    json.loads(proc.stdout)
    _no_dash(work)


def test_audit_dash_is_standard_output(work: Path) -> None:
    proc = cli("audit", "../archive", "--no-config", "-o", "-", cwd=work)
    assert proc.returncode == 0, proc.stderr
    json.loads(proc.stdout)
    _no_dash(work)


def test_write_baseline_dash_is_standard_output(work: Path) -> None:
    proc = cli(
        "check", "../archive", "-f", "json", "-o", "r.json", "--write-baseline", "-", cwd=work
    )
    assert proc.returncode == 0, proc.stderr
    json.loads(proc.stdout)  # the baseline
    (work / "r.json").unlink()
    _no_dash(work)
    # and with the report on standard output too: refused, nothing written
    proc = cli("check", "../archive", "--write-baseline", "-", cwd=work)
    assert proc.returncode == 2 and "standard output" in proc.stderr
    _no_dash(work)


def test_transcript_repair_dash_is_standard_output(work: Path) -> None:
    chat = work.parent / "chat.json"
    chat.write_text(
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": "hi"},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "f", "arguments": "{}"},
                            }
                        ],
                    },
                ]
            }
        ),
        "utf-8",
    )
    proc = cli("transcript", "repair", str(chat), "-o", "-", cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert "c1" in proc.stdout
    _no_dash(work)


def test_table_has_no_output_and_writes_none(work: Path) -> None:
    proc = cli("table", "../archive", "-o", "-", cwd=work)
    assert proc.returncode == 2
    _no_dash(work)


def test_one_helper_decides() -> None:
    assert is_stdout("-") and is_stdout(None) and not is_stdout("./-")
    assert plan([("format", "json"), ("output", "-")], ["json"]) == [("json", None)]
    assert plan([("output", "json=-")], ["json"]) == [("json", None)]
    assert plan([("format", "json"), ("output", "./-")], ["json"]) == [("json", Path("./-"))]
