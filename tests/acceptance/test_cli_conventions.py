"""CLI conventions (issue 16): -h, -V, --color and FORCE_COLOR/NO_COLOR, -v, table's source
options, --manifest relative to ROOT for folders, and a missing manifest naming candidates."""

from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

import pytest

from tests.acceptance.test_formats import cli
from tests.conftest import copy_bundled

ESC = "\x1b["


def run_env(env: dict[str, str], *args: str, cwd: Path | None = None) -> str:
    import subprocess
    import sys

    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    proc = subprocess.run(
        [sys.executable, "-m", "verifier", *args],
        capture_output=True, text=True, check=False, cwd=cwd, env={**base, **env},
    )  # fmt: skip
    return proc.stdout


def small(tmp_path: Path, manifest: str = "SHA256SUMS") -> Path:
    root = tmp_path / "root"
    (root / "d").mkdir(parents=True)
    (root / "d" / "a.txt").write_bytes(b"alpha\n")
    digest = hashlib.sha256(b"alpha\n").hexdigest()
    (root / manifest).write_text(f"{digest}  d/a.txt\n", encoding="utf-8")
    return root


def test_short_help_and_version() -> None:
    assert cli("-V").stdout.startswith("verify-evidence ")
    assert cli("-V").stdout == cli("--version").stdout
    for args in (("-h",), ("check", "-h"), ("table", "-h"), ("transcript", "check", "-h")):
        proc = cli(*args)
        assert proc.returncode == 0 and proc.stdout.startswith("Usage:"), args


def test_color_always_never_and_the_environment(tmp_path: Path) -> None:
    root = small(tmp_path)
    args = ("check", str(root), "--manifest", "SHA256SUMS")
    assert ESC in run_env({}, *args, "--color", "always")
    assert ESC not in run_env({}, *args)  # not a terminal
    assert ESC in run_env({"FORCE_COLOR": "1"}, *args)
    assert ESC not in run_env({"FORCE_COLOR": "0"}, *args)
    assert ESC not in run_env({"FORCE_COLOR": "1", "NO_COLOR": "1"}, *args)
    assert ESC not in run_env({"FORCE_COLOR": "1"}, *args, "--color", "never")
    assert ESC not in run_env({"FORCE_COLOR": "1"}, *args, "--no-color")
    plain = run_env({}, *args, "--color", "never")
    assert plain == run_env({}, *args, "--format", "text")


def test_verbose_says_where_settings_came_from(tmp_path: Path) -> None:
    root = small(tmp_path)
    proc = cli("check", str(root), "--manifest", "SHA256SUMS", "-v", "-q")
    assert proc.returncode == 0
    assert "verify-evidence: configuration: none" in proc.stderr
    assert "verify-evidence: manifest from command line" in proc.stderr


def test_manifest_is_relative_to_root_for_a_folder(tmp_path: Path) -> None:
    root = small(tmp_path)
    assert cli("check", str(root), "--manifest", "SHA256SUMS", "-q").returncode == 0
    # './NAME' is taken as given: relative to the working directory
    proc = cli("check", str(root), "--manifest", "./SHA256SUMS", "-q", cwd=tmp_path)
    assert proc.returncode == 2 and "./SHA256SUMS does not exist" in proc.stderr
    proc = cli("check", "root", "--manifest", "./root/SHA256SUMS", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert cli("check", str(root), "--manifest", str(root / "SHA256SUMS"), "-q").returncode == 0


@pytest.mark.parametrize("name", ["SHA256SUMS", "checksums.sha256", "checksums.txt"])
def test_a_missing_default_manifest_names_candidates(tmp_path: Path, name: str) -> None:
    root = small(tmp_path, name)
    proc = cli("check", str(root))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert f"found {name} in {root}: pass --manifest {name}" in proc.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = cli("check", str(empty))
    assert "verify-evidence manifest --write" in proc.stderr


def test_table_takes_the_source_options(tmp_path: Path) -> None:
    archive = copy_bundled(tmp_path / "archive")
    packed = tmp_path / "archive.zip"
    with zipfile.ZipFile(packed, "w") as zf:
        for path in sorted(archive.rglob("*")):
            if path.is_file():
                zf.write(path, path.relative_to(archive).as_posix())
    folder = cli("table", str(archive), "--format", "json")
    zipped = cli("table", str(packed), "--format", "json")
    assert folder.returncode == zipped.returncode == 0, zipped.stderr
    assert folder.stdout == zipped.stdout
    assert cli("table", "--max-bytes", "1", str(packed), "-f", "text").returncode == 2  # limit hit
    assert "--git" in cli("table", "-h").stdout and "--base" in cli("table", "-h").stdout
