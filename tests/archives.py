"""Helpers for the source tests: pack a folder as a zip, a tarball, a git commit or a bag, in
temporary folders only, and take a snapshot of a tree to prove nothing was written."""

from __future__ import annotations

import hashlib
import os
import subprocess
import tarfile
import zipfile
from pathlib import Path

from tests.conftest import missing_oracle, require_tool
from verifier.sources.interface import Source

GIT_ENV_DROP = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY")


def files_of(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts)


def zip_tree(root: Path, dest: Path, prefix: str = "") -> Path:
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in files_of(root):
            archive.write(path, prefix + path.relative_to(root).as_posix())
    return dest


def tar_tree(root: Path, dest: Path, mode: str = "w:gz", prefix: str = "") -> Path:
    with tarfile.open(dest, mode) as archive:  # type: ignore[call-overload]
        for path in files_of(root):
            archive.add(path, prefix + path.relative_to(root).as_posix(), recursive=False)
    return dest


def need_git() -> None:
    require_tool("git", "git is not installed")


def git(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in GIT_ENV_DROP}
    env.update(
        GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
        GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
        GIT_CONFIG_NOSYSTEM="1",
    )
    proc = subprocess.run(
        [
            "git",
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "core.autocrlf=false",
            "-C",
            str(repo),
            *args,
        ],
        capture_output=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise AssertionError(proc.stderr.decode(errors="replace"))
    return proc.stdout.decode("utf-8", "surrogateescape")


def git_repo(root: Path, object_format: str = "sha1") -> Path:
    """Make ``root`` (a folder of files) a repository with one commit of everything."""
    need_git()
    try:
        git(root, "init", "-q", "-b", "main", f"--object-format={object_format}")
    except AssertionError as exc:
        missing_oracle(f"git cannot make a {object_format} repository: {exc}")
    commit_all(root, "the archive")
    return root


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Every file under ``root`` (including .git) with its digest and mtime."""
    return {
        str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def drain(source: Source) -> None:
    """Read every member of ``source`` to its end and close it; damage a member's read reports
    as an OSError is expected (a mutation test asks only that nothing else escapes)."""
    try:
        names = [n for n, _ in source.walk("")]
        for _, stream in source.read_many(names):
            if isinstance(stream, OSError):
                continue
            try:
                while stream.read(4096):
                    pass
            except OSError:
                pass
            finally:
                stream.close()
    finally:
        source.close()
