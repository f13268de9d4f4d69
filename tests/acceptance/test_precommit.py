"""The pre-commit hooks, run as pre-commit runs them (entry + args, no file names), on the
bundled archive and on a broken copy; which files trigger them. Real pre-commit runs them in
test_precommit_real.py."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

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


def by_id() -> dict[str, dict[str, Any]]:
    return {hook["id"]: hook for hook in hooks()}


def test_the_hooks_are_declared_as_pre_commit_expects() -> None:
    declared = by_id()
    assert set(declared) == {"verify-evidence", "verify-evidence-system"}
    assert declared["verify-evidence"]["language"] == "python"
    assert declared["verify-evidence-system"]["language"] == "system"
    for hook in declared.values():
        assert hook["pass_filenames"] is False
    # the same command and trigger, whichever way verify-evidence is installed
    python, system = declared["verify-evidence"], declared["verify-evidence-system"]
    for key in ("entry", "args", "files", "always_run"):
        assert python[key] == system[key], key


@pytest.mark.parametrize(
    "path",
    [
        "manifest.sha256",
        "evidence/e1/run.json",
        "schemas/run.schema.json",
        "my-archive/manifest.sha256",  # an archive in a subfolder (init my-archive)
        "my-archive/evidence/example-run/run.json",
        "deep/er/archive/schemas/x.json",
    ],
)
def test_archive_files_anywhere_trigger_the_hook(path: str) -> None:
    """A change to an archive's files runs the hook wherever the archive is, so an archive
    the default arguments do not check fails loudly instead of being skipped."""
    for hook in hooks():
        assert re.search(hook["files"], path), (hook["id"], path)


@pytest.mark.parametrize("path", ["README.md", "src/evidence.py", "docs/schemas.md"])
def test_other_files_do_not_trigger_the_hook(path: str) -> None:
    for hook in hooks():
        assert not re.search(hook["files"], path), (hook["id"], path)


@pytest.mark.parametrize("hook_id", ["verify-evidence", "verify-evidence-system"])
def test_the_hook_passes_on_the_bundled_archive(hook_id: str) -> None:
    proc = run_hook(by_id()[hook_id], REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("hook_id", ["verify-evidence", "verify-evidence-system"])
def test_the_hook_fails_on_a_broken_archive(archive: Path, hook_id: str) -> None:
    (archive / "evidence/e7-stripe-readback/payment-intents.json").write_text("{}")
    proc = run_hook(by_id()[hook_id], archive)
    assert proc.returncode == 1
    assert "manifest.mismatch" in proc.stdout


def test_the_hook_at_a_root_without_an_archive_fails_loudly(tmp_path: Path) -> None:
    """The defaults check the repository's root: with the archive in a subfolder that is a
    failure that says so (exit 2, one line), never a pass."""
    (tmp_path / "my-archive").mkdir()
    proc = run_hook(by_id()["verify-evidence"], tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "no manifest" in proc.stderr and len(proc.stderr.splitlines()) == 1
