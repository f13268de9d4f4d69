from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import write_archive
from verifier import verify
from verifier.pipeline import Options, UsageError
from verifier.report import Report


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def found(report: Report) -> list[tuple[str, str, int | None]]:
    return [(f.code, f.path, f.line) for f in report.findings if f.stage.value == "integrity"]


FILES = {"data/a.txt": b"alpha\n", "data/sub/b.txt": b"beta\n"}
ALPHA = sha(FILES["data/a.txt"])


def test_intact(tmp_path: Path) -> None:
    report = verify(write_archive(tmp_path, FILES))
    assert found(report) == []
    assert report.integrity.counts == {"listed": 2, "ok": 2, "bytes": 11}
    assert report.scope == ["data"]


def test_mismatch_missing_unlisted(tmp_path: Path) -> None:
    root = write_archive(tmp_path, FILES)
    (root / "data/a.txt").write_bytes(b"alphA\n")
    (root / "data/sub/b.txt").unlink()
    (root / "data/new.txt").write_bytes(b"new")
    (root / "outside.txt").write_bytes(b"not in scope")
    assert found(verify(root)) == [
        ("manifest.mismatch", "data/a.txt", 1),
        ("manifest.unlisted", "data/new.txt", None),
        ("manifest.missing", "data/sub/b.txt", 2),
    ]


def test_scope_can_be_widened(tmp_path: Path) -> None:
    root = write_archive(tmp_path, FILES)
    (root / "outside.txt").write_bytes(b"x")
    (root / ".git").mkdir()
    (root / ".git/HEAD").write_bytes(b"ref")
    report = verify(root, Options(scope=(".",)))
    assert found(report) == [("manifest.unlisted", "outside.txt", None)]


def test_malformed_duplicate_unsafe_self_listed(tmp_path: Path) -> None:
    root = write_archive(tmp_path, FILES, manifest=False)
    a = sha(FILES["data/a.txt"])
    lines = [
        f"{a}  data/a.txt",
        f"{a}  ./data/a.txt",
        "not a checksum line",
        f"{a}  /etc/passwd",
        f"{a}  data/../../x",
        f"{a}  data//a.txt",
        f"{sha(b'')}  manifest.sha256",
        f"{sha(FILES['data/sub/b.txt'])}  data/sub/b.txt",
    ]
    (root / "manifest.sha256").write_text("\n".join(lines) + "\n")
    assert sorted(found(verify(root))) == [
        ("manifest.duplicate", "data/a.txt", 2),
        ("manifest.malformed", "manifest.sha256", 3),
        ("manifest.self-listed", "manifest.sha256", 7),
        ("manifest.unsafe-path", "/etc/passwd", 4),
        ("manifest.unsafe-path", "data/../../x", 5),
        ("manifest.unsafe-path", "data//a.txt", 6),
    ]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")
def test_symlinks_are_refused_and_never_followed(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"secret")
    root = write_archive(tmp_path / "root", {"data/a.txt": b"alpha\n"}, manifest=False)
    (root / "data/link.txt").symlink_to(secret)
    (root / "linkdir").symlink_to(tmp_path)
    (root / "manifest.sha256").write_text(
        f"{ALPHA}  data/a.txt\n{sha(b'secret')}  data/link.txt\n"
        f"{sha(b'secret')}  linkdir/secret.txt\n"
    )
    assert sorted(found(verify(root))) == [
        ("manifest.unsafe-path", "data/link.txt", 2),
        ("manifest.unsafe-path", "linkdir/secret.txt", 3),
    ]


def test_directory_listed_is_not_regular(tmp_path: Path) -> None:
    root = write_archive(tmp_path, FILES, manifest=False)
    (root / "manifest.sha256").write_text(f"{sha(b'')}  data/sub\n")
    assert ("manifest.not-regular", "data/sub", 1) in found(verify(root))


def test_empty_manifest(tmp_path: Path) -> None:
    root = write_archive(tmp_path, {}, manifest=False)
    (root / "manifest.sha256").write_text("# nothing\n\n")
    assert found(verify(root)) == [("manifest.empty", "manifest.sha256", None)]


def test_manifest_named_elsewhere(tmp_path: Path) -> None:
    root = write_archive(tmp_path / "snap", FILES)
    (root / "manifest.sha256").rename(tmp_path / "SHA256SUMS")
    report = verify(root, Options(manifest=str(tmp_path / "SHA256SUMS")))
    assert found(report) == []
    with pytest.raises(UsageError):
        verify(root)


def test_each_listed_file_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from verifier.sources.directory import DirectorySource

    opened: list[str] = []
    original = DirectorySource.open

    def spy(self: DirectorySource, name: str):  # type: ignore[no-untyped-def]
        opened.append(name)
        return original(self, name)

    monkeypatch.setattr(DirectorySource, "open", spy)
    files = {"evidence/r.json": b'{"a": 1}', "schemas/s.json": b"{}", "data/x.bin": b"\0" * 10}
    verify(write_archive(tmp_path, files))
    assert sorted(opened) == sorted(files)


@pytest.mark.parametrize("extra", [0, 1, 4096, (1 << 16) + 7])
def test_large_files_hash_the_same_through_a_memory_map(
    tmp_path: Path, extra: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the first buffer, a large binary file is hashed through mapped windows; every
    byte still counts once, whatever the size (the tail of a window, a partial one)."""
    import verifier.inspect.digest
    from verifier.inspect.digest import _MAP_MIN, _MAP_WINDOW, _digest

    mapped: list[int] = []
    original = verifier.inspect.digest._hash_mapped

    def counting(stream: Any, offset: int, hasher: Any) -> int:
        mapped.append(original(stream, offset, hasher))
        return mapped[-1]

    monkeypatch.setattr(verifier.inspect.digest, "_hash_mapped", counting)

    data = bytes(range(256)) * ((_MAP_MIN + 2 * _MAP_WINDOW + extra) // 256) + b"\0" * extra
    path = tmp_path / "big.bin"
    path.write_bytes(data)
    with open(path, "rb", buffering=0) as stream:
        digest, kept = _digest(stream, keep=False, variants=True, expected=None)
    assert kept is None
    assert (digest.sha256, digest.size) == (sha(data), len(data))
    assert mapped and mapped[0] > 0, "the mapped path was not taken"
    mismatch = data[:-1] + b"\1"
    path.write_bytes(mismatch)
    report = verify(write_archive(tmp_path / "a", {"blobs/big.bin": data}))
    assert found(report) == []
    (tmp_path / "a" / "blobs/big.bin").write_bytes(mismatch)
    report = verify(tmp_path / "a")
    assert [c for c, _, _ in found(report)] == ["manifest.mismatch"]
