"""Messy published manifests: what passes, what fails, and the hint beside each failure. A hint
never turns a finding into a pass."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from tests.archives import commit_all, git, git_repo
from tests.conftest import write_archive
from verifier import verify
from verifier.findings import Finding
from verifier.pipeline import Options, UsageError
from verifier.report import Report

TEXT = b"line one\nline two\n"
CRLF = TEXT.replace(b"\n", b"\r\n")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def only(report: Report, code: str, path: str) -> Finding:
    found = [f for f in report.findings if f.code == code and f.path == path]
    assert len(found) == 1, [f.to_dict() for f in report.findings]
    return found[0]


def with_manifest(root: Path, lines: list[str], name: str = "manifest.sha256") -> Path:
    (root / name).write_bytes(("\n".join(lines) + "\n").encode())
    return root


def test_dot_slash_prefixes_star_markers_and_no_final_newline_pass(tmp_path: Path) -> None:
    root = write_archive(tmp_path, {"data/a.txt": b"a", "data/b.bin": b"\0b"}, manifest=False)
    b_digest = sha(b"\0b").upper()
    (root / "manifest.sha256").write_bytes(
        f"{sha(b'a')}  ./data/a.txt\n{b_digest} *./data/b.bin".encode()
    )
    report = verify(root)
    assert report.findings == []
    assert report.integrity.counts["ok"] == 2


def test_a_file_hashed_on_a_windows_checkout(tmp_path: Path) -> None:
    root = write_archive(tmp_path, {"data/notes.txt": TEXT}, manifest=False)
    with_manifest(root, [f"{sha(CRLF)}  data/notes.txt"])
    report = verify(root)
    assert not report.ok
    hint = only(report, "manifest.mismatch", "data/notes.txt").hint
    assert hint is not None and "converted to CRLF" in hint and "Windows" in hint


def test_a_crlf_file_hashed_with_lf_endings(tmp_path: Path) -> None:
    root = write_archive(tmp_path, {"data/notes.txt": CRLF}, manifest=False)
    with_manifest(root, [f"{sha(TEXT)}  data/notes.txt"])
    hint = only(verify(root), "manifest.mismatch", "data/notes.txt").hint
    assert hint is not None and "converted to LF" in hint


def test_line_ending_hints_survive_chunk_boundaries(tmp_path: Path) -> None:
    big = b"x" * ((1 << 17) - 1) + b"\r\n" + b"y\n" * 1000  # a CRLF split between two reads
    root = write_archive(tmp_path, {"data/big.txt": big}, manifest=False)
    lf = big.replace(b"\r\n", b"\n")
    with_manifest(root, [f"{sha(lf)}  data/big.txt"])
    hint = only(verify(root), "manifest.mismatch", "data/big.txt").hint
    assert hint is not None and "converted to LF" in hint


def test_binary_files_get_no_line_ending_hint(tmp_path: Path) -> None:
    data = b"\0binary\n"
    root = write_archive(tmp_path, {"data/x.bin": data}, manifest=False)
    crlf = sha(data.replace(b"\n", b"\r\n"))
    with_manifest(root, [f"{crlf}  data/x.bin"])
    assert only(verify(root), "manifest.mismatch", "data/x.bin").hint is None


def test_a_self_listing_manifest(tmp_path: Path) -> None:
    root = write_archive(tmp_path, {"a.txt": b"a"}, manifest=False)
    with_manifest(root, [f"{sha(b'a')}  a.txt", f"{sha(b'')}  ./manifest.sha256"])
    report = verify(root)
    assert [(f.code, f.path, f.line) for f in report.findings] == [
        ("manifest.self-listed", "manifest.sha256", 2)
    ]


def test_a_moved_file(tmp_path: Path) -> None:
    root = write_archive(tmp_path, {"data/new/place.txt": b"moved bytes\n"}, manifest=False)
    (root / "data/other.txt").write_bytes(b"other\n")
    moved = sha(b"moved bytes\n")
    with_manifest(root, [f"{moved}  data/old.txt", f"{moved}  data/other.txt"])
    report = verify(root)
    missing = only(report, "manifest.missing", "data/old.txt").hint
    assert missing is not None and "The same bytes are at data/new/place.txt" in missing
    mismatch = only(report, "manifest.mismatch", "data/other.txt").hint
    assert mismatch is not None and "that of data/new/place.txt" in mismatch
    only(report, "manifest.unlisted", "data/new/place.txt")


def test_a_name_in_another_unicode_form(tmp_path: Path) -> None:
    nfd = "data/cafe\u0301.txt"
    root = write_archive(tmp_path, {nfd: b"x"}, manifest=False)
    with_manifest(root, [f"{sha(b'y')}  data/café.txt"])
    hint = only(verify(root), "manifest.missing", "data/café.txt").hint
    assert hint is not None and "another Unicode normalisation form" in hint


def zipped(tmp_path: Path, files: dict[str, bytes]) -> Path:
    path = tmp_path / "published.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return path


def test_a_manifest_in_a_subfolder_with_names_relative_to_it(tmp_path: Path) -> None:
    a, b = b"alpha\n", b"beta\n"
    files = {
        "release/a.txt": a,
        "release/b.txt": b,
        "release/SHA256SUMS": f"{sha(a)}  a.txt\n{sha(b)}  b.txt\n".encode(),
    }
    path = zipped(tmp_path, files)
    report = verify(path, Options(manifest="release/SHA256SUMS"))
    assert not report.ok
    hint = only(report, "manifest.missing", "a.txt").hint
    assert hint is not None and "With --base release, 2 of 2 listed files match" in hint
    assert report.integrity.note is not None and "--base release" in report.integrity.note
    fixed = verify(path, Options(manifest="release/SHA256SUMS", base="release"))
    assert fixed.ok, [f.to_dict() for f in fixed.findings]
    assert [f.path for f in fixed.files] == ["release/a.txt", "release/b.txt"]
    assert fixed.scope == ["release/."]


def test_names_relative_to_the_root_with_a_wrong_base(tmp_path: Path) -> None:
    a = b"alpha\n"
    files = {"docs/a.txt": a, "docs/SHA256SUMS": f"{sha(a)}  docs/a.txt\n".encode()}
    path = zipped(tmp_path, files)
    report = verify(path, Options(manifest="docs/SHA256SUMS", base="docs"))
    hint = only(report, "manifest.missing", "docs/docs/a.txt").hint
    assert hint is not None and "With --base ., 1 of 1 listed files match" in hint
    assert verify(path, Options(manifest="docs/SHA256SUMS")).ok


def test_a_base_must_be_a_folder_of_the_source(tmp_path: Path) -> None:
    root = write_archive(tmp_path, {"data/a.txt": b"a"})
    for base in ("nope", "../x", "/abs", "data/a.txt"):
        with pytest.raises(UsageError, match="--base"):
            verify(root, Options(base=base))
    assert verify(root, Options(base=".")).ok


def test_a_stale_manifest_line_in_git_names_the_older_commit(tmp_path: Path) -> None:
    root = write_archive(tmp_path / "repo", {"data/a.txt": b"version 1\n", "data/b.txt": b"b"})
    git_repo(root)
    first = git(root, "rev-parse", "HEAD").strip()
    (root / "data/a.txt").write_bytes(b"version 2\n")  # the manifest is not updated
    (root / "data/b.txt").unlink()  # nor for a deletion
    second = commit_all(root, "change a, drop b")
    report = verify(f"{root}@HEAD")
    hint = only(report, "manifest.mismatch", "data/a.txt").hint
    assert hint is not None and f"as of commit {first}" in hint and "stale" in hint
    gone = only(report, "manifest.missing", "data/b.txt").hint
    assert gone is not None and f"commit {first}" in gone
    assert first != second
    assert verify(f"{root}@{first}").ok


def test_hints_appear_in_the_text_and_json_views(tmp_path: Path) -> None:
    from verifier.views.check import CHECK as FORMATS

    root = write_archive(tmp_path, {"data/notes.txt": TEXT}, manifest=False)
    with_manifest(root, [f"{sha(CRLF)}  data/notes.txt"])
    report = verify(root)
    assert "(hint: The file matches once its LF line endings" in FORMATS["text"](report)
    assert '"hint": "The file matches' in FORMATS["json"](report)


def test_hints_can_be_switched_off(tmp_path: Path) -> None:
    root = write_archive(tmp_path, {"data/notes.txt": TEXT}, manifest=False)
    with_manifest(root, [f"{sha(CRLF)}  data/notes.txt"])
    report = verify(root, Options(hints=False))
    assert only(report, "manifest.mismatch", "data/notes.txt").hint is None
