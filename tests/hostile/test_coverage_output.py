"""``verify-evidence coverage`` on an archive whose record keys, values and the spec's
'unasserted' reason hold ANSI escapes, OSC sequences, HTML, Markdown and a newline: the run
is safe (no crash, no write outside its output), text and Markdown stay inert, and JSON
keeps the text exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.coverage_archives import EXTRA, HOSTILE, with_uncovered
from tests.hostile.harness import assert_safe, run_cli


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    return with_uncovered(tmp_path / "hostile", hostile=True)


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_views_for_people_stay_inert(hostile: Path, fmt: str) -> None:
    run = run_cli(["coverage", str(hostile), "--format", fmt], watch=[hostile])
    assert_safe(run, rc=(0, 1), json_report=False)
    out = run.stdout
    assert "\x1b" not in out and "\x07" not in out, "a control sequence reached the output"
    assert "\nforged" not in out, "a newline in a key started a line"
    assert "\\x1b" in out and "owned" in out  # the key and the reason shown, as escapes
    if fmt == "markdown":
        for raw in ("<img", "<!--", "**bold**", "[a](javascript:", "`code`"):
            assert raw not in out, raw


def test_json_keeps_the_text_exactly_and_is_valid(hostile: Path) -> None:
    from jsonschema import Draft202012Validator

    run = run_cli(["coverage", str(hostile), "--format", "json"], watch=[hostile])
    assert_safe(run, rc=(0, 1), json_report=False)
    data = json.loads(run.stdout)
    schema = json.loads(
        (REPO / "verifier/schemas/coverage.schema.json").read_text(encoding="utf-8")
    )
    assert not list(Draft202012Validator(schema).iter_errors(data))
    escaped = HOSTILE.replace("~", "~0").replace("/", "~1")
    (record,) = [f for f in data["files"] if f["path"] == EXTRA]
    assert any(leaf["pointer"] == f"/{escaped}/value" for leaf in record["leaves"])
    assert any(e["reason"] == HOSTILE and e["matched"] == 1 for e in data["excuses"])
