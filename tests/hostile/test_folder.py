"""Hostile folder sources (issue 11, items 5 and 9) and the manifest of any source.

Item 5: the manifest of a folder must be a regular file inside the root, reached through real
folders, opened without following a link or waiting on a FIFO, read with a size limit; anything
else is a ``manifest.refused`` finding (exit 1). A manifest outside the root (``--manifest``
naming the caller's own file) that is not a regular file is exit 2: the command cannot run.
Every other file a folder source opens (records, schemas, the spec) is opened the same way, so
a FIFO among them never hangs the run.

Item 9: a folder in scope that cannot be listed (too deep for a path, or unreadable) is a
``manifest.unreadable-folder`` finding, never silently skipped.
"""

from __future__ import annotations

import errno
import hashlib
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.hostile.harness import assert_safe, run_cli

MANIFEST = "manifest.sha256"


def _check(root: Path, *extra: str, rc: int = 1, watch: list[Path] | None = None) -> list[str]:
    run = run_cli(["check", str(root), "--format", "json", *extra], watch=watch or [root])
    assert_safe(run, rc=rc)
    return sorted(run.codes()) if rc in (0, 1) else [run.stderr]


def _replace_manifest(root: Path) -> bytes:
    data = (root / MANIFEST).read_bytes()
    (root / MANIFEST).unlink()
    return data


def test_a_fifo_manifest_is_refused_without_waiting(archive: Path) -> None:
    _replace_manifest(archive)
    os.mkfifo(archive / MANIFEST)
    run = run_cli(["check", str(archive), "--format", "json"], watch=[archive], timeout=30)
    assert_safe(run, rc=1, codes=["manifest.refused"])
    (finding,) = run.findings("manifest.refused")
    assert finding["path"] == MANIFEST
    assert "special file" in finding["message"]


def test_a_manifest_linked_to_dev_zero_is_refused_in_bounded_memory(archive: Path) -> None:
    _replace_manifest(archive)
    (archive / MANIFEST).symlink_to("/dev/zero")
    run = run_cli(["check", str(archive), "--format", "json"], watch=[archive], timeout=30)
    assert_safe(run, rc=1, codes=["manifest.refused"], max_rss_mib=200)
    assert run.findings("manifest.refused")[0]["path"] == MANIFEST


def test_a_manifest_linked_outside_the_root_is_refused(archive: Path, tmp_path: Path) -> None:
    """Even a link to a perfectly good manifest: its bytes are not the archive's."""
    outside = tmp_path / "elsewhere.sha256"
    outside.write_bytes(_replace_manifest(archive))
    (archive / MANIFEST).symlink_to(outside)
    run = run_cli(["check", str(archive), "--format", "json"], watch=[archive, outside])
    assert_safe(run, rc=1, codes=["manifest.refused"])
    assert "symbolic link" in run.findings("manifest.refused")[0]["message"]


def test_a_manifest_through_a_linked_folder_is_refused(archive: Path, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / MANIFEST).write_bytes((archive / MANIFEST).read_bytes())
    (archive / "meta").symlink_to(real, target_is_directory=True)
    manifest = archive / "meta" / MANIFEST
    run = run_cli(
        ["check", str(archive), "--manifest", str(manifest), "--format", "json"],
        watch=[archive, real],
    )
    assert_safe(run, rc=1, codes=["manifest.refused"])
    assert run.findings("manifest.refused")[0]["path"] == f"meta/{MANIFEST}"


def test_a_device_manifest_is_refused(archive: Path) -> None:
    _replace_manifest(archive)
    try:
        os.mknod(archive / MANIFEST, 0o600 | 0o020000, os.makedev(1, 5))  # /dev/zero's numbers
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    run = run_cli(["check", str(archive), "--format", "json"], watch=[archive], timeout=30)
    assert_safe(run, rc=1, codes=["manifest.refused"], max_rss_mib=200)


def test_a_manifest_over_the_size_limit_is_refused(archive: Path) -> None:
    data = _replace_manifest(archive)
    (archive / MANIFEST).write_bytes(data + b"\n" * 4096)
    run = run_cli(
        ["check", str(archive), "--max-bytes", "4KiB", "--format", "json"], watch=[archive]
    )
    assert_safe(run, rc=1, codes=["manifest.refused"])
    assert "over the limit" in run.findings("manifest.refused")[0]["message"]


def test_a_caller_manifest_outside_the_root_that_is_a_fifo_is_exit_2(
    archive: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "outside.sha256"
    os.mkfifo(fifo)
    run = run_cli(
        ["check", str(archive), "--manifest", str(fifo), "--format", "json"],
        watch=[archive],
        timeout=30,
    )
    assert_safe(run, rc=2)
    assert "not a regular file" in run.stderr


def test_a_caller_manifest_outside_the_root_may_be_a_link(archive: Path, tmp_path: Path) -> None:
    """The caller's own file, outside the archive, is the caller's: a link to it is followed."""
    real = tmp_path / "real.sha256"
    real.write_bytes(_replace_manifest(archive))
    link = tmp_path / "link.sha256"
    link.symlink_to(real)
    run = run_cli(["check", str(archive), "--manifest", str(link), "--format", "json"])
    assert_safe(run, rc=0)


def test_fifos_among_the_files_never_hang(archive: Path) -> None:
    """A listed FIFO (a record), an unlisted FIFO in scope, and a FIFO in schemas/."""
    record = archive / "evidence" / "study.json"
    data = record.read_bytes()
    record.unlink()
    os.mkfifo(record)
    os.mkfifo(archive / "evidence" / "extra.json")
    os.mkfifo(archive / "schemas" / "fifo.schema.json")
    run = run_cli(["check", str(archive), "--format", "json"], watch=[archive], timeout=60)
    assert_safe(run, rc=1, codes=["manifest.not-regular", "manifest.unlisted"])
    assert hashlib.sha256(data).hexdigest()  # the record was a real one


def _zip_with_linked_manifest(archive: Path, dest: Path) -> Path:
    with zipfile.ZipFile(dest, "w") as zf:
        for path in sorted(archive.rglob("*")):
            if path.is_file() and path.name != MANIFEST:
                zf.write(path, path.relative_to(archive).as_posix())
        info = zipfile.ZipInfo(MANIFEST)
        info.external_attr = (0o120777 << 16) | 0x20  # a symbolic link
        info.create_system = 3
        zf.writestr(info, "/dev/zero")
    return dest


def test_a_zip_whose_manifest_is_a_link_is_refused(archive: Path, tmp_path: Path) -> None:
    dest = _zip_with_linked_manifest(archive, tmp_path / "a.zip")
    run = run_cli(["check", str(dest), "--format", "json"], watch=[tmp_path])
    assert_safe(run, rc=1, codes=["manifest.refused"])


def test_a_tar_whose_manifest_is_a_link_is_refused(archive: Path, tmp_path: Path) -> None:
    dest = tmp_path / "a.tar"
    with tarfile.open(dest, "w") as tf:
        for path in sorted(archive.rglob("*")):
            if path.is_file() and path.name != MANIFEST:
                tf.add(path, path.relative_to(archive).as_posix())
        info = tarfile.TarInfo(MANIFEST)
        info.type = tarfile.SYMTYPE
        info.linkname = "/dev/zero"
        tf.addfile(info)
    run = run_cli(["check", str(dest), "--format", "json"], watch=[tmp_path])
    assert_safe(run, rc=1, codes=["manifest.refused"])


# -- item 9: folders in scope that cannot be listed ----------------------------------------


def _deep(root: Path, name: str = "x" * 250, depth: int = 18) -> str:
    """Make a chain of folders deeper than PATH_MAX under root (with relative, fd-based calls)
    and a file at the bottom; returns the deepest folder's path relative to root."""
    fd = os.open(root, os.O_RDONLY)
    parts: list[str] = []
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=fd)
            parts.append(name)
            child = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = child
        leaf = os.open("unlisted.json", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(leaf, b"{}")
        os.close(leaf)
    finally:
        os.close(fd)
    return "/".join(parts)


def test_an_unlisted_file_deeper_than_path_max_is_a_finding(archive: Path) -> None:
    deep = _deep(archive / "evidence")
    assert len(str(archive / "evidence" / deep)) > 4096
    run = run_cli(["check", str(archive), "--format", "json"])
    assert_safe(run, rc=1, codes=["manifest.unreadable-folder"])
    paths = [f["path"] for f in run.findings("manifest.unreadable-folder")]
    assert len(paths) == 1 and paths[0].startswith("evidence/xxx"), paths


def test_an_unreadable_folder_in_scope_is_a_finding(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tests run as root here, where chmod 000 stops nothing: the folder's listing fails by
    injection at the one place the walk lists folders (os.scandir in the folder source)."""
    from verifier import verify
    from verifier.pipeline import Options

    (archive / "evidence" / "locked").mkdir()
    (archive / "evidence" / "locked" / "secret.json").write_bytes(b"{}")
    real_scandir = os.scandir

    def scandir(path: str) -> object:
        if os.fspath(path).endswith(os.sep + "locked"):
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)  # the folder source's os.scandir
    report = verify(archive, Options(workers=1))
    found = [(f.code, f.path) for f in report.findings]
    assert found == [("manifest.unreadable-folder", "evidence/locked")], found
    assert "Permission denied" in report.findings[0].message
    assert not report.ok


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 folder; see the test above")
def test_an_unreadable_folder_is_a_finding_end_to_end(archive: Path) -> None:
    locked = archive / "evidence" / "locked"
    locked.mkdir()
    (locked / "secret.json").write_bytes(b"{}")
    locked.chmod(0)
    try:
        run = run_cli(["check", str(archive), "--format", "json"])
        assert_safe(run, rc=1, codes=["manifest.unreadable-folder"])
    finally:
        locked.chmod(0o755)


def test_a_manifest_spelt_through_link_dot_dot_is_the_root_one(
    archive: Path, tmp_path: Path
) -> None:
    """``--manifest ROOT/link/../manifest.sha256`` names the root's manifest; the system would
    open the one beside the link's target. What is read is what was checked: the root's."""
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "inner").mkdir(parents=True)
    (elsewhere / MANIFEST).write_bytes(b"0" * 64 + b"  evidence/forged.json\n")
    (archive / "link").symlink_to(elsewhere / "inner", target_is_directory=True)
    spelt = f"{archive}/link/../{MANIFEST}"
    run = run_cli(
        ["check", str(archive), "--manifest", spelt, "--scope", "evidence", "--format", "json"],
        watch=[archive, elsewhere],
    )
    assert_safe(run, rc=0)
    assert run.report()["manifest"] == MANIFEST
