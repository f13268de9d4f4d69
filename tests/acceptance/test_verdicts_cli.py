"""One verdict for coverage and transcript check too (issue 34, siblings of class 12): every
view's verdict (the text and Markdown headings, the rich view, the JSON ``passed`` or
``verdict``, each file's status) is the exit code's, ``--fail-on`` included. On main the
coverage views said "passed" over the exit 1 of ``--fail-on note``, and ``transcript check``
said each file "passed" from its errors alone."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.coverage_archives import with_uncovered

CASES = REPO / "tests" / "cases" / "transcripts"
REUSED_ANSWERED = CASES / "openai-chat" / "reused-answered-id.json"  # a note only
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def run(*args: str, color: bool = False) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    if color:
        env["FORCE_COLOR"] = "1"
    env["COLUMNS"] = "400"  # the rich views on one line each
    proc = subprocess.run(
        [sys.executable, "-m", "verifier", *args],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    return proc


def _coverage_passed(name: str, text: str) -> bool:
    if name == "json":
        return bool(json.loads(text)["passed"])
    if name == "markdown":
        head = text.splitlines()[0]
        assert head.startswith("## verify-evidence coverage: ")
        return head.startswith("## verify-evidence coverage: passed")
    # text and the rich view: the verdict ends the first line
    head = ANSI.sub("", text).splitlines()[0]
    assert head.endswith("passed") or ": FAILED (" in head, head
    return head.endswith("passed")


@pytest.fixture(scope="module")
def uncovered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return with_uncovered(tmp_path_factory.mktemp("coverage") / "a")


@pytest.mark.parametrize("name", ["text", "markdown", "json", "rich"])
@pytest.mark.parametrize("fail_on", ["error", "warning", "note"])
def test_every_coverage_view_says_the_verdict_of_the_exit_code(
    name: str, fail_on: str, uncovered: Path
) -> None:
    """Uncovered values are notes: the run passes at --fail-on error and warning and fails
    at --fail-on note, and every view says so."""
    fmt = [] if name == "rich" else ["--format", name]
    proc = run("coverage", str(uncovered), *fmt, "--fail-on", fail_on, color=name == "rich")
    assert proc.returncode in (0, 1), proc.stderr
    assert proc.returncode == (1 if fail_on == "note" else 0)
    if name == "rich":
        assert "\x1b[" in proc.stdout  # the rich view, not the text one
    assert _coverage_passed(name, proc.stdout) == (proc.returncode == 0), proc.stdout[:600]


def _transcript_verdicts(name: str, text: str) -> tuple[bool, list[bool]]:
    """The run's verdict and each file's, as a reader of format ``name`` takes them."""
    if name == "json":
        data = json.loads(text)
        assert data["failOn"] in ("error", "warning", "note")
        return data["verdict"] == "passed", []
    lines = ANSI.sub("", text).splitlines()
    (verdict,) = [x for x in lines if x.startswith("Verdict: ")]
    head = lines[: lines.index(verdict)]  # the files' table, before the findings
    files = [w == "passed" for x in head for w in re.findall(r"\b(passed|failed)\b", x)]
    return verdict.startswith("Verdict: passed"), files


@pytest.mark.parametrize("name", ["text", "json", "rich"])
@pytest.mark.parametrize("fail_on", ["error", "warning", "note"])
def test_every_transcript_view_says_the_verdict_of_the_exit_code(name: str, fail_on: str) -> None:
    fmt = ["--color", "always"] if name == "rich" else ["--format", name]
    proc = run("transcript", "check", str(REUSED_ANSWERED), *fmt, "--fail-on", fail_on)
    assert proc.returncode == (1 if fail_on == "note" else 0), proc.stderr
    if name == "rich":
        assert "\x1b[" in proc.stdout
    passed, files = _transcript_verdicts(name, proc.stdout)
    assert passed == (proc.returncode == 0), proc.stdout
    assert all(f == passed for f in files) and (name == "json" or files), proc.stdout
