"""The pre-commit hook, run as pre-commit runs it (entry + args, no file names), on the
bundled archive and on a broken copy."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import REPO, require_module


def hooks() -> list[dict[str, Any]]:
    yaml: Any = require_module("yaml")
    data = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


def run_hook(hook: dict[str, Any], cwd: Path) -> subprocess.CompletedProcess[str]:
    entry = shlex.split(hook["entry"])
    assert entry[0] == "verify-evidence"  # the console script this package installs
    command = [sys.executable, "-m", "verifier", *entry[1:], *hook.get("args", [])]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)


def test_the_hook_is_declared_as_pre_commit_expects() -> None:
    (hook,) = hooks()
    assert hook["id"] == "verify-evidence"
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is False


def test_the_hook_passes_on_the_bundled_archive() -> None:
    (hook,) = hooks()
    proc = run_hook(hook, REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_hook_fails_on_a_broken_archive(archive: Path) -> None:
    (hook,) = hooks()
    (archive / "evidence/e7-stripe-readback/payment-intents.json").write_text("{}")
    proc = run_hook(hook, archive)
    assert proc.returncode == 1
    assert "manifest.mismatch" in proc.stdout
