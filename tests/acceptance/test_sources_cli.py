"""The real command on every kind of source: same report, same exit codes, one line on
stderr when it cannot run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.archives import git_repo, snapshot, tar_tree, zip_tree
from tests.conftest import require_module


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "verifier", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def test_check_gives_the_same_json_from_every_kind_of_source(archive: Path, tmp_path: Path) -> None:
    folder = cli("check", str(archive), "--format", "json")
    assert folder.returncode == 0, folder.stdout
    repo = tmp_path / "repo"
    shutil.copytree(archive, repo)
    git_repo(repo)
    # The report is the same from every kind of source, except what names the source
    # (report v2, issue 16: its kind, location and digest or commit).
    expected = json.loads(folder.stdout)
    assert expected.pop("source")["kind"] == "directory"
    for args, kind in (
        ([str(zip_tree(archive, tmp_path / "a.zip"))], "zip"),
        ([str(tar_tree(archive, tmp_path / "a.tar.xz", "w:xz"))], "tar"),
        ([f"{repo}@HEAD"], "git"),
        (["--git", str(repo), "--rev", "main"], "git"),
        (["--git", str(repo)], "git"),
        ([str(repo), "--rev", "HEAD"], "git"),
    ):
        proc = cli("check", *args, "--format", "json")
        assert (proc.returncode, proc.stderr) == (0, ""), args
        got = json.loads(proc.stdout)
        assert got.pop("source")["kind"] == kind, args
        assert got == expected, args


def test_check_of_a_bag(archive: Path) -> None:
    bagit: Any = require_module("bagit")
    bagit.make_bag(str(archive), checksums=["sha256"])
    proc = cli("check", str(archive), "--format", "text")
    assert proc.returncode == 0, proc.stdout
    assert "No findings." in proc.stdout
    (archive / "data" / "evidence" / "README.md").write_text("changed\n")
    proc = cli("check", str(archive), "--format", "text")
    assert proc.returncode == 1
    # on the payload file, placed at its line of the payload manifest (issue 16)
    assert "data/evidence/README.md (manifest-sha256.txt:" in proc.stdout
    assert "manifest.mismatch" in proc.stdout


def test_check_of_a_hostile_zip_exits_1_and_writes_nothing(tmp_path: Path) -> None:
    import zipfile

    path = tmp_path / "hostile.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("manifest.sha256", b"")
        archive.writestr("../../escaped.txt", b"x")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    before = snapshot(tmp_path)
    proc = cli("check", str(path), "--format", "text", cwd=cwd)
    assert proc.returncode == 1
    assert "../../escaped.txt: source.unsafe-member: Refused" in proc.stdout
    assert snapshot(tmp_path) == before
    assert not (tmp_path.parent / "escaped.txt").exists()


def test_limits_are_options(archive: Path, tmp_path: Path) -> None:
    path = zip_tree(archive, tmp_path / "a.zip")
    proc = cli("check", str(path), "--max-bytes", "10K", "--format", "text")
    assert proc.returncode == 1
    assert "source.too-large" in proc.stdout
    assert cli("check", str(path), "--max-bytes", "1G", "--max-ratio", "50").returncode == 0


@pytest.mark.parametrize(
    "args",
    [
        ("check", "nothing.zip"),
        ("check", "--max-bytes", "lots"),
        ("check", "--max-ratio", "0.5"),
        ("check", "REPO", "--git", "REPO"),
        ("check", "REPO@no-such-rev"),
        ("check", "--git", "REPO", "--rev", "no-such-rev"),
        ("check", "REPO@HEAD", "--base", "../up"),
        ("check", "notes.txt"),
    ],
)
def test_sources_that_cannot_be_read_exit_2_with_one_line(
    args: tuple[str, ...], archive: Path, tmp_path: Path
) -> None:
    git_repo(archive)
    (tmp_path / "notes.txt").write_text("not an archive\n")
    argv = [a.replace("REPO", str(archive)) for a in args]
    proc = cli(*argv, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1
    assert proc.stderr.startswith("verify-evidence: error: ")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("check", "nothing.zip"), "nothing.zip does not exist"),
        (("check", "nothing"), "nothing does not exist"),
        (("check", "nothing.tar.gz"), "nothing.tar.gz does not exist"),
        (("check", "nothing@HEAD"), "nothing@HEAD does not exist, nor is the part before its @"),
        (("check", "--git", "nothing"), "nothing does not exist"),
        (("check", "dangling"), "dangling is a link to a file or folder that does not exist"),
        (("check", "pipe"), "pipe is neither a folder nor a file: give a folder, a .zip file"),
        (("check", "notes.txt"), "notes.txt is not an archive this tool reads: give a folder"),
        (("check", "--git", "notes.txt"), "notes.txt is a file, not a git repository"),
        (("check", "--git", "plain"), "plain is not a git repository"),
        (("check", "plain@HEAD"), "plain is not a git repository"),
        (("check", "--git", "REPO/evidence"), "REPO/evidence is not a git repository"),
        (("check", "--git", "fresh"), "the git repository fresh has no commits yet"),
        (("check", "REPO@no-such-rev"), "no-such-rev is not a commit of the git repository"),
        (("check", "junk.zip"), "junk.zip is not a readable zip file"),
        (("check", "junk.tgz"), "junk.tgz is not a readable tarball"),
    ],
)
def test_a_source_that_cannot_be_opened_says_why(
    args: tuple[str, ...], says: str, archive: Path, tmp_path: Path
) -> None:
    """Each way a location cannot be opened has its own message (issue 36: a missing zip was
    "not a directory", a folder that is no repository "HEAD is not a commit")."""
    import os

    git_repo(archive)
    (tmp_path / "notes.txt").write_text("not an archive\n")
    (tmp_path / "plain").mkdir()
    (tmp_path / "fresh").mkdir()
    subprocess.run(["git", "init", "-q", str(tmp_path / "fresh")], check=True)
    (tmp_path / "dangling").symlink_to(tmp_path / "gone")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "junk.zip").write_bytes(b"\x00junk" * 50)
    (tmp_path / "junk.tgz").write_bytes(b"\x00junk" * 50)
    argv = [a.replace("REPO", str(archive)) for a in args]
    proc = cli(*argv, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1
    assert proc.stderr.startswith("verify-evidence: error: ")
    assert says.replace("REPO", str(archive)) in proc.stderr, proc.stderr


def test_table_of_a_bag_reads_its_catalogue_inside_data(archive: Path) -> None:
    """In a bag the records, the spec and the catalogue sit under data/ and name each other
    relative to it: the table finds the catalogue there and verifies every cell."""
    bagit: Any = require_module("bagit")
    folder = cli("table", str(archive), "--format", "json")
    bagit.make_bag(str(archive), checksums=["sha256"])
    proc = cli("table", str(archive), "--format", "json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows, before = json.loads(proc.stdout)["cases"], json.loads(folder.stdout)["cases"]
    assert [r["id"] for r in rows] == [r["id"] for r in before]
    cells = [c for r in rows for c in r["counts"]]
    assert cells and all(c["verified"] and c["source"]["path"].startswith("data/") for c in cells)
    assert all(c["source"]["sha256"] for c in cells)
    assert [c["value"] for c in cells] == [c["value"] for r in before for c in r["counts"]]
