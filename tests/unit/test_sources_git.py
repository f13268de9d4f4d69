"""Git sources: a commit is read from git's objects (no checkout, nothing written), in both
object formats, and every file's bytes are confirmed against the blob id git recorded."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest

from tests.archives import commit_all, git, git_repo, need_git, snapshot
from tests.conftest import write_archive
from verifier import verify
from verifier.pipeline import UsageError, run
from verifier.sources.git import split_location


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_a_commit_is_verified_and_each_blob_confirmed(archive: Path, object_format: str) -> None:
    git_repo(archive, object_format)
    result = run(f"{archive}@HEAD")
    assert result.report.findings == []
    commit = git(archive, "rev-parse", "HEAD").strip()
    assert result.source["commit"] == commit
    assert result.source["objectFormat"] == object_format
    assert len(commit) == (40 if object_format == "sha1" else 64)
    listed = [f for f in result.report.files if f.listed]
    assert result.source["blobsConfirmed"] >= len(listed)
    for entry in listed:
        blob = git(archive, "rev-parse", f"HEAD:{entry.path}").strip()
        assert result.details[entry.path] == {"gitBlob": blob}
        data = (archive / entry.path).read_bytes()
        header = b"blob %d\0" % len(data)
        assert hashlib.new(object_format, header + data).hexdigest() == blob


def test_the_commit_is_read_without_a_checkout_and_nothing_is_written(archive: Path) -> None:
    git_repo(archive)
    for child in archive.iterdir():  # an empty working tree: only git's objects remain
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    before = snapshot(archive)
    assert verify(f"{archive}@HEAD").ok
    assert snapshot(archive) == before


def test_a_damaged_object_store_is_a_blob_mismatch(tmp_path: Path) -> None:
    root = git_repo(write_archive(tmp_path / "r", {"data/a.txt": b"alpha\n"}))
    blob = git(root, "rev-parse", "HEAD:data/a.txt").strip()
    loose = root / ".git" / "objects" / blob[:2] / blob[2:]
    os.chmod(loose, 0o644)
    loose.write_bytes(zlib.compress(b"blob 6\0alphA\n"))  # same size, other bytes
    report = verify(f"{root}@HEAD")
    found = sorted((f.code, f.path) for f in report.findings)
    assert found == [
        ("manifest.git-blob-mismatch", "data/a.txt"),
        ("manifest.mismatch", "data/a.txt"),
    ]


def test_symlinks_in_a_commit_are_links(tmp_path: Path) -> None:
    root = write_archive(tmp_path / "r", {"data/a.txt": b"alpha\n"})
    (root / "data" / "link").symlink_to("/etc/passwd")
    git_repo(root)
    report = verify(f"{root}@HEAD")
    assert sorted((f.code, f.path) for f in report.findings) == [("manifest.unlisted", "data/link")]


def test_older_revisions_and_locations(tmp_path: Path) -> None:
    root = git_repo(write_archive(tmp_path / "r@x", {"data/a.txt": b"one\n"}))
    first = git(root, "rev-parse", "HEAD").strip()
    write_archive(root, {"data/a.txt": b"two\n"})
    commit_all(root, "second")
    assert verify(f"{root}@HEAD").ok
    assert verify(f"{root}@{first}").ok
    assert verify(f"{root}@HEAD~1").ok
    assert split_location(f"{root}@HEAD~1") == (str(root), "HEAD~1")
    assert split_location(str(tmp_path / "nothing@HEAD")) is None
    with pytest.raises(UsageError):
        verify(f"{root}@{'0' * 40}")


def test_a_folder_that_is_not_a_repository_cannot_run(tmp_path: Path) -> None:
    root = write_archive(tmp_path / "plain", {"data/a.txt": b"a"})
    need_git()
    with pytest.raises(UsageError, match="plain is not a git repository"):
        verify(f"{root}@HEAD")


@pytest.mark.parametrize(
    ("message", "when"),
    [
        ("one line", "2026-01-01T23:30:00+01:00"),
        ("a subject\nover two lines\n\nand a body\n", "2026-03-01T00:30:00-05:00"),
        ("  spaced  \n\n\nbody", "2025-12-31T23:59:59+14:00"),
        ("ünïcode ✓", "1970-01-01T00:00:00+00:00"),
    ],
)
def test_a_commit_summary_is_what_git_log_says(tmp_path: Path, message: str, when: str) -> None:
    """The stale-line hint's date and subject are parsed from the commit object (no git log);
    git log's own %cs and %s are the oracle."""
    from verifier.sources.gitrun import commit_summary

    root = git_repo(write_archive(tmp_path / "r", {"data/a.txt": b"one\n"}))
    (root / "data" / "a.txt").write_bytes(b"two\n")
    git(root, "add", "-A")
    env_date = {"GIT_COMMITTER_DATE": when}
    subprocess.run(
        [
            *("git", "-c", "user.name=T", "-c", "user.email=t@example.invalid", "-C", str(root)),
            *("commit", "-q", "--cleanup=verbatim", "-m", message),
        ],
        check=True,
        env={**os.environ, **env_date, "GIT_CONFIG_NOSYSTEM": "1"},
    )
    body = git(root, "cat-file", "commit", "HEAD").encode("utf-8")
    expected = git(root, "log", "-1", "--no-show-signature", "--format=%cs%x00%s", "HEAD")
    date, _, subject = expected.rstrip("\n").partition("\0")
    assert commit_summary(body) == (date, subject)
