"""``coverage --mutate`` on a record whose key and value hold ANSI escapes, OSC sequences,
HTML, Markdown and a newline, shown by a catalogue cell only (so its mutant survives and the
survivor's message quotes the value): no crash, nothing written outside the output (the
scratch folder under TMPDIR removed), text and Markdown inert."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import rewrite_manifest
from tests.coverage_archives import EXTRA, HOSTILE, with_uncovered
from tests.hostile.harness import assert_safe, run_cli
from verifier.coverage.measure import escape

# slow: coverage --mutate (and --full) over a hostile archive (-m "not slow" leaves it out)
pytestmark = pytest.mark.slow


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    root = with_uncovered(tmp_path / "hostile", hostile=True)
    cat_path = root / "evidence/cases.json"
    cases = json.loads(cat_path.read_text(encoding="utf-8"))
    pointer = f"/{escape(HOSTILE)}/value"
    cases["cases"][0]["outcomes"].append(
        {"label": HOSTILE, "select": {"file": EXTRA, "pointer": pointer}}
    )
    cat_path.write_text(json.dumps(cases, indent=2, ensure_ascii=False), encoding="utf-8")
    rewrite_manifest(root)
    return root


@pytest.mark.parametrize(("fmt", "full"), [("text", False), ("markdown", False), ("text", True)])
def test_a_hostile_survivor_is_inert(hostile: Path, fmt: str, full: bool) -> None:
    args = ["coverage", str(hostile), "--mutate", "--format", fmt]
    # --full runs one whole check per mutant (about 330 here): give it room on a loaded
    # machine; a hang is still a failure, only later.
    run = run_cli(
        [*args, *(["--full"] if full else [])], watch=[hostile], timeout=600.0 if full else 60.0
    )
    assert_safe(run, rc=1, json_report=False)
    out = run.stdout
    assert "coverage.survived" in out or "survived" in out
    assert "\x1b" not in out and "\x07" not in out, "a control sequence reached the output"
    assert "\nforged" not in out, "a newline in a value started a line"
    if fmt == "markdown":
        for raw in ("<img", "<!--", "[a](javascript:"):
            assert raw not in out, raw


def test_the_json_names_the_hostile_value_exactly(hostile: Path) -> None:
    run = run_cli(["coverage", str(hostile), "--mutate", "-f", "json"], watch=[hostile])
    assert_safe(run, rc=1, json_report=False)
    mutants = json.loads(run.stdout)["mutation"]["mutants"]
    mine = [m for m in mutants if m["path"] == EXTRA]
    assert [m["original"] for m in mine] == [HOSTILE]
    assert mine[0]["outcome"] == "survived" and mine[0]["tried"] != HOSTILE
