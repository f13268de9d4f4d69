"""Hostile zip files and tarballs (issue 11, items 2, 3 and 8): names that read differently in
different tools, header bombs, and damage that used to pass. Each case runs the real CLI in a
child process through the harness (exit code, findings, peak memory, nothing written)."""

from __future__ import annotations

import bz2
import gzip
import lzma
import struct
import subprocess
import tarfile
import zipfile
import zlib
from pathlib import Path

import pytest

from tests.conftest import require_tool
from tests.hostile.archives_build import (
    BLOCK,
    END,
    GOOD,
    central_offsets,
    good_tar_members,
    gzip_bomb,
    header,
    manifest,
    padded,
    patch,
    set_u16,
    tar_of,
    zip_of,
)
from tests.hostile.harness import Run, assert_safe, run_cli
from verifier.views.inert import visible

MIB = 1 << 20
BOMB = 256 * MIB


def check(path: Path, watch: Path | None = None) -> Run:
    return run_cli(
        ["check", str(path), "--stages", "integrity", "--format", "json"],
        watch=[watch or path.parent],
    )


def paths(run: Run, code: str) -> list[str]:
    return sorted(f["path"] for f in run.findings(code))


def test_the_good_archives_pass(tmp_path: Path) -> None:
    for dest in (
        zip_of(tmp_path / "a.zip", []),
        tar_of(tmp_path / "a.tar", [], tarfile.GNU_FORMAT),
        tar_of(tmp_path / "a.tar.gz", [], tarfile.PAX_FORMAT),
    ):
        run = check(dest)
        assert_safe(run, rc=0)
        assert run.codes() == set()


# --- 11.2: names -------------------------------------------------------------------------


def test_a_nul_in_a_zip_name_is_refused_and_the_real_member_is_no_duplicate(
    tmp_path: Path,
) -> None:
    dest = zip_of(tmp_path / "nul.zip", [("evidence/study.json#.exe", b"MZ evil")])
    patch(dest, b"study.json#.exe", b"study.json\0.exe")
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unsafe-member"], max_rss_mib=200)
    assert paths(run, "source.unsafe-member") == ["evidence/study.json\x00.exe"]
    assert "source.duplicate-member" not in run.codes()
    statuses = {f["path"]: f["status"] for f in run.report()["files"]}
    assert statuses["evidence/study.json"] == "ok"


@pytest.mark.parametrize(
    "name",
    [
        "evidence/a\nb.json",
        "evidence/a\rb.json",
        "evidence/\x1b[2Kok.json",
        "evidence/del\x7f.json",
        "evidence/c1\x9b.json",
        "evidence/study.json\0.exe",
    ],
)
def test_control_characters_in_a_zip_name_are_refused_and_shown_escaped(
    tmp_path: Path, name: str
) -> None:
    """JSON names the raw name; text shows it with visible escapes (one line, no control)."""
    dest = zip_of(tmp_path / "ctl.zip", [(name.replace("\0", "#"), b"x")])
    if "\0" in name:
        patch(dest, name.replace("\0", "#").encode(), name.encode())
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unsafe-member"], max_rss_mib=200)
    assert paths(run, "source.unsafe-member") == [name]
    text = run_cli(["check", str(dest), "--stages", "integrity"], watch=[tmp_path])
    assert_safe(text, rc=1, max_rss_mib=200)
    line = next(x for x in text.stdout.splitlines() if "source.unsafe-member" in x)
    assert line.startswith(visible(name) + ": source.unsafe-member: ")
    assert not any(c in text.stdout for c in "\0\r\x1b\x7f\x9b")


def test_a_name_that_differs_in_the_local_header_is_refused(tmp_path: Path) -> None:
    dest = zip_of(tmp_path / "local.zip", [("evidence/aaaa.json", b"{}")])
    patch(dest, b"evidence/aaaa.json", b"evidence/bbbb.json", count=1)  # the local header only
    with zipfile.ZipFile(dest) as z:
        assert "evidence/aaaa.json" in z.namelist()  # the central directory still says aaaa
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unsafe-member"], max_rss_mib=200)
    assert paths(run, "source.unsafe-member") == ["evidence/aaaa.json"]


def test_utf8_flags_that_differ_or_are_missing_are_refused(tmp_path: Path) -> None:
    name = "evidence/café.json"
    both = zip_of(tmp_path / "noflag.zip", [(name, b"{}")])
    with zipfile.ZipFile(both) as z:
        local_at = z.getinfo(name).header_offset
    central_at = central_offsets(both)[name]
    set_u16(both, local_at + 6, 0)  # no UTF-8 flag anywhere: cp437 for zipfile, UTF-8 for unzip
    set_u16(both, central_at + 8, 0)
    run = check(both)
    assert_safe(run, rc=1, codes=["source.unsafe-member"], max_rss_mib=200)
    assert len(run.findings("source.unsafe-member")) == 1
    local_only = zip_of(tmp_path / "localflag.zip", [(name, b"{}")])
    set_u16(local_only, local_at + 6, 0)
    run = check(local_only)
    assert_safe(run, rc=1, codes=["source.unsafe-member"], max_rss_mib=200)
    assert paths(run, "source.unsafe-member") == [name]


def test_a_unicode_path_field_that_names_another_path_is_refused(tmp_path: Path) -> None:
    other = b"evidence/study.json"
    info = zipfile.ZipInfo("evidence/decoy.json", (2026, 1, 1, 0, 0, 0))
    info.extra = struct.pack("<HHBL", 0x7075, 5 + len(other), 1, zlib.crc32(b"x")) + other
    run = check(zip_of(tmp_path / "upath.zip", [(info, b"{}")]))
    assert_safe(run, rc=1, codes=["source.unsafe-member"], max_rss_mib=200)
    assert paths(run, "source.unsafe-member") == ["evidence/decoy.json"]


def test_a_backslash_twin_collides(tmp_path: Path) -> None:
    run = check(zip_of(tmp_path / "bs.zip", [("evidence\\study.json", b"other")]))
    assert_safe(run, rc=1, codes=["source.name-collision"], max_rss_mib=200)
    assert paths(run, "source.name-collision") == ["evidence/study.json", "evidence\\study.json"]


def test_a_nul_in_a_gnu_long_name_is_refused(tmp_path: Path) -> None:
    long = "evidence/study.json#" + "x" * 120
    dest = tar_of(tmp_path / "nul.tar", [(long, b"evil")], tarfile.GNU_FORMAT)
    raw = dest.read_bytes()
    at = raw.index(b"././@LongLink")
    payload = raw.index(long.encode(), at + BLOCK)  # the long name's own block, no checksum
    dest.write_bytes(raw[:payload] + long.replace("#", "\0").encode() + raw[payload + len(long) :])
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unsafe-member"], max_rss_mib=200)
    assert paths(run, "source.unsafe-member") == ["evidence/study.json\x00" + "x" * 120]
    assert "source.duplicate-member" not in run.codes()


def test_a_nul_in_a_pax_path_is_refused(tmp_path: Path) -> None:
    long = "evidence/study.json#" + "y" * 120
    dest = tar_of(tmp_path / "nul.tar.gz", [(long, b"evil")], tarfile.PAX_FORMAT)
    raw = gzip.decompress(dest.read_bytes())
    record = b"path=" + long.encode()
    assert record in raw
    dest.write_bytes(gzip.compress(raw.replace(record, record.replace(b"#", b"\0"))))
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unsafe-member"], max_rss_mib=200)
    assert "source.duplicate-member" not in run.codes()


def test_a_ustar_prefix_on_a_gnu_header_is_ambiguous(tmp_path: Path) -> None:
    block = bytearray(header(b"study.json", 4))
    block[345:353] = b"evidence"  # tarfile reads evidence/study.json, GNU tar study.json
    block[148:156] = b" " * 8
    block[148:156] = b"%06o\0 " % sum(block)
    dest = tmp_path / "prefix.tar"
    dest.write_bytes(good_tar_members() + bytes(block) + padded(b"evil") + END)
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unsafe-member"], max_rss_mib=200)


# --- 11.3: header bombs ------------------------------------------------------------------


@pytest.mark.parametrize("typeflag", [b"L", b"x", b"g"])
def test_a_header_bomb_in_a_tar_gz_is_refused_unread(tmp_path: Path, typeflag: bytes) -> None:
    head = good_tar_members() + header(b"././@LongLink", BOMB, typeflag)
    if typeflag != b"L":  # a pax header of one record: "268435456 comment=aaaa...\n"
        head += b"%d comment=" % BOMB
    dest = gzip_bomb(tmp_path / "bomb.tar.gz", head, BOMB - (len(head) % BLOCK) - 1, b"\n")
    assert dest.stat().st_size < 2 * MIB
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.too-large"], max_rss_mib=200)
    statuses = {f["path"]: f["status"] for f in run.report()["files"]}
    assert statuses["evidence/study.json"] == "ok"  # what came before the bomb was read


def test_many_pax_headers_under_the_cap_count_against_the_ratio(tmp_path: Path) -> None:
    one = 1000 * 1024
    record = b"%d comment=" % one
    pax = header(b"pax", one, b"x") + padded(record + b"a" * (one - len(record) - 1) + b"\n")
    dest = tmp_path / "many.tar.gz"
    with gzip.open(dest, "wb") as out:
        out.write(good_tar_members())
        for _ in range(300):
            out.write(pax)
        out.write(header(b"evidence/late.txt", 0) + END)
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.too-large"], max_rss_mib=200)


def test_a_long_name_bomb_in_a_plain_tar_is_refused_unread(tmp_path: Path) -> None:
    (tmp_path / "big").mkdir()
    dest = tmp_path / "big" / "bomb.tar"
    head = good_tar_members() + header(b"././@LongLink", BOMB, b"L")
    with dest.open("wb") as out:
        out.write(head)
        out.truncate(len(head) + BOMB)  # a sparse file: no disk used for the payload
        out.seek(len(head) + BOMB)
        out.write(header(b"evidence/late.txt", 0) + END)
    # the harness would hash the sparse 256 MiB file to watch its folder, in this process,
    # and a forked child starts with this process's memory: watch a sibling (and HOME, TMPDIR)
    (tmp_path / "watched").mkdir()
    run = check(dest, watch=tmp_path / "watched")
    assert_safe(run, rc=1, codes=["source.too-large"], max_rss_mib=200)


# --- 11.8: damage that used to pass --------------------------------------------------------


def _tar(tmp_path: Path, suffix: str) -> Path:
    return tar_of(tmp_path / f"a{suffix}", [("evidence/more.txt", b"m" * 3000)], tarfile.GNU_FORMAT)


def test_a_plain_tar_cut_in_a_header_is_unreadable(tmp_path: Path) -> None:
    dest = _tar(tmp_path, ".tar")
    raw = dest.read_bytes()
    cut = raw.index(b"evidence/more.txt") + 100  # inside the last member's header
    dest.write_bytes(raw[:cut])
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unreadable"], max_rss_mib=200)


def test_a_plain_tar_without_its_end_marker_is_unreadable(tmp_path: Path) -> None:
    dest = tmp_path / "noend.tar"
    dest.write_bytes(good_tar_members())
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unreadable"], max_rss_mib=200)


def test_a_lone_zero_block_before_a_member_is_unreadable(tmp_path: Path) -> None:
    dest = tmp_path / "lone.tar"
    hidden = header(b"evidence/hidden.txt", 2) + padded(b"hi")
    dest.write_bytes(good_tar_members() + b"\0" * BLOCK + hidden + END)
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unreadable"], max_rss_mib=200)


def test_members_after_the_end_marker_are_trailing_data(tmp_path: Path) -> None:
    dest = tmp_path / "after.tar"
    hidden = header(b"evidence/hidden.txt", 2) + padded(b"hi")
    dest.write_bytes(good_tar_members() + END + hidden + END)  # tar --ignore-zeros reads it
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.trailing-data"], max_rss_mib=200)


@pytest.mark.parametrize("suffix", [".tar.gz", ".tar.xz", ".tar.bz2"])
def test_a_compressed_tarball_missing_its_last_bytes_is_unreadable(
    tmp_path: Path, suffix: str
) -> None:
    dest = _tar(tmp_path, suffix)
    raw = dest.read_bytes()
    dest.write_bytes(raw[:-4])
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unreadable"], max_rss_mib=200)


@pytest.mark.parametrize("field", ["crc", "isize"])
def test_a_bad_gzip_trailer_is_unreadable(tmp_path: Path, field: str) -> None:
    dest = _tar(tmp_path, ".tar.gz")
    raw = bytearray(dest.read_bytes())
    raw[-8 if field == "crc" else -4] ^= 0x01
    dest.write_bytes(bytes(raw))
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unreadable"], max_rss_mib=200)


@pytest.mark.parametrize(
    ("suffix", "compress"),
    [(".tar.gz", gzip.compress), (".tar.xz", lzma.compress), (".tar.bz2", bz2.compress)],
)
def test_a_second_stream_with_a_bad_check_is_unreadable(
    tmp_path: Path, suffix: str, compress: object
) -> None:
    """A multi-member file is read to its last member, whose own check must hold."""
    assert callable(compress)
    dest = _tar(tmp_path, suffix)
    second = bytearray(compress(b"\0" * 1024))
    second[-9 if suffix == ".tar.bz2" else -8] ^= 0x01  # gzip CRC, xz footer CRC, bz2 CRC
    dest.write_bytes(dest.read_bytes() + bytes(second))
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unreadable"], max_rss_mib=200)


@pytest.mark.parametrize("suffix", [".tar.gz", ".tar.xz", ".tar.bz2"])
def test_garbage_after_the_compressed_stream_is_trailing_data(tmp_path: Path, suffix: str) -> None:
    dest = _tar(tmp_path, suffix)
    dest.write_bytes(dest.read_bytes() + b"hidden members could be here")
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.trailing-data"], max_rss_mib=200)


def test_a_zip_member_with_a_bad_crc_is_unreadable(tmp_path: Path) -> None:
    dest = zip_of(tmp_path / "crc.zip", [])
    at = central_offsets(dest)["evidence/study.json"] + 16
    raw = bytearray(dest.read_bytes())
    raw[at] ^= 0x01  # the CRC-32 the central directory records
    dest.write_bytes(bytes(raw))
    run = check(dest)
    assert_safe(run, rc=1, codes=["manifest.unreadable"], max_rss_mib=200)
    assert paths(run, "manifest.unreadable") == ["evidence/study.json"]


def test_a_zip_member_longer_than_declared_is_unreadable(tmp_path: Path) -> None:
    dest = zip_of(tmp_path / "long.zip", [])
    at = central_offsets(dest)["evidence/study.json"] + 24
    raw = bytearray(dest.read_bytes())
    raw[at : at + 4] = struct.pack("<L", len(GOOD["evidence/study.json"]) - 1)  # file size
    dest.write_bytes(bytes(raw))
    run = check(dest)
    assert_safe(run, rc=1, codes=["manifest.unreadable"], max_rss_mib=200)


# --- a zip that cannot be opened at all: damage is a finding, "not a zip" is exit 2 -------


def _cuts(raw: bytes, start_dir: int) -> dict[str, int]:
    return {
        "in-the-first-local-header": 10,
        "in-the-first-member": 40,
        "at-the-central-directory": start_dir,
        "in-the-central-directory": start_dir + 30,
        "in-the-end-record": len(raw) - 10,
        "one-byte-short": len(raw) - 1,
    }


CUTS = sorted(_cuts(b"x" * 100, 50))


@pytest.mark.parametrize("where", CUTS)
def test_a_truncated_zip_is_unreadable_not_exit_2(tmp_path: Path, where: str) -> None:
    dest = zip_of(tmp_path / "cut.zip", [])
    raw = dest.read_bytes()
    with zipfile.ZipFile(dest) as z:
        start = z.start_dir
    dest.write_bytes(raw[: _cuts(raw, start)[where]])
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unreadable"], max_rss_mib=200)
    (finding,) = run.findings("source.unreadable")
    assert "central directory" in finding["message"]
    assert run.report()["stages"][0]["status"] == "failed"


def _end_record(raw: bytes) -> int:
    return raw.rindex(b"PK\x05\x06")


@pytest.mark.parametrize(
    ("field", "at", "value"),
    [
        ("size-and-offset", 12, b"\xff" * 8),  # a directory bigger than the file, past its end
        ("directory-size", 12, b"\xff\xff\xff\x7f"),  # a directory larger than the file
        ("everything", 4, b"\xa5" * 18),  # every field after the signature is garbage
    ],
)
def test_a_zip_with_a_garbage_end_record_is_unreadable(
    tmp_path: Path, field: str, at: int, value: bytes
) -> None:
    dest = zip_of(tmp_path / f"{field}.zip", [])
    raw = bytearray(dest.read_bytes())
    eocd = _end_record(bytes(raw))
    raw[eocd + at : eocd + at + len(value)] = value
    dest.write_bytes(bytes(raw))
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unreadable"], max_rss_mib=200)


def test_a_zip64_locator_pointing_past_the_end_is_unreadable(tmp_path: Path) -> None:
    dest = zip_of(tmp_path / "z64.zip", [])
    raw = dest.read_bytes()
    eocd = _end_record(raw)
    locator = b"PK\x06\x07" + struct.pack("<LQL", 0, 1 << 40, 1)  # a zip64 record at 1 TiB
    dest.write_bytes(raw[:eocd] + locator + raw[eocd:])
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unreadable"], max_rss_mib=200)


def test_a_truncated_zip_without_the_suffix_is_still_a_zip(tmp_path: Path) -> None:
    """Named by its bytes (a local file header at the start), not by its suffix."""
    dest = zip_of(tmp_path / "cut.zip", [])
    renamed = tmp_path / "snapshot"
    renamed.write_bytes(dest.read_bytes()[:-30])
    run = check(renamed)
    assert_safe(run, rc=1, codes=["source.unreadable"], max_rss_mib=200)


def test_a_zip_whose_manifest_member_is_damaged_is_unreadable(tmp_path: Path) -> None:
    """The manifest itself cannot be decompressed: a finding on it, not exit 2."""
    dest = zip_of(tmp_path / "crc.zip", [])
    at = central_offsets(dest)["manifest.sha256"] + 16
    raw = bytearray(dest.read_bytes())
    raw[at] ^= 0x01  # the manifest's CRC-32 in the central directory
    dest.write_bytes(bytes(raw))
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unreadable"], max_rss_mib=200)
    assert paths(run, "source.unreadable") == ["manifest.sha256"]


@pytest.mark.parametrize("suffix", [".tar", ".tar.gz"])
def test_a_tarball_cut_inside_its_manifest_is_unreadable(tmp_path: Path, suffix: str) -> None:
    dest = tar_of(tmp_path / f"m{suffix}", [], tarfile.GNU_FORMAT)
    with tarfile.open(dest) as archive:
        assert archive.getnames()[0] == "manifest.sha256"
    raw = dest.read_bytes()
    dest.write_bytes(raw[: BLOCK + 20] if suffix == ".tar" else raw[:30])
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unreadable"], max_rss_mib=200)


def test_a_gzip_tarball_cut_in_its_first_header_is_unreadable(tmp_path: Path) -> None:
    dest = _tar(tmp_path, ".tar.gz")
    dest.write_bytes(dest.read_bytes()[:12])  # the gzip magic is there: a damaged tarball
    run = check(dest)
    assert_safe(run, rc=1, codes=["source.unreadable"], max_rss_mib=200)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("garbage.zip", bytes(range(256)) * 4),
        ("garbage.tar", b"\x01" * 2048),
        ("empty.zip", b""),
    ],
)
def test_a_file_with_no_signature_at_all_cannot_run(tmp_path: Path, name: str, data: bytes) -> None:
    """No zip signature anywhere (no local header at the start, no end record in the tail),
    no tar magic: not an archive of this kind, so the command cannot run (exit 2, one line)."""
    dest = tmp_path / name
    dest.write_bytes(data)
    run = check(dest)
    assert_safe(run, rc=2)
    assert "not a readable" in run.stderr


def test_a_path_that_does_not_exist_cannot_run(tmp_path: Path) -> None:
    run = check(tmp_path / "nowhere.zip")
    assert_safe(run, rc=2)


# --- issue 34 (9): sizes past the end leave nothing behind; sparse members are not read ---


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
@pytest.mark.parametrize("size", ["past-the-end", "4-GiB"])
@pytest.mark.parametrize("fmt", ["json", "text", "sarif"])
def test_a_compressed_size_past_the_end_leaves_nothing(
    tmp_path: Path, method: int, size: str, fmt: str
) -> None:
    """The central directory gives a member a compressed size past the end of the file: a
    finding or a verdict, never a file left in TMPDIR or beside the zip."""
    dest = tmp_path / "past.zip"
    with zipfile.ZipFile(dest, "w", method) as archive:
        archive.writestr("manifest.sha256", manifest(GOOD))
        for name, data in GOOD.items():
            archive.writestr(name, data)
    at = central_offsets(dest)["evidence/study.json"] + 20
    raw = bytearray(dest.read_bytes())
    raw[at : at + 4] = struct.pack("<L", len(raw) + 1 if size == "past-the-end" else 0xFFFFFFFE)
    dest.write_bytes(bytes(raw))
    run = run_cli(["check", str(dest), "--format", fmt], watch=[tmp_path])
    assert_safe(run, rc=1, json_report=fmt == "json")


@pytest.mark.parametrize("fmt", ["gnu", "oldgnu", "posix"])
def test_a_sparse_member_is_refused_unread(tmp_path: Path, fmt: str) -> None:
    """A sparse member (GNU tar's three ways of writing one) expands to its real size when
    extracted, not its stored one: it is never read as a file (a finding, as a special file),
    so nothing of its real size is expanded, whatever --max-bytes says."""
    exe = require_tool("tar")
    root = tmp_path / "a"
    (root / "evidence").mkdir(parents=True)
    big = root / "evidence" / "big.bin"
    with big.open("wb") as out:
        out.truncate(64 * MIB)
        out.seek(0, 2)
        out.write(b"end\n")
    (root / "manifest.sha256").write_text(f"{'0' * 64}  evidence/big.bin\n")
    dest = tmp_path / "sparse.tar"
    subprocess.run(
        [exe, "--sparse", f"--format={fmt}", "-cf", str(dest), "-C", str(root), "."],
        check=True,
        capture_output=True,
    )
    assert dest.stat().st_size < MIB
    run = run_cli(
        ["check", str(dest), "--stages", "integrity", "--format", "json", "--max-bytes", "1M"],
        watch=[tmp_path],
    )
    assert_safe(run, rc=1, max_rss_mib=200)
    assert {f["code"] for f in run.findings()} & {"manifest.not-regular", "manifest.missing"}
    assert not run.findings("manifest.mismatch")  # its bytes were never hashed
