"""``verify-evidence coverage`` through the real CLI: the bundled archive (goldens per
format), the ``init`` scaffold, a zip of the bundled archive, a broken copy, --fail-under,
--fail-on, --quiet, --format/--output pairing, bad options, and byte-identical output
across hash seeds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.archives import zip_tree
from tests.conftest import REPO, check_golden, copy_bundled
from tests.coverage_archives import EXTRA, with_uncovered
from tests.tampered import tamper

GOLDEN = REPO / "tests" / "golden" / "coverage"
SUFFIX = {"text": "txt", "json": "json", "markdown": "md"}


def cli(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", "coverage", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        env=env,
    )


def report_of(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    from jsonschema import Draft202012Validator

    data = json.loads(proc.stdout)
    schema = json.loads(
        (REPO / "verifier/schemas/coverage.schema.json").read_text(encoding="utf-8")
    )
    errors = list(Draft202012Validator(schema).iter_errors(data))
    assert not errors, "; ".join(f"{e.json_path}: {e.message}" for e in errors[:5])
    assert isinstance(data, dict)
    return data


def codes(data: dict[str, Any]) -> set[str]:
    return {f["code"] for f in data["findings"]}


def one_line_usage_error(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("fmt", sorted(SUFFIX))
def test_bundled_archive_golden(archive: Path, fmt: str) -> None:
    proc = cli(".", "--format", fmt, cwd=archive)
    assert proc.returncode == 0, proc.stderr
    check_golden(GOLDEN / f"bundled.{SUFFIX[fmt]}", proc.stdout)


def test_bundled_archive_passes_and_counts_every_leaf(archive: Path) -> None:
    data = report_of(cli(str(archive), "-f", "json"))
    assert data["passed"] and data["checkErrors"] == 0 and data["files"]
    assert not codes(data) & {"coverage.check-failed", "coverage.unread", "coverage.nothing"}
    total = sum(len(f["leaves"]) for f in data["files"])
    assert sum(data["counts"].values()) == total > 0
    assert {n["path"] for n in data["notAudited"]} == {
        "evidence/assertions.json",
        "evidence/cases.json",
    }


def test_a_broken_copy_is_check_failed_and_still_valid_json(archive: Path) -> None:
    tamper(archive)
    proc = cli(str(archive), "-f", "json")
    assert proc.returncode == 1, proc.stderr
    data = report_of(proc)
    assert "coverage.check-failed" in codes(data) and data["checkErrors"] > 0
    assert not data["passed"]


def test_the_init_scaffold(tmp_path: Path) -> None:
    target = tmp_path / "new"
    assert (
        subprocess.run(
            [sys.executable, "-m", "verifier", "init", str(target)],
            capture_output=True,
            check=False,
        ).returncode
        == 0
    )
    proc = cli(str(target), "-f", "json")
    assert proc.returncode == 0, proc.stderr
    data = report_of(proc)
    assert data["files"] and data["checkErrors"] == 0
    assert data["counts"]["covered"] > 0


def test_a_zip_of_the_bundled_archive_measures_as_the_folder(archive: Path, tmp_path: Path) -> None:
    packed = zip_tree(archive, tmp_path / "bundled.zip")
    folder, zipped = (
        report_of(cli(str(archive), "-f", "json")),
        report_of(cli(str(packed), "-f", "json")),
    )
    for key in ("counts", "files", "findings", "excuses", "notAudited", "percent"):
        assert zipped[key] == folder[key], key


def test_fail_under_at_and_above_the_measured_share(tmp_path: Path) -> None:
    root = with_uncovered(tmp_path / "a")
    share = report_of(cli(str(root), "-f", "json"))["percent"]
    assert isinstance(share, float) and share < 100  # the extra record is uncovered
    at = cli(str(root), "-f", "json", "--fail-under", f"{share}")
    assert at.returncode == 0 and "coverage.below-threshold" not in codes(report_of(at))
    above = cli(str(root), "-f", "json", "--fail-under", f"{min(100.0, share + 0.5)}")
    assert above.returncode == 1 and "coverage.below-threshold" in codes(report_of(above))
    assert report_of(above)["failUnder"] == min(100.0, share + 0.5)


@pytest.mark.parametrize("bad", ["abc", "101", "-1", "1e2", "nan", "", "9" * 400, "٩٠"])
def test_a_bad_fail_under_is_one_line_and_exit_2(bad: str) -> None:
    proc = cli(str(REPO), "--fail-under", bad)
    one_line_usage_error(proc)
    assert "--fail-under" in proc.stderr


def test_uncovered_values_are_notes_unless_fail_on_note(tmp_path: Path) -> None:
    root = with_uncovered(tmp_path / "a")
    default = cli(str(root), "-f", "json")
    assert default.returncode == 0
    data = report_of(default)
    uncovered = [f for f in data["findings"] if f["code"] == "coverage.uncovered"]
    assert {f["severity"] for f in uncovered} == {"note"}
    assert any(f["path"] == EXTRA and f["pointer"] == "/other" for f in uncovered)
    assert cli(str(root), "-q", "--fail-on", "note").returncode == 1


def test_quiet_prints_nothing_and_keeps_the_exit_code(archive: Path) -> None:
    tamper(archive)
    proc = cli(str(archive), "--quiet")
    assert proc.returncode == 1 and proc.stdout == ""


def test_auto_is_text_off_a_terminal(archive: Path) -> None:
    assert cli(".", cwd=archive).stdout == cli(".", "-f", "text", cwd=archive).stdout


def test_formats_go_to_their_outputs(archive: Path, tmp_path: Path) -> None:
    json_out, md_out = tmp_path / "c.json", tmp_path / "c.md"
    proc = cli(
        ".",
        "-f",
        "json",
        "-o",
        str(json_out),
        "-o",
        f"markdown={md_out}",
        "-f",
        "text",
        cwd=archive,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == cli(".", "-f", "text", cwd=archive).stdout
    assert json_out.read_text(encoding="utf-8") == cli(".", "-f", "json", cwd=archive).stdout
    assert md_out.read_text(encoding="utf-8") == cli(".", "-f", "markdown", cwd=archive).stdout


@pytest.mark.parametrize(
    "args",
    [
        ["-f", "text", "-f", "json"],  # two formats for standard output
        ["-o", "x.json"],  # an output with no format before it
        ["-f", "junit"],  # not a coverage format
        ["--git", "."],  # SOURCE and --git
        ["--max-bytes", "lots"],
    ],
)
def test_bad_options_are_one_line_and_exit_2(tmp_path: Path, args: list[str]) -> None:
    one_line_usage_error(cli(str(REPO), *args, cwd=tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_a_missing_source_is_exit_2(tmp_path: Path) -> None:
    one_line_usage_error(cli(str(tmp_path / "nowhere")))


@pytest.mark.parametrize("fmt", sorted(SUFFIX))
def test_same_bytes_across_hash_seeds(archive: Path, fmt: str) -> None:
    tamper(archive)
    outputs = []
    for seed in ("0", "4242"):
        env = {k: v for k, v in os.environ.items() if not k.startswith("VERIFIER_")}
        env["PYTHONHASHSEED"] = seed
        proc = cli(".", "-f", fmt, cwd=archive, env=env)
        assert proc.returncode == 1 and proc.stderr == ""
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1] and outputs[0]


def test_the_bundled_copy_is_left_untouched(tmp_path: Path) -> None:
    root = copy_bundled(tmp_path / "a")
    before = {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
    assert cli(str(root), "-q").returncode == 0
    assert {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()} == before
