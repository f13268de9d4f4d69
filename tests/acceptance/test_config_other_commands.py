"""Configuration and acceptance on the other commands that read an archive (#16): table takes
the configuration file, --show-config and --ignore/--select/--baseline; audit and coverage
take the configuration file and --show-config (their keys: where and how to read the source,
--fail-on, and coverage's display and executor keys). One file serves every command: a key
another command takes is left to it and named by --show-config, never an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.acceptance.test_formats import cli, tampered

CONFIG = 'manifest = "other.sha256"\nstages = ["integrity"]\nformat = "github"\n'


@pytest.mark.parametrize("command", ["table", "audit", "coverage"])
def test_show_config_names_origins_and_keys_left_to_other_commands(
    command: str, tmp_path: Path
) -> None:
    (tmp_path / "verify-evidence.toml").write_text(CONFIG, "utf-8")
    proc = cli(command, "elsewhere.zip", "--show-config", cwd=tmp_path)  # nothing is read
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"# verify-evidence {command}: effective settings"
    assert "# configuration file: verify-evidence.toml (working directory)" in lines
    assert 'manifest = "other.sha256"  # verify-evidence.toml' in lines
    assert f"# stages: verify-evidence.toml, not taken by {command}" in lines
    assert f"# format: verify-evidence.toml, not taken by {command}" in lines
    flag = cli(command, "a.zip", "--show-config", "--manifest", "x.sha256", cwd=tmp_path)
    assert 'manifest = "x.sha256"  # command line' in flag.stdout.splitlines()


@pytest.mark.parametrize("command", ["table", "audit", "coverage"])
def test_a_file_applies_to_the_run(command: str, archive: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "verify-evidence.toml").write_text('manifest = "nope.sha256"\n', "utf-8")
    proc = cli(command, str(archive), cwd=work)
    assert proc.returncode == 2
    assert "nope.sha256" in proc.stderr
    assert cli(command, str(archive), "--no-config", cwd=work).returncode == 0


def _stray(archive: Path) -> Path:
    """The archive with one unlisted file: a finding no table cell depends on (a cell
    whose assertion failed stays unverified whatever is accepted)."""
    (archive / "evidence" / "stray.txt").write_text("x", "utf-8")
    return archive


def test_table_accepts_findings_as_check_does(archive: Path) -> None:
    broken = _stray(archive)
    assert cli("table", str(broken), "--format", "text").returncode == 1
    proc = cli("table", str(broken), "--format", "text", "--ignore", "manifest.unlisted")
    assert proc.returncode == 0, proc.stdout[:400]
    assert cli("table", str(broken), "--select", "bag").returncode == 0
    bad = cli("table", str(broken), "--ignore", "nope")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert cli("table", str(tampered(archive)), "--ignore", "manifest").returncode == 1


def test_table_takes_a_baseline(archive: Path, tmp_path: Path) -> None:
    broken = _stray(archive)
    baseline = tmp_path / "baseline.json"
    cli("check", str(broken), "--write-baseline", str(baseline), "--format", "json")
    assert baseline.is_file()
    proc = cli("table", str(broken), "--format", "text", "--baseline", str(baseline))
    assert proc.returncode == 0, proc.stdout[:400]


def test_a_relaxing_file_inside_the_archive_is_refused_by_table(archive: Path) -> None:
    (archive / "verify-evidence.toml").write_text('ignore = ["manifest"]\n', "utf-8")
    proc = cli("table", ".", cwd=archive)
    assert proc.returncode == 2 and "inside the archive" in proc.stderr
