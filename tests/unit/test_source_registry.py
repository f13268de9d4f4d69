"""The source kinds' registry (verifier.sources.registry): the order locations are probed in,
the kind each location is recognised as, and every member opening a small input."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.archives import git_repo, tar_tree, zip_tree
from verifier.sources import LAYOUTS, SOURCES, Source, SourceError, open_source
from verifier.sources.interface import By
from verifier.sources.registry import looks, reads
from verifier.sources.safety import Limits


def test_the_probing_order_is_fixed() -> None:
    """A revision given is git's alone; a folder is a directory; a file is a zip by its name,
    then (readable) a tarball by its name or first bytes, then a zip by its marks anywhere;
    neither is REPO@REV."""
    assert [(by, SOURCES.asked(by)) for by in By] == [
        (By.REV, ["git"]),
        (By.FOLDER, ["directory"]),
        (By.NAME, ["zip"]),
        (By.HEAD, ["tar"]),
        (By.BYTES, ["zip"]),
        (By.SPELLING, ["git"]),
    ]
    assert list(SOURCES) == ["directory", "zip", "tar", "git"]
    assert list(LAYOUTS) == ["bag"]


def test_the_texts_are_the_kinds_own_words_in_order() -> None:
    assert looks() == (
        "a folder, a .zip, a .tar/.tar.gz/.tgz/.tar.xz, REPO@REV (a git commit, read from "
        "git's objects) or a BagIt bag in any of these"
    )
    assert reads() == (
        "a folder, a .zip file, a tarball (.tar, .tar.gz/.tgz, .tar.xz, .tar.bz2) or REPO@REV "
        "of a git repository"
    )


def kind_of(location: str | Path, rev: str | None = None) -> str:
    """The kind ``location`` opens as: ``bag/<container>`` for a bag."""
    with open_source(location, rev) as source:
        return kind_name(source)


def kind_name(source: Source) -> str:
    inner = getattr(source, "container", None)
    return f"{source.name}/{inner.name}" if isinstance(inner, Source) else source.name


def bag(root: Path) -> Path:
    (root / "data").mkdir(parents=True)
    (root / "data" / "a.txt").write_bytes(b"a\n")
    (root / "bagit.txt").write_bytes(b"BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n")
    (root / "manifest-sha256.txt").write_bytes(
        b"87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7  data/a.txt\n"
    )
    return root


def tar_with_zip_tail(root: Path, dest: Path) -> Path:
    """A plain tarball (no tar suffix) whose tail holds a zip's end-record signature."""
    with tarfile.open(dest, "w") as archive:
        data = b"PK\x05\x06" + bytes(18)
        info = tarfile.TarInfo("tail.bin")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
        for path in sorted(root.iterdir()):
            archive.add(path, path.name)
    return dest


def test_each_location_is_recognised_as_its_kind(tmp_path: Path, archive: Path) -> None:
    cases: list[tuple[str, Callable[[], str | Path], str]] = [
        ("a folder", lambda: archive, "directory"),
        ("a folder that is a bag", lambda: bag(tmp_path / "bag"), "bag/directory"),
        ("a zip", lambda: zip_tree(archive, tmp_path / "a.zip"), "zip"),
        ("a zip named otherwise", lambda: zip_tree(archive, tmp_path / "a.bin"), "zip"),
        ("a zip named in capitals", lambda: zip_tree(archive, tmp_path / "A.ZIP"), "zip"),
        ("a .tar.gz", lambda: tar_tree(archive, tmp_path / "a.tar.gz"), "tar"),
        ("a .tgz", lambda: tar_tree(archive, tmp_path / "a.tgz"), "tar"),
        ("a .tar", lambda: tar_tree(archive, tmp_path / "a.tar", "w"), "tar"),
        ("a gzip tarball named otherwise", lambda: tar_tree(archive, tmp_path / "t.bin"), "tar"),
        ("a plain tarball named otherwise", lambda: tar_tree(archive, tmp_path / "p", "w"), "tar"),
        (
            "a tarball with a zip's end record in its tail",
            lambda: tar_with_zip_tail(archive, tmp_path / "poly"),
            "tar",
        ),
        (
            "a zipped bag",
            lambda: zip_tree(bag(tmp_path / "zbag"), tmp_path / "bag.zip"),
            "bag/zip",
        ),
    ]
    for what, make, expected in cases:
        assert kind_of(make()) == expected, what


def test_a_git_work_tree_and_a_commit(tmp_path: Path, archive: Path) -> None:
    repo = git_repo(archive)
    assert kind_of(repo) == "directory"  # a work tree is a folder; only REPO@REV reads git
    assert kind_of(f"{repo}@HEAD") == "git"
    assert kind_of(repo, "HEAD") == "git"
    # a location that exists is what it is, even when its name has an @ in it
    at = tmp_path / f"{repo.name}@HEAD"
    shutil.copytree(archive, at, ignore=shutil.ignore_patterns(".git"))
    assert kind_of(at) == "directory"
    # --rev is git's whatever the location is: a zip with a revision is no zip
    with pytest.raises(SourceError):
        open_source(zip_tree(archive, tmp_path / "r.zip"), "HEAD")


def test_a_file_named_zip_is_read_as_a_zip_whatever_it_holds(tmp_path: Path, archive: Path) -> None:
    tarball = tar_tree(archive, tmp_path / "t.zip")
    with pytest.raises(SourceError, match="zip"):
        open_source(tarball)


def test_what_no_kind_recognises_says_what_is_read(tmp_path: Path) -> None:
    text = tmp_path / "thing"
    text.write_bytes(b"just some text\n")
    with pytest.raises(SourceError) as caught:
        open_source(text)
    assert str(caught.value) == f"{text} is not an archive this tool reads: give {reads()}"
    with pytest.raises(SourceError, match=r"nothing\.zip does not exist$"):
        open_source(tmp_path / "nothing.zip")
    with pytest.raises(SourceError, match=r"nor is the part before its @ a folder"):
        open_source(tmp_path / "nothing@HEAD")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs file permissions")
def test_an_unreadable_file_says_so(tmp_path: Path) -> None:
    path = tmp_path / "secret.tar.gz"
    path.write_bytes(gzip.compress(b""))
    path.chmod(0)
    try:
        with pytest.raises(SourceError, match=r"^cannot read .*secret\.tar\.gz: "):
            open_source(path)
    finally:
        path.chmod(0o600)


def test_every_member_opens_a_small_input(tmp_path: Path, archive: Path) -> None:
    """Each registered kind's probe answers for its own kind of location, and the layout
    reads over a container."""
    repo = git_repo(archive)
    inputs = {
        "directory": (str(archive), None, By.FOLDER),
        "zip": (str(zip_tree(archive, tmp_path / "a.zip")), None, By.NAME),
        "tar": (str(tar_tree(archive, tmp_path / "a.tgz")), None, By.HEAD),
        "git": (str(repo), "HEAD", By.REV),
    }
    assert set(inputs) == set(SOURCES)
    for name in SOURCES:
        location, rev, by = inputs[name]
        source = SOURCES[name](location, rev, by, Limits())
        assert source is not None, name
        with source:
            assert source.name == name
            assert [n for n, _ in source.walk("")], name
    for name in LAYOUTS:
        layout = LAYOUTS[name]
        with layout(open_source(bag(tmp_path / "b"), bag=False)) as source:
            assert isinstance(source, Source)
            assert source.name == name
