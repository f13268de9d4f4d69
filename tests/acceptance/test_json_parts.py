"""``check --format json`` is written a part at a time (the report's files and assertions a
few at a time, :func:`verifier.views.clean.dumps_clean_parts`): the bytes, to a file or to
standard output, are those of the whole report written at once, on a damaged archive with
names that are not UTF-8; the CLI never makes the whole text."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import verifier.views.check.json_view as json_view
import verifier.views.clean as clean_module
from tests.acceptance.test_executors_differential import _generate
from verifier.cli import main
from verifier.pipeline import Options, run
from verifier.views.clean import dumps_clean


@pytest.fixture(scope="module")
def damaged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = _generate(tmp_path_factory.mktemp("parts") / "archive")
    cases = root / "evidence" / "cases" / "000"
    (cases / "case-000003" / "run.json").write_text("{not json")  # a finding per stage
    (cases / "case-000004" / "readback.json").unlink()
    if sys.platform == "linux":  # a name that is not UTF-8: written as its escape
        (cases / "case-000005").joinpath(os.fsdecode(b"stray-\xff.json")).write_text("{}")
    return root


def _whole(root: Path) -> str:
    report = run(root, Options(executor="inline")).report
    return dumps_clean(report.to_dict()) + "\n"


def _never_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(report: object) -> str:
        raise AssertionError("the CLI made the whole text")

    monkeypatch.setattr(json_view, "render", refused)
    monkeypatch.setattr(clean_module, "PART_ITEMS", 3)


def test_the_file_written_in_parts_is_the_whole_report(
    damaged: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _whole(damaged)
    assert '"manifest.missing"' in expected and expected.count('"path"') > 3 * 3
    _never_whole(monkeypatch)
    out = tmp_path / "report.json"
    with pytest.raises(SystemExit) as exit_info:
        main(["check", str(damaged), "--format", "json", "--output", str(out), "--quiet"])
    assert exit_info.value.code == 1
    assert out.read_text(encoding="utf-8") == expected


def test_standard_output_written_in_parts_is_the_whole_report(
    damaged: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = _whole(damaged)
    _never_whole(monkeypatch)
    with pytest.raises(SystemExit):
        main(["check", str(damaged), "--format", "json"])
    assert capsys.readouterr().out == expected


def test_the_untouched_archive_in_parts_is_the_whole_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clean = _generate(tmp_path / "clean")
    expected = _whole(clean)
    _never_whole(monkeypatch)
    with pytest.raises(SystemExit) as exit_info:
        main(["check", str(clean), "--format", "json"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == expected
