"""Configuration through the real command: lookup in the working directory, flags win,
--show-config, and a file inside the archive cannot relax the check unless named."""

from __future__ import annotations

import json
from pathlib import Path

from tests.acceptance.test_formats import cli, tampered
from tests.hostile.harness import validate_report


def test_show_config_names_each_origin(archive: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "verify-evidence.toml").write_text('fail-on = "warning"\njobs = 2\n', "utf-8")
    proc = cli("check", str(archive), "--show-config", "--jobs", "3", cwd=work)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "# configuration file: verify-evidence.toml (working directory)" in lines
    assert 'fail-on = "warning"  # verify-evidence.toml' in lines
    assert 'jobs = "3"  # command line' in lines
    assert 'stages = "integrity,validity,consistency"  # default' in lines


def test_verify_evidence_toml_comes_before_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.verify-evidence]\nquiet = true\n", "utf-8")
    proc = cli("check", "--show-config", cwd=tmp_path)
    assert "quiet = true  # pyproject.toml" in proc.stdout
    (tmp_path / "verify-evidence.toml").write_text('fail-on = "note"\n', "utf-8")
    proc = cli("check", "--show-config", cwd=tmp_path)
    assert "quiet = false  # default" in proc.stdout and 'fail-on = "note"' in proc.stdout
    assert (
        "--no-config"
        and "no configuration file"
        in cli("check", "--show-config", "--no-config", cwd=tmp_path).stdout
    )


def test_a_file_applies_and_is_reported(archive: Path, tmp_path: Path) -> None:
    broken = tampered(archive)
    work = tmp_path / "work"
    work.mkdir()
    (work / "verify-evidence.toml").write_text(
        'ignore = ["manifest", "assertion.failed", "record.no-schema"]\nformat = "json"\n',
        "utf-8",
    )
    proc = cli("check", str(broken), cwd=work)
    assert proc.returncode == 0, proc.stdout[-500:]
    report = json.loads(proc.stdout)
    validate_report(report)
    assert report["configuration"]["file"] == "verify-evidence.toml"
    assert sorted(report["configuration"]["settings"]) == ["format", "ignore"]
    assert report["acceptance"]["accepted"]["ignored"] >= 3
    # a flag wins over the file
    proc = cli("check", str(broken), "--format", "text", cwd=work)
    assert proc.stdout.startswith("verify-evidence ")
    assert "Configuration verify-evidence.toml set: ignore." in proc.stdout


def test_a_found_file_inside_the_archive_cannot_relax_it(archive: Path) -> None:
    broken = tampered(archive)
    (broken / "verify-evidence.toml").write_text('ignore = ["manifest"]\n', "utf-8")
    proc = cli("check", cwd=broken)
    assert proc.returncode == 2
    assert "inside the archive being verified and sets ignore" in proc.stderr
    assert proc.stderr.count("\n") == 1
    # safe keys from the archive's file still apply; relaxing ones need --config
    (broken / "verify-evidence.toml").write_text('format = "json"\n', "utf-8")
    proc = cli("check", cwd=broken)
    assert proc.returncode == 1 and json.loads(proc.stdout)["ok"] is False
    (broken / "verify-evidence.toml").write_text('ignore = ["manifest"]\n', "utf-8")
    proc = cli("check", "--config", "verify-evidence.toml", "-f", "json", cwd=broken)
    assert json.loads(proc.stdout)["configuration"]["found"] == "--config"


def test_bad_config_is_exit_2_before_reading(tmp_path: Path) -> None:
    (tmp_path / "verify-evidence.toml").write_text("colour = 'always'\n", "utf-8")
    proc = cli("check", "absent-archive", cwd=tmp_path)
    assert proc.returncode == 2 and "unknown key 'colour'; did you mean 'color'" in proc.stderr
    (tmp_path / "verify-evidence.toml").write_text("fail-on = 'warnings'\n", "utf-8")
    proc = cli("check", "absent-archive", cwd=tmp_path)
    assert proc.returncode == 2 and "did you mean 'warning'" in proc.stderr
    proc = cli("check", "--config", str(tmp_path / "none.toml"), cwd=tmp_path)
    assert proc.returncode == 2 and "no such file" in proc.stderr
