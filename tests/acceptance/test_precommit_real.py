"""The pre-commit hooks as users run them, with real pre-commit (in the test extra).

The hook repository is a local clone of this project's working tree (a temporary git
repository, so pre-commit can check out a commit of it); pre-commit builds its own
environment for the ``python`` hook by installing that clone with pip, once per session.
The repository under test is another temporary git repository holding an archive made by
``verify-evidence init my-archive``, in a subfolder as the README's own flow makes it.

* ``pre-commit try-repo`` (the hook with its defaults): a tampered record staged in the
  subfolder archive makes the run fail; it used to be skipped (the hook's ``files`` matched
  only an archive at the root) and the tampered record was committed. (try-repo installs
  the hook's environment afresh each time, so it runs once.)
* ``git commit`` with the hooks installed by ``pre-commit install``, for both hooks (the
  ``language: system`` one runs the verify-evidence installed beside this Python): with the
  defaults on an archive at the root, and configured as the README documents for a
  subfolder (``args: [--format, text, my-archive]``, ``files: ^my-archive/``). A tampered
  record makes the commit fail, the untouched archive commits.

pre-commit missing, no git checkout to clone, or no package index for pip to build the
hook's environment from: skipped, and failed under CI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.archives import GIT_ENV_DROP, need_git
from tests.conftest import REPO, missing_oracle, require_module

# slow: real pre-commit installs the hooks and runs them in commits (-m "not slow" leaves it out)
pytestmark = pytest.mark.slow

ARCHIVE = "my-archive"
RECORD = f"{ARCHIVE}/evidence/example-run/run.json"
# pip's words for a package index it cannot reach (any other install failure is a failure)
NO_INDEX = (
    "No matching distribution found",
    "Could not find a version that satisfies",
    "Failed to establish a new connection",
    "Network is unreachable",
    "Temporary failure in name resolution",
)
TIMEOUT = 900  # seconds: the first run installs the hook's environment with pip


@dataclass(frozen=True)
class HookRepo:
    path: Path
    rev: str


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in GIT_ENV_DROP}
    env = {k: v for k, v in env.items() if not k.startswith(("PRE_COMMIT", "VERIFIER_"))}
    env.update(
        PRE_COMMIT_HOME=str(home),
        PRE_COMMIT_COLOR="never",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Test",
        GIT_AUTHOR_EMAIL="test@example.invalid",
        GIT_COMMITTER_NAME="Test",
        GIT_COMMITTER_EMAIL="test@example.invalid",
        GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
        GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
        # verify-evidence for the language: system hook: the one installed beside this Python
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", os.defpath)]),
    )
    return env


def sh(
    args: list[str], cwd: Path, env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=timeout
    )


def git(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return sh(["git", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", *args], repo, env)


def ok(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_module("pre_commit", "pre-commit is not installed (it is in the test extra)")
    need_git()
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory, pre_commit_home: Path) -> HookRepo:
    """This project's working tree (tracked and new files, as they are now), committed in a
    temporary repository."""
    env = environment(pre_commit_home)
    listed = sh(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], REPO, env)
    if listed.returncode != 0:
        missing_oracle(f"{REPO} is not a git checkout to clone the hooks from")
    dest = tmp_path_factory.mktemp("hook-repo")
    for name in filter(None, listed.stdout.split("\0")):
        src = REPO / name
        if src.is_file() and not src.is_symlink():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    ok(git(dest, env, "init", "-q", "-b", "main"))
    ok(git(dest, env, "add", "-A"))
    ok(git(dest, env, "commit", "-q", "-m", "the hooks under test"))
    rev = ok(git(dest, env, "rev-parse", "HEAD")).strip()
    return HookRepo(dest, rev)


@pytest.fixture
def consumer(tmp_path: Path, pre_commit_home: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A repository with an archive in a subfolder (``init my-archive``), committed."""
    env = environment(pre_commit_home)
    repo = tmp_path / "project"
    repo.mkdir()
    ok(git(repo, env, "init", "-q", "-b", "main"))
    ok(sh([sys.executable, "-m", "verifier", "init", ARCHIVE], repo, env))
    (repo / "README.md").write_text("A project with an evidence archive.\n", encoding="utf-8")
    ok(git(repo, env, "add", "-A"))
    ok(git(repo, env, "commit", "-q", "-m", "the archive"))
    yield repo, env


def tamper(root: Path, record: str = RECORD) -> None:
    """Change a record's value and leave the manifest as it was."""
    path = root / record
    data = json.loads(path.read_text(encoding="utf-8"))
    data["status"] = "failed" if data["status"] != "failed" else "done"
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def installed(proc: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    """``proc``, unless pre-commit could not build the hook's environment (pip found no
    package index, say): that skips on a developer's machine and fails under CI."""
    output = proc.stdout + proc.stderr
    if "An unexpected error has occurred" in output and any(m in output for m in NO_INDEX):
        missing_oracle(f"pre-commit could not install the hook's environment: {output[-2000:]}")
    return proc


def try_repo(
    hooks: HookRepo, repo: Path, env: dict[str, str], *extra: str
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(hooks.path), "verify-evidence"]
    return installed(sh([*command, "--ref", hooks.rev, *extra], repo, env, timeout=TIMEOUT))


def test_try_repo_fails_on_a_tampered_record_in_a_subfolder_archive(
    hook_repo: HookRepo, consumer: tuple[Path, dict[str, str]]
) -> None:
    repo, env = consumer
    tamper(repo)
    ok(git(repo, env, "add", RECORD))
    proc = try_repo(hook_repo, repo, env)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output  # pre-commit's exit code for a failed hook
    assert "Skipped" not in output and "Failed" in output, output
    assert "no manifest" in output, output  # defaults check the root: told, not skipped


def install(
    repo: Path,
    env: dict[str, str],
    hooks: HookRepo,
    hook_id: str,
    args: str | None = None,
    files: str | None = None,
) -> None:
    """Write ``.pre-commit-config.yaml`` for the hook (with ``args`` and ``files`` if given,
    as YAML text), stage it, and install pre-commit as the repository's git hook."""
    lines = [
        "repos:",
        f"  - repo: {json.dumps(str(hooks.path))}",
        f"    rev: {hooks.rev}",
        "    hooks:",
        f"      - id: {hook_id}",
    ]
    if args is not None:
        lines.append(f"        args: {args}")
    if files is not None:
        lines.append(f"        files: {files}")
    (repo / ".pre-commit-config.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    ok(git(repo, env, "add", ".pre-commit-config.yaml"))
    ok(sh([sys.executable, "-m", "pre_commit", "install"], repo, env))


def commit(repo: Path, env: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
    return installed(
        sh(["git", "-c", "commit.gpgsign=false", "commit", "-m", message], repo, env, TIMEOUT)
    )


@pytest.mark.parametrize("hook_id", ["verify-evidence", "verify-evidence-system"])
def test_commit_with_the_defaults_on_an_archive_at_the_root(
    hook_repo: HookRepo, tmp_path: Path, pre_commit_home: Path, hook_id: str
) -> None:
    env = environment(pre_commit_home)
    repo = tmp_path / "archive"
    ok(sh([sys.executable, "-m", "verifier", "init", str(repo)], tmp_path, env))
    ok(git(repo, env, "init", "-q", "-b", "main"))
    install(repo, env, hook_repo, hook_id)
    ok(git(repo, env, "add", "-A"))
    accepted = commit(repo, env, "the archive")  # the untouched archive
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "Passed" in accepted.stdout + accepted.stderr
    tamper(repo, "evidence/example-run/run.json")
    ok(git(repo, env, "add", "-A"))
    refused = commit(repo, env, "tampered")
    assert refused.returncode != 0, refused.stdout + refused.stderr
    assert "manifest.mismatch" in refused.stdout + refused.stderr
    assert git(repo, env, "rev-list", "--count", "HEAD").stdout.strip() == "1"


@pytest.mark.parametrize("hook_id", ["verify-evidence", "verify-evidence-system"])
def test_commit_with_the_documented_subfolder_config(
    hook_repo: HookRepo, consumer: tuple[Path, dict[str, str]], hook_id: str
) -> None:
    """The README's configuration for a subfolder archive, installed as a git hook."""
    repo, env = consumer
    install(repo, env, hook_repo, hook_id, f"[--format, text, {ARCHIVE}]", f"^{ARCHIVE}/")
    tamper(repo)
    ok(git(repo, env, "add", RECORD))
    refused = commit(repo, env, "tampered")
    assert refused.returncode != 0, refused.stdout + refused.stderr
    assert "manifest.mismatch" in refused.stdout + refused.stderr
    assert git(repo, env, "rev-list", "--count", "HEAD").stdout.strip() == "1"  # not committed

    # the untouched record, and a legitimate change to the archive (a new file, listed)
    ok(git(repo, env, "checkout", "HEAD", "--", RECORD))
    (repo / ARCHIVE / "evidence" / "notes.txt").write_text("a note\n", encoding="utf-8")
    ok(sh([sys.executable, "-m", "verifier", "manifest", ARCHIVE, "--write"], repo, env))
    ok(git(repo, env, "add", "-A"))
    accepted = commit(repo, env, "the hook config")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "Passed" in accepted.stdout or "Passed" in accepted.stderr
