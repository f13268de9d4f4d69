"""Sources: the same archive verified from a folder, a zip, tarballs, a git commit and a bag
gives the same report; hostile archives are refused by the one safety policy, with findings,
and nothing is written anywhere."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import stat
import tarfile
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.archives import git_repo, snapshot, tar_tree, zip_tree
from tests.conftest import require_module, write_archive
from verifier import verify
from verifier.manifest import format_manifest
from verifier.pipeline import Options, UsageError, run
from verifier.report import Report
from verifier.sources import Kind, Limits, open_source
from verifier.sources.safety import EntryType, IndexBuilder, collision_key, member_name
from verifier.views.check import CHECK as FORMATS


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def codes(report: Report) -> list[tuple[str, str]]:
    return sorted((f.code, f.path) for f in report.findings)


def manifest_for(files: dict[str, bytes]) -> bytes:
    return format_manifest((name, sha(data)) for name, data in files.items())


# --- the same archive from every source -----------------------------------------------------


def test_the_bundled_archive_gives_the_same_report_from_every_source(
    archive: Path, tmp_path: Path
) -> None:
    folder = verify(archive)
    assert folder.ok, codes(folder)
    expected = FORMATS["json"](folder)
    repo = tmp_path / "repo"
    shutil.copytree(archive, repo)
    git_repo(repo)
    locations = [
        zip_tree(archive, tmp_path / "a.zip"),
        zip_tree(archive, tmp_path / "release.zip", prefix="archive-1.0/"),
        tar_tree(archive, tmp_path / "a.tar", "w"),
        tar_tree(archive, tmp_path / "a.tar.gz", "w:gz"),
        tar_tree(archive, tmp_path / "a.tgz", "w:gz", prefix="archive-1.0/"),
        tar_tree(archive, tmp_path / "a.tar.xz", "w:xz"),
        tar_tree(archive, tmp_path / "a.tar.bz2", "w:bz2"),
        f"{repo}@HEAD",
    ]
    for location in locations:
        report = verify(location)
        assert report.findings == [], (location, codes(report))
        # the same report, but for the block naming the source (report v2, issue 16)
        got, want = json.loads(FORMATS["json"](report)), json.loads(expected)
        assert got.pop("source")["kind"] != want.pop("source")["kind"], location
        assert got == want, location


def test_a_git_revision_can_be_given_as_an_option(archive: Path) -> None:
    git_repo(archive)
    report = verify(archive, Options(rev="main"))
    assert report.ok
    assert report.manifested_files == verify(archive).manifested_files


def test_the_bundled_archive_as_a_bag_has_no_findings(archive: Path) -> None:
    bagit: Any = require_module("bagit")
    bagit.make_bag(str(archive), checksums=["sha256"])
    report = verify(archive)
    assert report.findings == []
    assert report.scope == ["data"]
    assert len(report.assertions) > 0
    assert all(a.status.value == "passed" for a in report.assertions)
    assert all(r.path.startswith("data/") for a in report.assertions for r in a.reads)


# --- the safety policy ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a/b.txt", "a/b.txt"),
        ("./a/./b.txt", "a/b.txt"),
        ("dir/", "dir"),
        ("./", ""),
        ("/etc/passwd", None),
        ("\\windows\\x", None),
        ("C:/x", None),
        ("c:x", None),
        ("../x", None),
        ("a/../../x", None),
        ("a\\..\\..\\x", None),
        ("a//b", None),
        ("a\0b", None),
        ("a\nb", None),
        ("a\x1b[0m", None),
        ("a\x7f", None),
        ("a\x85b", None),
        ("café/naïve.txt", "café/naïve.txt"),
        ("..dots", "..dots"),
    ],
)
def test_member_names(raw: str, expected: str | None) -> None:
    assert member_name(raw)[0] == expected


def test_collision_key_folds_case_and_unicode_form() -> None:
    assert collision_key("Café") == collision_key("cafe\u0301") == collision_key("CAFÉ")
    assert collision_key("a") != collision_key("b")
    assert collision_key("a\\b") == collision_key("a/b")


def zip_with(
    path: Path, members: list[tuple[str, bytes]], modes: dict[str, int] | None = None
) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicates we mean to write
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in members:
                info = zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                if modes and name in modes:
                    info.create_system = 3
                    info.external_attr = modes[name] << 16
                archive.writestr(info, data)
    return path


GOOD = {"data/a.txt": b"alpha\n", "data/b.txt": b"beta\n"}


def good_members(
    extra: dict[str, bytes] | None = None, listed: bool = False
) -> list[tuple[str, bytes]]:
    files = {**GOOD, **(extra or {})}
    return [("manifest.sha256", manifest_for(files if listed else GOOD)), *files.items()]


@pytest.fixture
def jail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory: whatever an archive says, nothing may appear here."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    return cwd


def assert_nothing_written(tmp_path: Path, before: dict[str, tuple[str, int]]) -> None:
    assert snapshot(tmp_path) == before
    assert not list((tmp_path / "cwd").iterdir())


def test_zip_slip_names_are_refused_and_nothing_is_written(tmp_path: Path, jail: Path) -> None:
    hostile = ["../evil.txt", "/abs.txt", "data/../../evil2.txt", "..\\win.txt", "C:/drive.txt"]
    path = zip_with(tmp_path / "slip.zip", good_members() + [(n, b"x") for n in hostile])
    before = snapshot(tmp_path)
    report = verify(path)
    assert codes(report) == sorted(("source.unsafe-member", n) for n in hostile)
    assert report.integrity.counts["ok"] == 2
    assert_nothing_written(tmp_path, before)


def test_links_and_devices_in_a_tarball_are_never_read(tmp_path: Path, jail: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"secret")
    path = tmp_path / "links.tar"
    manifest = manifest_for({**GOOD, "data/hard": GOOD["data/a.txt"]})
    with tarfile.open(path, "w") as archive:
        for name, data in [("manifest.sha256", manifest), *GOOD.items()]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name, kind, target in [
            ("data/link", tarfile.SYMTYPE, str(secret)),
            ("data/hard", tarfile.LNKTYPE, "data/a.txt"),
            ("data/dev", tarfile.CHRTYPE, ""),
            ("data/link/through.txt", tarfile.REGTYPE, ""),
        ]:
            info = tarfile.TarInfo(name)
            info.type = kind
            info.linkname = target
            archive.addfile(info, io.BytesIO(b"") if kind == tarfile.REGTYPE else None)
    before = snapshot(tmp_path)
    report = verify(path)
    assert codes(report) == [
        ("manifest.unlisted", "data/dev"),
        ("manifest.unlisted", "data/link"),
        ("manifest.unlisted", "data/link/through.txt"),
        ("manifest.unsafe-path", "data/hard"),
    ]
    assert len(report.findings) == 4
    messages = {f.path: f.message for f in report.findings}
    assert messages["data/link"].startswith("A link ")
    assert messages["data/dev"].startswith("A special file ")
    assert {f.path: f.status for f in report.files}["data/hard"] == "unsafe"
    assert_nothing_written(tmp_path, before)


def test_a_symlink_member_of_a_zip_is_a_link(tmp_path: Path) -> None:
    members = good_members({"data/link": b"/etc/passwd"})
    path = zip_with(tmp_path / "l.zip", members, modes={"data/link": stat.S_IFLNK | 0o777})
    with open_source(path) as source:
        assert source.kind("data/link") is Kind.LINK
    assert codes(verify(path)) == [("manifest.unlisted", "data/link")]


def test_duplicate_members_are_refused_every_copy(tmp_path: Path, jail: Path) -> None:
    members = [*good_members(), ("data/a.txt", b"another alpha\n")]
    path = zip_with(tmp_path / "dup.zip", members)
    before = snapshot(tmp_path)
    report = verify(path)
    assert codes(report) == [("source.duplicate-member", "data/a.txt")]
    assert {f.path: f.status for f in report.files}["data/a.txt"] == "unsafe"
    assert_nothing_written(tmp_path, before)


def test_a_name_that_is_a_file_and_a_folder_is_refused(tmp_path: Path) -> None:
    path = zip_with(tmp_path / "ff.zip", good_members({"data/x": b"1", "data/x/y": b"2"}))
    assert ("source.duplicate-member", "data/x") in codes(verify(path))


def test_names_that_collide_after_nfc_or_case_folding_are_refused(
    tmp_path: Path, jail: Path
) -> None:
    extra = {"data/café.txt": b"nfc", "data/cafe\u0301.txt": b"nfd", "data/README": b"1"}
    extra["data/readme"] = b"2"
    path = zip_with(tmp_path / "nfc.zip", good_members(extra))
    before = snapshot(tmp_path)
    report = verify(path)
    assert codes(report) == sorted(("source.name-collision", n) for n in extra)
    assert_nothing_written(tmp_path, before)


def test_a_zip_bomb_member_is_refused_before_it_expands(tmp_path: Path, jail: Path) -> None:
    bomb = b"\0" * (20 << 20)  # 20 MiB of zeros deflates about 1000 to 1
    path = zip_with(tmp_path / "bomb.zip", good_members({"data/bomb.bin": bomb}, listed=True))
    assert path.stat().st_size < 1 << 20
    before = snapshot(tmp_path)
    report = verify(path)
    assert codes(report) == [("source.too-large", "data/bomb.bin")]
    assert "compression ratio" in report.findings[0].message
    assert {f.path: f.status for f in report.files}["data/bomb.bin"] == "unsafe"
    assert verify(path, Options(limits=Limits(max_ratio=5000))).ok
    assert_nothing_written(tmp_path, before)


@pytest.mark.parametrize("manifest_first", [True, False])
def test_a_tarball_bomb_is_refused_as_a_whole(tmp_path: Path, manifest_first: bool) -> None:
    files = {**GOOD, "data/zeros.bin": b"\0" * (20 << 20)}
    root = write_archive(tmp_path / "src", files)
    path = tmp_path / "bomb.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        names = ["manifest.sha256", *files] if manifest_first else [*files, "manifest.sha256"]
        for name in names:
            archive.add(root / name, name)
    report = verify(path)
    assert ("source.too-large", "data/zeros.bin") in codes(report)
    assert not report.ok
    if not manifest_first:  # reading stopped before the manifest: a finding, not exit 2
        assert codes(report) == [("source.too-large", "data/zeros.bin")]
        assert report.integrity.note is not None and "not reached" in report.integrity.note


def test_a_declared_size_past_the_limit_is_refused_without_reading(tmp_path: Path) -> None:
    """A tar header may claim a terabyte: the policy refuses it from the header alone."""
    path = tmp_path / "huge.tar"
    with tarfile.open(path, "w") as archive:
        for name, data in good_members():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    raw = bytearray(path.read_bytes())
    end = raw.rfind(b"data/b.txt")  # the last header: make it claim 1 TiB, with no data
    header = tarfile.TarInfo("data/huge.bin")
    header.size = 1 << 40
    raw[end : end + 512] = header.tobuf(tarfile.GNU_FORMAT)
    path.write_bytes(bytes(raw[: end + 512]))
    report = verify(path)
    assert ("source.too-large", "data/huge.bin") in codes(report)
    assert "source.unreadable" not in {c for c, _ in codes(report)}


def test_the_total_size_limit_stops_reading_and_hints_why(tmp_path: Path) -> None:
    files = {"data/a.txt": b"a" * 600, "data/b.txt": b"b" * 600}
    path = zip_with(
        tmp_path / "two.zip", [("manifest.sha256", manifest_for(files)), *files.items()]
    )
    report = verify(path, Options(limits=Limits(max_bytes=1000)))
    assert codes(report) == [("manifest.missing", "data/b.txt"), ("source.too-large", "data/b.txt")]
    missing = next(f for f in report.findings if f.code == "manifest.missing")
    assert missing.hint is not None and "not read to the end" in missing.hint


def test_too_many_entries_are_refused(tmp_path: Path) -> None:
    builder = IndexBuilder(Limits(max_entries=2))
    assert builder.add("a", *_file())
    assert builder.add("b", *_file())
    assert not builder.add("c", *_file())
    index = builder.finish()
    assert [f.code for f in index.findings] == ["source.too-large"]
    assert not index.complete


def _file() -> tuple[EntryType, int, None]:
    return EntryType.FILE, 1, None


def test_a_truncated_tarball_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    root = write_archive(tmp_path / "src", {f"data/{i}.bin": bytes([i]) * 5000 for i in range(8)})
    path = tar_tree(root, tmp_path / "t.tar.gz")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    report = verify(path)
    assert "source.unreadable" in {c for c, _ in codes(report)}
    assert not report.ok


def test_a_damaged_zip_member_is_unreadable(tmp_path: Path) -> None:
    path = zip_with(tmp_path / "crc.zip", good_members())
    raw = bytearray(path.read_bytes())
    at = raw.find(b"data/b.txt") + len("data/b.txt")  # the first byte of b's deflated data
    raw[at] ^= 0xFF
    path.write_bytes(bytes(raw))
    report = verify(path)
    assert ("manifest.unreadable", "data/b.txt") in codes(report)


@pytest.mark.parametrize(
    ("name", "data"), [("thing", b"just some text\n"), ("thing.zip", b"PK not a zip at all")]
)
def test_what_is_not_a_source_cannot_run(tmp_path: Path, name: str, data: bytes) -> None:
    (tmp_path / name).write_bytes(data)
    with pytest.raises(UsageError):
        verify(tmp_path / name)


@pytest.mark.parametrize("name", ["thing.zip", "thing"])
def test_a_zip_cut_after_its_signature_is_a_finding(tmp_path: Path, name: str) -> None:
    """A local file header's signature says it is a zip: what follows is damage."""
    (tmp_path / name).write_bytes(b"PK\x03\x04 truncated")
    report = verify(tmp_path / name)
    assert [c for c, _ in codes(report)] == ["source.unreadable"]
    assert not report.ok


def test_a_missing_location_or_revision_cannot_run(tmp_path: Path, archive: Path) -> None:
    with pytest.raises(UsageError, match=r"nothing\.zip does not exist$"):
        verify(tmp_path / "nothing.zip")
    git_repo(archive)
    with pytest.raises(UsageError, match="not a commit"):
        verify(f"{archive}@no-such-branch")


def test_a_tarball_is_read_in_one_pass_per_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each member is handed out once; a tarball is not re-read per file."""
    root = write_archive(tmp_path / "src", {f"data/{i}.txt": b"%d\n" % i for i in range(20)})
    path = tar_tree(root, tmp_path / "many.tar.gz")
    from verifier.sources.tar import TarSource

    passes = 0
    original = TarSource._reader

    def counting(self: TarSource, charge):  # type: ignore[no-untyped-def]
        nonlocal passes
        passes += 1
        return original(self, charge)

    monkeypatch.setattr(TarSource, "_reader", counting)
    assert verify(path).ok
    assert passes == 3  # the headers, the manifest, the files


def test_source_identity_names_the_archive_digest(tmp_path: Path, archive: Path) -> None:
    path = zip_tree(archive, tmp_path / "a.zip")
    result = run(path)
    assert result.source["kind"] == "zip"
    assert result.source["sha256"] == sha(path.read_bytes())
    assert result.source["size"] == path.stat().st_size
    tgz = tar_tree(archive, tmp_path / "a.tgz", prefix="top/")
    identity = run(tgz).source
    assert (identity["kind"], identity["compression"], identity["rootFolder"]) == (
        "tar",
        "gzip",
        "top",
    )


class _Reads:
    """``os.read`` for :func:`verifier.sources.directory.read_regular`, counted, each call
    given at most ``cap`` bytes (a short read)."""

    def __init__(self, cap: int | None = None) -> None:
        import os

        self.calls = 0
        self.cap = cap
        self.real = os.read

    def __call__(self, fd: int, size: int) -> bytes:
        self.calls += 1
        return self.real(fd, size if self.cap is None else min(size, self.cap))


@pytest.mark.parametrize(
    ("cap", "shrink", "calls"),
    [
        (None, 0, 1),  # the size it had: one read (the byte asked beyond it says the end)
        (4096, 0, 4),  # short reads: read on to the end (10,000 bytes, then an empty read)
        (None, 10, 3),  # grew after its size was taken: read on to the end
    ],
    ids=["whole", "short-reads", "grew"],
)
def test_read_regular_reads_every_byte_in_as_few_calls_as_it_can(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cap: int | None, shrink: int, calls: int
) -> None:
    import os

    import verifier.sources.directory as directory

    data = bytes(range(256)) * 39 + b"0123456789abcdef"  # 10,000 bytes
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    reads = _Reads(cap)
    real_fstat = os.fstat

    def fstat(fd: int) -> Any:
        st = real_fstat(fd)
        if not shrink:
            return st
        fields = list(st)
        fields[stat.ST_SIZE] = st.st_size - shrink  # as if it grew after fstat
        return os.stat_result(fields)

    monkeypatch.setattr("verifier.sources.directory.os.read", reads)
    monkeypatch.setattr("verifier.sources.directory.os.fstat", fstat)
    assert directory.read_regular(str(path), 1 << 20) == data
    assert reads.calls == calls
    monkeypatch.undo()
    with pytest.raises(directory.NotRegularError):
        directory.read_regular(str(path), 9_999)
