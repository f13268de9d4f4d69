"""``check --format``/``--output`` pairing: ``--output FORMAT=PATH``, a plain ``--output``
bound to the ``--format`` right before it, and exit 2 with one line for anything ambiguous
(nothing checked, nothing written)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.acceptance.test_formats import cli
from tests.conftest import REPO
from verifier.commands.output import plan, tokens
from verifier.errors import UsageError

KNOWN = ("auto", "text", "json", "junit", "sarif", "github", "markdown", "jsonl")


def kinds(folder: Path) -> dict[str, str]:
    """What each file in ``folder`` holds, told from its content."""
    out = {}
    for path in sorted(folder.iterdir()):
        text = path.read_text(encoding="utf-8")
        if text.startswith("<?xml"):
            out[path.name] = "junit"
        elif text.startswith("## verify-evidence"):
            out[path.name] = "markdown"
        elif text.startswith("::"):
            out[path.name] = "github"
        elif text.startswith("{"):
            out[path.name] = "sarif" if "runs" in json.loads(text) else "json"
        else:
            out[path.name] = "text"
    return out


@pytest.mark.parametrize(
    "args",
    [
        ["-f", "github", "-f", "sarif", "-o", "a", "-f", "junit", "-o", "b"],
        ["-f", "github", "--output", "sarif=a", "--output=junit=b"],
        ["--output", "junit=b", "-f", "github", "--format=sarif", "--output=a"],
        ["-f", "github", "-fsarif", "-oa", "-o", "JUNIT=b"],
    ],
)
def test_each_output_gets_the_format_it_names_or_follows(args: list[str], tmp_path: Path) -> None:
    proc = cli("check", str(REPO), *args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert kinds(tmp_path) == {"a": "sarif", "b": "junit"}
    assert proc.stdout.startswith("::notice")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["-o", "a"], "--output a has no --format just before it"),
        (["-o", "a", "-f", "json"], "--output a has no --format just before it"),
        (["-f", "json", "-f", "junit", "-o", "a", "-o", "b"], "it follows --output a"),
        (["-f", "json", "-o", "junit=a", "-o", "b"], "it follows --output junit=a"),
        (["-f", "json", "-f", "junit"], "would all go to standard output"),
        (["-f", "json", "-o", "a", "-o", "junit=a"], "--output a is given for both"),
        (["-o", "json="], "names no file"),
    ],
)
def test_ambiguous_pairings_exit_2_with_one_line(
    args: list[str], says: str, tmp_path: Path
) -> None:
    proc = cli("check", str(REPO), *args, cwd=tmp_path)
    assert proc.returncode == 2
    assert len(proc.stderr.splitlines()) == 1 and says in proc.stderr, proc.stderr
    assert proc.stdout == "" and list(tmp_path.iterdir()) == []


def test_a_path_that_looks_like_format_equals_is_written_with_a_folder(tmp_path: Path) -> None:
    proc = cli("check", str(REPO), "-f", "json", "-o", "./sarif=x", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert kinds(tmp_path) == {"sarif=x": "json"}


def test_without_a_recorded_order_each_format_takes_its_output() -> None:
    given = tokens(None, ["json", "junit"], ["a", "b"])
    assert given == [("format", "json"), ("output", "a"), ("format", "junit"), ("output", "b")]
    assert [(f, str(p)) for f, p in plan(given, KNOWN)] == [("json", "a"), ("junit", "b")]
    assert plan([], KNOWN) == [("auto", None)]
    with pytest.raises(UsageError):
        plan(tokens(None, [], ["a"]), KNOWN)
