"""The corpus: small real-shaped transcripts per shape under ``tests/cases/transcripts/<shape>/``,
each with its expected findings (``<name>.expected.json``) and, when repair changes it, the
exact repaired output (``<name>.repaired.json[l]``). Discovered and parametrized
automatically: a new case is a new pair of files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from verifier.transcripts import SHAPES
from verifier.transcripts.check import check_bytes
from verifier.transcripts.repair import repair_bytes

CASES = REPO / "tests" / "cases" / "transcripts"


def is_case(path: Path) -> bool:
    return path.suffix in (".json", ".jsonl") and not any(
        tag in path.name for tag in (".expected.", ".repaired.")
    )


def corpus() -> list[Path]:
    return sorted(p for p in CASES.glob("*/*") if is_case(p))


def companion(case: Path, tag: str, suffix: str | None = None) -> Path:
    return case.with_name(f"{case.stem}.{tag}{suffix or case.suffix}")


def expected(case: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(companion(case, "expected", ".json").read_text("utf-8"))
    return value


def ids(case: Path) -> str:
    return f"{case.parent.name}/{case.name}"


def test_every_shape_has_cases_and_every_case_its_expectations() -> None:
    assert {p.parent.name for p in corpus()} == set(SHAPES)
    for case in corpus():
        assert companion(case, "expected", ".json").is_file(), case
    seeds = {p.parent.name for p in corpus() if p.stem == "seed-004"}
    assert seeds == set(SHAPES), "seed 004 must be expressed in every shape"


@pytest.mark.parametrize("case", corpus(), ids=ids)
def test_findings(case: Path) -> None:
    want = expected(case)
    report = check_bytes(case.read_bytes(), str(case))
    assert report.shape == case.parent.name == want["shape"]
    assert report.shape_source == "detected"
    got = [
        {k: v for k, v in (("code", f.code), ("index", f.index), ("callId", f.call_id)) if v}
        | ({"tool": f.tool} if f.tool else {})
        for f in report.findings
    ]
    assert got == want["findings"]
    # the shape, given instead of detected, reads the same
    again = check_bytes(case.read_bytes(), str(case), case.parent.name)
    assert again.findings == report.findings


@pytest.mark.parametrize("case", corpus(), ids=ids)
def test_repair(case: Path) -> None:
    want = expected(case)["repair"]
    result = repair_bytes(case.read_bytes(), str(case))
    assert [a.call.id for a in result.added] == want["added"]
    assert [f.code for f in result.remaining] == want["remaining"]
    golden = companion(case, "repaired")
    if result.changed:
        assert result.output == golden.read_bytes()
        assert check_bytes(result.output, str(golden)).findings == result.remaining
    else:
        assert result.output == case.read_bytes()
        assert not golden.exists()
    assert repair_bytes(result.output, str(golden)).output == result.output
