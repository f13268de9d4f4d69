"""The formats that grow with the archive are written a part at a time (``check --format
json``: the report's findings, assertions and files a few at a time,
:func:`verifier.views.clean.dumps_clean_parts`; ``--format junit``: a few thousand lines at a
time): the bytes, to a file or to standard output, are those of the whole report rendered at
once, on a damaged archive with names that are not UTF-8 and on an untouched one; the CLI
never makes the whole text."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import verifier.views.check.json_view as json_view
import verifier.views.check.jsonl as jsonl
import verifier.views.check.junit as junit
import verifier.views.clean as clean_module
from tests.acceptance.test_executors_differential import _generate
from verifier.cli import main
from verifier.pipeline import Options, run
from verifier.views.check import CHECK

PARTS = ["json", "junit", "jsonl"]


@pytest.fixture(scope="module")
def damaged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = _generate(tmp_path_factory.mktemp("parts") / "archive")
    cases = root / "evidence" / "cases" / "000"
    (cases / "case-000003" / "run.json").write_text("{not json")  # a finding per stage
    (cases / "case-000004" / "readback.json").unlink()
    for case in ("case-000010", "case-000011", "case-000012"):  # more findings than 3 parts
        (cases / case / "transcript.json").write_text("[]")
    if sys.platform == "linux":  # a name that is not UTF-8: written as its escape
        (cases / "case-000005").joinpath(os.fsdecode(b"stray-\xff.json")).write_text("{}")
    return root


def _whole(root: Path, name: str) -> str:
    """The report rendered whole, as the format's renderer gives it."""
    return CHECK[name](run(root, Options(executor="inline")).report)


def _never_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(report: object) -> str:
        raise AssertionError("the CLI made the whole text")

    for module in (json_view, junit, jsonl):
        monkeypatch.setattr(module, "render", refused)
    monkeypatch.setattr(clean_module, "PART_ITEMS", 3)
    monkeypatch.setattr(junit, "_PART_LINES", 3)
    monkeypatch.setattr(jsonl, "_PART_LINES", 3)


def test_the_parts_are_what_the_registry_names() -> None:
    assert sorted(name for name in CHECK if CHECK.format(name).parts is not None) == sorted(PARTS)


@pytest.mark.parametrize("name", PARTS)
def test_the_file_written_in_parts_is_the_whole_report(
    damaged: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    expected = _whole(damaged, name)
    assert "manifest.missing" in expected and expected.count("\n") > 3 * 3
    _never_whole(monkeypatch)
    out = tmp_path / "report.out"
    with pytest.raises(SystemExit) as exit_info:
        main(["check", str(damaged), "--format", name, "--output", str(out), "--quiet"])
    assert exit_info.value.code == 1
    assert out.read_text(encoding="utf-8") == expected


@pytest.mark.parametrize("name", PARTS)
def test_standard_output_written_in_parts_is_the_whole_report(
    damaged: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    expected = _whole(damaged, name)
    _never_whole(monkeypatch)
    with pytest.raises(SystemExit):
        main(["check", str(damaged), "--format", name])
    assert capsys.readouterr().out == expected


@pytest.mark.parametrize("name", PARTS)
def test_the_untouched_archive_in_parts_is_the_whole_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    clean = _generate(tmp_path / "clean")
    expected = _whole(clean, name)
    _never_whole(monkeypatch)
    with pytest.raises(SystemExit) as exit_info:
        main(["check", str(clean), "--format", name])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == expected


def test_the_json_parts_are_the_whole_report_s_dict_written_at_once(damaged: Path) -> None:
    from verifier.views.clean import dumps_clean

    report = run(damaged, Options(executor="inline")).report
    assert json_view.render(report) == dumps_clean(report.to_dict()) + "\n"


def test_the_json_lines_are_each_finding_then_the_summary(damaged: Path) -> None:
    """Read back, the JSON Lines written in parts are the report's flat findings, one per
    line (each as the JSON report writes it: a name that is not UTF-8 as its escape), then
    its summary, which counts them."""
    import json

    from verifier.views.clean import dumps_clean

    report = run(damaged, Options(executor="inline")).report
    lines = [json.loads(line) for line in jsonl.render(report).splitlines()]
    findings = report.flat_findings()
    assert len(findings) > 3
    assert lines[:-1] == [json.loads(dumps_clean({"type": "finding", **f})) for f in findings]
    assert lines[-1]["type"] == "summary" and lines[-1]["findings"] == len(findings)
    assert lines[-1]["ok"] is False and lines[-1]["manifestSha256"] == report.manifest_sha256
